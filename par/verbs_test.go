package par_test

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/parloop/parloop/par"
)

// grainCases are the Grain hints every loop verb is checked with: none, the
// smallest, an odd one, and one so large that lo+grain overflows int.
var grainCases = []struct {
	name string
	opts []par.Option
}{
	{"grain=auto", nil},
	{"grain=1", []par.Option{par.Grain(1)}},
	{"grain=7", []par.Option{par.Grain(7)}},
	{"grain=maxint", []par.Option{par.Grain(math.MaxInt)}},
}

// Catches: an index skipped or run twice (split arithmetic, the last element
// of a deque taken twice, a lost stolen piece), an index outside [0,n), and
// overflow of lo+grain, on every pool size and grain.
func TestForExactlyOnce(t *testing.T) {
	t.Parallel()
	for _, pc := range poolCases(t) {
		for _, g := range grainCases {
			for _, n := range sizes() {
				if n == bigN() && (g.name == "grain=7" || g.name == "grain=maxint") {
					continue // the small sizes cover these grains; the big one is costly
				}
				what := fmt.Sprintf("For(%d) %s %s", n, pc.name, g.name)
				counts := make([]atomic.Int32, n)
				var outside atomic.Int64
				noHang(t, what, func() {
					par.For(n, func(i int) {
						if i < 0 || i >= n {
							outside.Add(1)
							return
						}
						counts[i].Add(1)
					}, pc.with(g.opts...)...)
				})
				if o := outside.Load(); o != 0 {
					t.Errorf("%s: body called %d times with an index outside [0,%d)", what, o, n)
				}
				checkOnce(t, what, counts)
			}
		}
	}
}

// Catches: a non-positive n treated as a huge unsigned count or run once.
func TestNonPositiveNRunsNothing(t *testing.T) {
	t.Parallel()
	for _, n := range []int{0, -1, -1000, math.MinInt} {
		var calls atomic.Int64
		par.For(n, func(int) { calls.Add(1) })
		par.ForRange(n, func(int, int) { calls.Add(1) })
		out := par.Map([]int(nil), func(int) int { calls.Add(1); return 0 })
		if len(out) != 0 {
			t.Errorf("Map(nil) returned %d elements", len(out))
		}
		if err := par.ForErr(t.Context(), n, func(context.Context, int) error { calls.Add(1); return nil }); err != nil {
			t.Errorf("ForErr(n=%d) = %v; want nil", n, err)
		}
		if c := calls.Load(); c != 0 {
			t.Errorf("n=%d: bodies ran %d times; want none", n, c)
		}
	}
}

// Catches: ForRange pieces that overlap, leave a gap, are empty or inverted,
// or reach outside [0,n).
func TestForRangePiecesDisjointAndCovering(t *testing.T) {
	t.Parallel()
	for _, pc := range poolCases(t) {
		for _, g := range grainCases {
			for _, n := range sizes() {
				what := fmt.Sprintf("ForRange(%d) %s %s", n, pc.name, g.name)
				var mu sync.Mutex
				var pieces [][2]int
				noHang(t, what, func() {
					par.ForRange(n, func(lo, hi int) {
						spin(hi - lo) // uneven cost, so that a parallel runtime splits
						mu.Lock()
						pieces = append(pieces, [2]int{lo, hi})
						mu.Unlock()
					}, pc.with(g.opts...)...)
				})
				checkCover(t, what, n, pieces)
			}
		}
	}
}

// checkCover checks that pieces are non-empty, inside [0,n), disjoint and
// cover [0,n).
func checkCover(t *testing.T, what string, n int, pieces [][2]int) {
	t.Helper()
	slices.SortFunc(pieces, func(a, b [2]int) int { return a[0] - b[0] })
	next := 0
	for _, p := range pieces {
		lo, hi := p[0], p[1]
		switch {
		case lo >= hi:
			t.Errorf("%s: empty or inverted piece [%d,%d)", what, lo, hi)
			return
		case lo < next:
			t.Errorf("%s: piece [%d,%d) overlaps the previous one, which ended at %d", what, lo, hi, next)
			return
		case lo > next:
			t.Errorf("%s: gap [%d,%d) not covered by any piece", what, next, lo)
			return
		case hi > n:
			t.Errorf("%s: piece [%d,%d) reaches past n=%d", what, lo, hi, n)
			return
		}
		next = hi
	}
	if next != n {
		t.Errorf("%s: pieces cover [0,%d); want [0,%d)", what, next, n)
	}
}

