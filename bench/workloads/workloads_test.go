package workloads

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// Each verifier must accept the serial result and reject a corrupted one.

func checkLoop(t *testing.T, l *Loop, corrupt func()) {
	t.Helper()
	if err := l.Verify(); err == nil && l.N > 0 {
		t.Errorf("%s: Verify accepted an output that was never computed", l.Name)
	}
	l.Plain()
	if err := l.Verify(); err != nil {
		t.Fatalf("%s: plain loop rejected: %v", l.Name, err)
	}
	l.Reset()
	for i := 0; i < l.N; i++ {
		l.Elem(i)
	}
	if err := l.Verify(); err != nil {
		t.Fatalf("%s: element body rejected: %v", l.Name, err)
	}
	l.Reset()
	l.Range(0, l.N/3)
	l.Range(l.N/3, l.N)
	if err := l.Verify(); err != nil {
		t.Fatalf("%s: range body rejected: %v", l.Name, err)
	}
	corrupt()
	if err := l.Verify(); err == nil {
		t.Errorf("%s: Verify accepted a corrupted output", l.Name)
	}
}

func TestTiny(t *testing.T) {
	l := Tiny(100)
	checkLoop(t, l, func() { l.Range(50, 51); l.Elem(0); l.Reset(); l.Range(0, 99) })
}

func TestUniform(t *testing.T) {
	a := make([]float64, 1000)
	l := UniformInto(a)
	checkLoop(t, l, func() { a[999] += 1e-12 })
}

func TestMandel(t *testing.T) {
	m := NewMandel(64, 48, 200)
	l := m.Loop()
	checkLoop(t, l, func() { m.Out[len(m.Out)/2]++ })
	// The rows through the set cost far more than the edge rows.
	if edge, mid := m.RowCost(0), m.RowCost(m.H/2); mid < 10*edge {
		t.Errorf("row costs not irregular: edge %d, middle %d", edge, mid)
	}
}

func TestSkewed(t *testing.T) {
	s := NewSkewed(500, SkewedAlpha, 10)
	total, mx := s.TotalCost()
	if mx < 20*10 || total < 500*10 {
		t.Errorf("costs not heavy-tailed: total %d, max %d", total, mx)
	}
	for _, c := range s.Cost {
		if c < 10 {
			t.Fatalf("cost %d below the Pareto minimum", c)
		}
	}
	l := s.Loop()
	checkLoop(t, l, func() { s.Out[7] ^= 1 })
}

func TestSkewedBenchmarkShape(t *testing.T) {
	s := NewSkewed(SkewedN, SkewedAlpha, SkewedMin)
	total, mx := s.TotalCost()
	if frac := float64(mx) / float64(total); frac < 0.01 || frac > 0.1 {
		t.Errorf("largest item is %.3f of the total; the suite's text says about 3%%", frac)
	}
}

func TestFib(t *testing.T) {
	if got := FibForks(FibEvery, 1); got != 1346268 {
		t.Errorf("FibForks(30, 1) = %d, want 1346268", got)
	}
	if got := FibForks(FibCutN, FibCutCutoff); got != 17710 {
		t.Errorf("FibForks(35, 15) = %d, want 17710", got)
	}
	for n := 0; n < 20; n++ {
		if FibSeq(n) != FibValue(n) || FibJoin(n, 1, SeqJoin) != FibValue(n) || FibJoin(n, 5, SeqJoin) != FibValue(n) {
			t.Fatalf("fib(%d) disagrees", n)
		}
	}
}

func TestQsort(t *testing.T) {
	for _, n := range []int{0, 1, 2, 31, 32, 33, 1000, 10000} {
		in := QsortInput(n)
		want := ChecksumOf(in)
		a := append([]int(nil), in...)
		QsortSeq(a)
		if err := VerifySorted(a, want); err != nil {
			t.Fatalf("n=%d seq: %v", n, err)
		}
		b := append([]int(nil), in...)
		QsortJoin(b, QsortLeaf, SeqJoin)
		if err := VerifySorted(b, want); err != nil {
			t.Fatalf("n=%d join: %v", n, err)
		}
		if n > 2 {
			b[0], b[n-1] = b[n-1], b[0]
			if VerifySorted(b, want) == nil {
				t.Errorf("n=%d: unsorted output accepted", n)
			}
			b[0], b[n-1] = b[n-1], b[0]
			b[1] = b[0]
			if VerifySorted(b, want) == nil {
				t.Errorf("n=%d: changed elements accepted", n)
			}
		}
	}
	// Many duplicates.
	a := make([]int, 5000)
	for i := range a {
		a[i] = i % 3
	}
	want := ChecksumOf(a)
	QsortJoin(a, QsortLeaf, SeqJoin)
	if err := VerifySorted(a, want); err != nil {
		t.Fatal(err)
	}
}

func TestTree(t *testing.T) {
	tr := NewTree(50, 2, 0.45, 4, 1)
	n, sum := tr.Seq(tr.Root(), 0)
	if n < 51 {
		t.Fatalf("tree has %d nodes", n)
	}
	for _, cut := range []int{0, 1, 3, 1 << 30} {
		jn, js := tr.Join(tr.Root(), 0, cut, SeqJoin)
		if jn != n || js != sum {
			t.Errorf("cut %d: %d nodes sum %x, want %d %x", cut, jn, js, n, sum)
		}
	}
}

