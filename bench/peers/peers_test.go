package peers

import (
	"runtime"
	"testing"

	"github.com/parloop/parloop/bench/workloads"
)

// Every peer must compute every workload correctly, at several sizes
// including the empty loop and sizes below the number of chunks.
func TestLoopPeers(t *testing.T) {
	for _, p := range Loops(true) {
		t.Run(p.Name, func(t *testing.T) {
			run, nested, closePeer := p.Open()
			defer closePeer()
			for _, n := range []int{0, 1, 2, 7, 100, 1001} {
				l := workloads.Tiny(n)
				run(l.N, l.Elem, l.Range)
				if err := l.Verify(); err != nil {
					t.Fatalf("n=%d: %v", n, err)
				}
			}
			m := workloads.NewMandel(40, 30, 100)
			run(m.H, m.Row, m.Rows)
			if err := m.Verify(); err != nil {
				t.Fatal(err)
			}
			mm := workloads.NewMatMul(24)
			row := func(i int) {
				nested(mm.N, func(j int) { mm.Cell(i, j) }, func(lo, hi int) { mm.Cells(i, lo, hi) })
			}
			run(mm.N, row, func(lo, hi int) {
				for i := lo; i < hi; i++ {
					row(i)
				}
			})
			if err := mm.Verify(); err != nil {
				t.Fatalf("nested: %v", err)
			}
			a := workloads.ReduceInput(10007)
			if err := workloads.VerifySum(ChunkedSum(run, a), workloads.SumExact(a)); err != nil {
				t.Fatalf("chunked sum: %v", err)
			}
		})
	}
}

func TestForkPeers(t *testing.T) {
	for _, p := range Forks() {
		t.Run(p.Name, func(t *testing.T) {
			join, closePeer := p.Open()
			defer closePeer()
			cut := 1
			if p.HandCutoff {
				cut = 8
			}
			if got, want := workloads.FibJoin(18, cut, join), workloads.FibValue(18); got != want {
				t.Fatalf("fib(18) = %d, want %d", got, want)
			}
			in := workloads.QsortInput(20000)
			sum := workloads.ChecksumOf(in)
			workloads.QsortJoin(in, workloads.QsortLeaf, join)
			if err := workloads.VerifySorted(in, sum); err != nil {
				t.Fatal(err)
			}
			tr := workloads.NewTree(20, 2, 0.45, 2, 9)
			wn, ws := tr.Seq(tr.Root(), 0)
			if n, s := tr.Join(tr.Root(), 0, 1<<30, join); n != wn || s != ws {
				t.Fatalf("tree: %d %x, want %d %x", n, s, wn, ws)
			}
		})
	}
}

func TestChunkSize(t *testing.T) {
	p := runtime.GOMAXPROCS(0)
	if c := ChunkSize(10_000_000, 2); c != 625_000 {
		t.Errorf("ChunkSize(10M, 2) = %d", c)
	}
	if c := ChunkSize(3, p); c != 1 {
		t.Errorf("ChunkSize(3, %d) = %d, want 1", p, c)
	}
}

// Every tree walk counts the same nodes and values as the serial one, on
// both variants of the tree.
func TestUTSWalks(t *testing.T) {
	for _, alloc := range []bool{false, true} {
		u := workloads.NewUTS(300, 5, 2, alloc)
		want := u.Seq(u.Root(), 0)
		if want.N < 1000 {
			t.Fatalf("test tree too small: %d nodes", want.N)
		}
		for _, w := range UTSWalks() {
			if got := w.Count(u); got != want {
				t.Errorf("%s (alloc %v): %+v, want %+v", w.Name, alloc, got, want)
			}
		}
	}
}

func TestFanOuts(t *testing.T) {
	for _, n := range []int{0, 1, 5, 300} {
		l := workloads.Tiny(n)
		ChanFanOut(64, n, l.Elem)
		if err := l.Verify(); err != nil {
			t.Fatalf("ChanFanOut n=%d: %v", n, err)
		}
		l.Reset()
		if err := ErrgroupLimit(64, n, func(i int) error { l.Elem(i); return nil }); err != nil {
			t.Fatal(err)
		}
		if err := l.Verify(); err != nil {
			t.Fatalf("ErrgroupLimit n=%d: %v", n, err)
		}
	}
}