// Catches: a runtime that splits a range before a full grain has run (Grain
// is the smallest piece a split may leave behind at the start of a range): a
// grain at least as long as the loop leaves exactly one piece.
func TestForRangeGrainCoveringAllIsOnePiece(t *testing.T) {
	t.Parallel()
	for _, pc := range poolCases(t) {
		for _, n := range []int{1, 2, 1000, 1 << 16} {
			var calls atomic.Int64
			var first [2]int
			par.ForRange(n, func(lo, hi int) {
				if calls.Add(1) == 1 {
					first = [2]int{lo, hi}
				}
				spin(10 * (hi - lo))
			}, pc.with(par.Grain(n))...)
			if c := calls.Load(); c != 1 || first != [2]int{0, n} {
				t.Errorf("ForRange(%d, Grain(%d)) %s: %d pieces, first %v; want the single piece [0,%d)", n, n, pc.name, c, first, n)
			}
		}
	}
}

// Catches: Map writing results to the wrong slot, a wrong length, or f
// called twice for an element.
func TestMap(t *testing.T) {
	t.Parallel()
	for _, pc := range poolCases(t) {
		for _, n := range sizes() {
			what := fmt.Sprintf("Map(%d) %s", n, pc.name)
			in := make([]int, n)
			for i := range in {
				in[i] = i*7 + 3
			}
			var calls atomic.Int64
			var out []string
			noHang(t, what, func() {
				out = par.Map(in, func(x int) string { calls.Add(1); return strconv.Itoa(x) }, pc.opts...)
			})
			if len(out) != n {
				t.Fatalf("%s: len(out) = %d; want %d", what, len(out), n)
			}
			for i := range out {
				if want := strconv.Itoa(in[i]); out[i] != want {
					t.Fatalf("%s: out[%d] = %q; want %q", what, i, out[i], want)
				}
			}
			if c := calls.Load(); c != int64(n) {
				t.Errorf("%s: f called %d times; want %d", what, c, n)
			}
		}
	}
}

// Catches: Invoke skipping a function, running one twice, or returning
// before all are done, for 0, 1, 2 and 5 functions, on every pool.
func TestInvoke(t *testing.T) {
	t.Parallel()
	for _, pc := range poolCases(t) {
		for _, k := range []int{0, 1, 2, 5} {
			what := fmt.Sprintf("Invoke(%d fns) %s", k, pc.name)
			ran := make([]atomic.Int32, k)
			done := make([]int, k) // plain writes: the caller must see them after return
			fns := make([]func(), k)
			for j := range fns {
				fns[j] = func() { spin(5000); ran[j].Add(1); done[j] = j + 1 }
			}
			noHang(t, what, func() { pc.invoke(fns...) })
			checkOnce(t, what, ran)
			for j := range done {
				if done[j] != j+1 {
					t.Errorf("%s: fn %d's write not visible after return", what, j)
				}
			}
		}
		noHang(t, "Invoke()", func() { pc.invoke() })
	}
}

// Catches: Join running one side twice or not at all, or returning before
// both sides are done.
func TestJoin(t *testing.T) {
	t.Parallel()
	for _, pc := range poolCases(t) {
		for r := 0; r < 100; r++ {
			var a, b int
			var fa, fb atomic.Int32
			noHang(t, "Join", func() {
				pc.join(func() { spin(2000); fa.Add(1); a = 1 }, func() { spin(r * 30); fb.Add(1); b = 2 })
			})
			if fa.Load() != 1 || fb.Load() != 1 || a != 1 || b != 2 {
				t.Fatalf("Join %s round %d: f ran %d times, g %d times, a=%d b=%d; want once each, a=1 b=2",
					pc.name, r, fa.Load(), fb.Load(), a, b)
			}
		}
	}
}