func TestReduce(t *testing.T) {
	a := ReduceInput(100000)
	exact := SumExact(a)
	if err := VerifySum(SumPlain(a), exact); err != nil {
		t.Fatal(err)
	}
	if err := VerifySum(SumRange(a, 0, 50000)+SumRange(a, 50000, 100000), exact); err != nil {
		t.Fatal(err)
	}
	if VerifySum(exact+1, exact) == nil || VerifySum(SumRange(a, 1, len(a)), exact) == nil {
		t.Error("a wrong sum was accepted")
	}
}

func TestMatMul(t *testing.T) {
	m := NewMatMul(37)
	if m.Verify() == nil {
		t.Error("an uncomputed product was accepted")
	}
	m.Plain()
	if err := m.Verify(); err != nil {
		t.Fatal(err)
	}
	m.Reset()
	for i := 0; i < m.N; i++ {
		for j := 0; j < m.N; j++ {
			m.Cell(i, j)
		}
	}
	if err := m.Verify(); err != nil {
		t.Fatal(err)
	}
	m.C[5] += 1e-9
	if m.Verify() == nil {
		t.Error("a corrupted product was accepted")
	}
}

func TestUTS(t *testing.T) {
	for _, c := range []struct {
		seed     uint64
		min, max int
	}{{UTSSeed, 200_000, 1_000_000}, {UTSShortSeed, 15_000, 30_000}} {
		u := NewUTS(UTSRootKids, c.seed, 1, false)
		n, widest, depth := u.Shape()
		if n < c.min || n > c.max || widest != UTSMaxKids || depth < 10 {
			t.Errorf("seed %d: %d nodes, widest %d, depth %d; want %d to %d nodes, a node of %d children, depth >= 10",
				c.seed, n, widest, depth, c.min, c.max, UTSMaxKids)
		}
	}
	// The allocating variant is the same tree with the same values.
	u, ua := NewUTS(UTSRootKids, UTSShortSeed, 3, false), NewUTS(UTSRootKids, UTSShortSeed, 3, true)
	c, ca := u.Seq(u.Root(), 0), ua.Seq(ua.Root(), 0)
	if n, _, _ := u.Shape(); c != ca || c.N != uint64(n) {
		t.Errorf("Seq: %+v, allocating %+v, Shape %d nodes", c, ca, n)
	}
	if allocs := testing.AllocsPerRun(1, func() { ua.Seq(ua.Root(), 0) }); allocs < float64(c.N) {
		t.Errorf("allocating variant: %.0f allocations for %d nodes", allocs, c.N)
	}
	if allocs := testing.AllocsPerRun(1, func() { u.Seq(u.Root(), 0) }); allocs != 0 {
		t.Errorf("implicit variant: %.0f allocations", allocs)
	}
	// Subtree sizes are wildly different.
	sizes := make([]uint64, u.RootKids)
	for i := range sizes {
		sizes[i] = u.Seq(UTSChild(u.Root(), i), 1).N
	}
	if mx := slices.Max(sizes); mx < 20*c.N/uint64(len(sizes)) || slices.Min(sizes) != 1 {
		t.Errorf("root subtrees not unbalanced: largest %d of %d nodes, smallest %d", mx, c.N, slices.Min(sizes))
	}
}

func TestFiles(t *testing.T) {
	f, err := NewFiles(t.TempDir(), 20, 100, 0)
	if err != nil {
		t.Fatal(err)
	}
	if f.Verify() == nil {
		t.Error("Verify accepted files never read")
	}
	for i := range f.Paths {
		f.Elem(i)
	}
	if err := f.Verify(); err != nil {
		t.Fatal(err)
	}
	f.Out[3] ^= 2
	if f.Verify() == nil {
		t.Error("Verify accepted a wrong checksum")
	}
	f.Reset()
	os.Remove(f.Paths[0])
	for i := range f.Paths {
		f.Elem(i)
	}
	if f.Verify() == nil {
		t.Error("Verify accepted a failed read")
	}
}

func TestDocs(t *testing.T) {
	d := NewDocs(200, DocsAlpha, DocsMin, 4096, DocsSeed)
	if d.N() != 200 || len(d.Text) != d.Off[200] {
		t.Fatalf("%d docs, text %d bytes, last offset %d", d.N(), len(d.Text), d.Off[d.N()])
	}
	for i, w := range d.Sizes() {
		if w < DocsMin || w > 4096+16 {
			t.Fatalf("doc %d: %d bytes", i, w)
		}
	}
	// Counting by pieces and merging gives the count of strings.Fields.
	want := Counts{}
	for _, w := range strings.Fields(d.Text) {
		want[w]++
	}
	a, b := Counts{}, Counts{}
	d.CountWords(a, 0, 77)
	d.CountWords(b, 77, d.N())
	got := MergeCounts(a, b)
	if Summarize(got) != Summarize(want) || len(got) != len(want) {
		t.Fatalf("merged counts %v, want %v", Summarize(got), Summarize(want))
	}
	got["zz"]++
	if Summarize(got) == Summarize(want) {
		t.Error("the summary missed a changed count")
	}
}

// The published UTS trees have the published sizes (the reference code's
// RNG, shapes and seeds are what the walk reproduces).
func TestPublishedUTSTrees(t *testing.T) {
	if testing.Short() {
		t.Skip("two walks of 4.1M SHA-1 nodes")
	}
	for _, c := range []struct {
		name  string
		root  SHA1Node
		nodes int
	}{{"T1", UTST1(), UTST1Nodes}, {"T3", UTST3(), UTST3Nodes}} {
		if got := c.root.Count(); got != c.nodes {
			t.Errorf("%s: %d nodes, want %d", c.name, got, c.nodes)
		}
	}
}