type visRec struct {
	in   int
	sq   int
	name string
	next *visRec
}

// Catches: a missing happens-before edge between the caller and the bodies,
// in either direction, between a nested call and its enclosing body, or
// between a stolen join half and its continuation. Every write here is
// plain, so the race detector reports a scheduler that publishes "done"
// without synchronising (run with -race; without it the value checks still
// catch results read too early).
func TestMemoryVisibility(t *testing.T) {
	t.Parallel()
	p := newPool(t, par.Workers(4))
	rounds := sized(4, 20)
	const n = 4096
	for r := 0; r < rounds; r++ {
		opts := []par.Option{par.On(p)}
		if r%2 == 1 {
			opts = nil // the default pool
		}
		in := make([]int, n) // written by the caller, read by bodies
		for i := range in {
			in[i] = i + r
		}
		recs := make([]visRec, n)
		var last string // written by one body, read by the caller
		noHang(t, "For", func() {
			par.For(n, func(i int) {
				recs[i] = visRec{in: in[i], sq: in[i] * in[i], name: strconv.Itoa(in[i])}
				if i > 0 {
					recs[i].next = &recs[i-1] // a pointer to another body's element
				}
				if i == n-1 {
					last = "last" + strconv.Itoa(r)
				}
			}, opts...)
		})
		for i := range recs {
			x := recs[i]
			if x.in != i+r || x.sq != (i+r)*(i+r) || x.name != strconv.Itoa(i+r) {
				t.Fatalf("round %d: recs[%d] = %+v after For returned", r, i, x)
			}
			if i > 0 && x.next.in != i-1+r {
				t.Fatalf("round %d: recs[%d].next.in = %d; want %d", r, i, x.next.in, i-1+r)
			}
		}
		if last != "last"+strconv.Itoa(r) {
			t.Fatalf("round %d: last = %q", r, last)
		}

		// Nested: the inner call's writes must be visible to the body that
		// made it, and through it to the caller.
		sums := make([]int, 64)
		noHang(t, "nested For/Join", func() {
			par.For(len(sums), func(i int) {
				var left, right [32]int
				par.Join(func() {
					for k := range left {
						left[k] = i + k
					}
				}, func() {
					par.For(len(right), func(k int) { right[k] = i * k }, par.Grain(1))
				})
				s := 0
				for k := range left {
					s += left[k] + right[k]
				}
				sums[i] = s
			}, append(opts, par.Grain(1))...)
		})
		for i, s := range sums {
			want := 0
			for k := 0; k < 32; k++ {
				want += i + k + i*k
			}
			if s != want {
				t.Fatalf("round %d: nested sum[%d] = %d; want %d", r, i, s, want)
			}
		}

		// Map and Reduce over pointers to structs built inside the bodies.
		var ptrs []*visRec
		noHang(t, "Map", func() {
			ptrs = par.Map(in, func(x int) *visRec { return &visRec{in: x, name: strconv.Itoa(x)} }, opts...)
		})
		var total int
		noHang(t, "Reduce", func() {
			total = par.Reduce(ptrs, &visRec{}, func(a, b *visRec) *visRec {
				return &visRec{in: a.in + b.in}
			}, opts...).in
		})
		want := 0
		for i, x := range ptrs {
			if x.in != in[i] || x.name != strconv.Itoa(in[i]) {
				t.Fatalf("round %d: Map result %d = %+v", r, i, *x)
			}
			want += in[i]
		}
		if total != want {
			t.Fatalf("round %d: Reduce = %d; want %d", r, total, want)
		}
	}
}

// Catches: a call that loses a panic, its index or the caller's Goexit on
// one of its two ways to run: by the verb (route.go's direct: a nested
// call with no options at parallelism 1, or on a slot whose deque offers
// work, as it does under a fork whose other function nobody has taken
// yet) or through route (every other case, plain or framed); and a panic
// in combine reported with the indices of the piece it folded instead of
// -1. Each failure runs every way, nested and from outside, for every verb
// that has the first way (Reduce's is ReduceRange's).
func TestWholeCallsFailAsRoutedOnes(t *testing.T) {
	add := func(a, b int) int { return a + b }
	leaf := func(hit func()) func(lo, hi int) int {
		return func(lo, hi int) int {
			for i := lo; i < hi; i++ {
				hitAt(i, hit)
			}
			return hi - lo
		}
	}
	seq100 := make([]int, 100)
	for i := range seq100 {
		seq100[i] = i
	}
	calls := map[string]func(hit func(), opts ...par.Option){
		"For": func(hit func(), opts ...par.Option) { par.For(100, func(i int) { hitAt(i, hit) }, opts...) },
		"ForRange": func(hit func(), opts ...par.Option) {
			par.ForRange(100, func(lo, hi int) { leaf(hit)(lo, hi) }, opts...)
		},
		"Map": func(hit func(), opts ...par.Option) {
			par.Map(seq100, func(x int) int { hitAt(x, hit); return x }, opts...)
		},
		"ReduceRange": func(hit func(), opts ...par.Option) {
			par.ReduceRange(100, 0, leaf(hit), add, opts...)
		},
		"ReduceRange combine": func(hit func(), opts ...par.Option) {
			par.ReduceRange(100, 0, leaf(func() {}), func(a, b int) int { hit(); return a + b }, opts...)
		},
		"ForOf": func(hit func(), opts ...par.Option) {
			par.ForOf(100, 0, func(_, i int) { hitAt(i, hit) }, opts...)
		},
		"ReduceRangeOf": func(hit func(), opts ...par.Option) {
			par.ReduceRangeOf(100, 0, 0, func(_, lo, hi int) int { return leaf(hit)(lo, hi) }, add, opts...)
		},
		"ReduceRangeOf combine": func(hit func(), opts ...par.Option) {
			par.ReduceRangeOf(100, 0, 0, func(_, lo, hi int) int { return hi - lo }, func(a, b int) int { hit(); return a + b }, opts...)
		},
	}
	for _, workers := range []int{1, 2} {
		p := newPool(t, par.Workers(workers))
		ways := map[string]func(call func(hit func(), opts ...par.Option), hit func()){
			"nested": func(call func(func(), ...par.Option), hit func()) { par.For(1, func(int) { call(hit) }, par.On(p)) },
			"in a fork": func(call func(func(), ...par.Option), hit func()) {
				par.Join(func() { call(hit) }, func() {}, par.On(p))
			},
			"outside": func(call func(func(), ...par.Option), hit func()) { call(hit, par.On(p)) },
		}
		for name, call := range calls {
			for way, run := range ways {
				what := fmt.Sprintf("workers=%d, %s, %s", workers, way, name)
				pe := wantPanicError(t, what, func() { run(call, func() { panic("boom") }) })
				inCombine := strings.HasSuffix(name, "combine")
				if pe.Value != "boom" || (inCombine && (pe.Lo != -1 || pe.Hi != -1)) || (!inCombine && (pe.Lo > 50 || pe.Hi <= 50)) {
					t.Errorf("%s: panicked with %v over [%d, %d); want boom over a range holding 50 ([-1, -1) in combine)", what, pe.Value, pe.Lo, pe.Hi)
				}
				if inCombine {
					continue // a Goexit in combine is a body's, below
				}
				var after atomic.Bool
				done := make(chan struct{})
				go func() {
					defer close(done)
					run(call, runtime.Goexit)
					after.Store(true)
				}()
				<-done
				if after.Load() {
					t.Errorf("%s: the caller went on after runtime.Goexit; want it to exit too", what)
				}
			}
		}
		var sum atomic.Int64
		par.For(1, func(int) { par.For(100, func(i int) { sum.Add(int64(i)) }) }, par.On(p))
		if sum.Load() != 4950 {
			t.Errorf("workers=%d: after the failures a nested For summed %d, want 4950", workers, sum.Load())
		}
	}
}
