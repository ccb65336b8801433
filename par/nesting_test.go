package par_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/parloop/parloop/par"
)

// partition3 splits a around a median-of-three pivot into a[:lt] < pivot,
// a[lt:gt] == pivot and a[gt:] > pivot.
func partition3(a []int) (lt, gt int) {
	m := len(a) / 2
	x, y, z := a[0], a[m], a[len(a)-1]
	pivot := max(min(x, y), min(max(x, y), z))
	lt, i, gt := 0, 0, len(a)
	for i < gt {
		switch {
		case a[i] < pivot:
			a[lt], a[i] = a[i], a[lt]
			lt++
			i++
		case a[i] > pivot:
			gt--
			a[gt], a[i] = a[i], a[gt]
		default:
			i++
		}
	}
	return lt, gt
}

// quicksort sorts a, forking the two sides with fork(left, right). gauge, if
// not nil, samples the goroutine count at every fork.
func quicksort(a []int, fork func(f, g func()), gauge *maxGauge) {
	if len(a) <= 16 {
		slices.Sort(a)
		return
	}
	if gauge != nil {
		gauge.sampleGoroutines()
	}
	lt, gt := partition3(a)
	fork(func() { quicksort(a[:lt], fork, gauge) }, func() { quicksort(a[gt:], fork, gauge) })
}

// goroutineBound is the most goroutines a run may show: those alive before
// it, one per worker of the pool, and slack for the test's own helpers. A
// runtime that makes a goroutine per fork, or blocks a goroutine per waiting
// join, goes far past it on these recursions.
func goroutineBound(baseline, workers int) int64 { return int64(baseline + workers + 64) }

// Catches: deadlock or lost work in recursive fork/join (a worker waiting on
// a join whose other half sits in its own deque), a join returning before
// its stolen half is done (unsorted output, data races on the halves), and a
// goroutine per fork.
func TestQuicksortNested(t *testing.T) {
	n := sized(20_000, 200_000)
	rng := rand.New(rand.NewPCG(3, 4))
	orig := make([]int, n)
	for i := range orig {
		orig[i] = rng.IntN(n / 2) // with duplicates
	}
	want := slices.Sorted(slices.Values(orig))
	p := newPool(t, par.Workers(3))
	forks := map[string]func(f, g func()){
		"par.Join":    func(f, g func()) { par.Join(f, g) },
		"pool.Join":   func(f, g func()) { par.Join(f, g, par.On(p)) },
		"par.Invoke":  func(f, g func()) { par.Invoke([]func(){f, g}) },
		"pool.Invoke": func(f, g func()) { par.Invoke([]func(){f, func() {}, g}, par.On(p)) },
	}
	for name, fork := range forks {
		baseline := runtime.NumGoroutine()
		workers := max(p.Workers(), par.Default().Workers())
		var gauge maxGauge
		a := slices.Clone(orig)
		noHang(t, "quicksort on "+name, func() {
			// Started from a body, so every fork is a nested call.
			par.For(1, func(int) { quicksort(a, fork, &gauge) }, par.On(p))
		})
		if !slices.Equal(a, want) {
			t.Errorf("quicksort on %s: result is not the sorted input", name)
		}
		if g, b := gauge.v.Load(), goroutineBound(baseline, workers); g > b {
			t.Errorf("quicksort on %s: %d goroutines alive during the sort; want at most %d", name, g, b)
		}
	}
}

func fib(n int, gauge *maxGauge) int {
	if n < 2 {
		return n
	}
	gauge.sampleGoroutines()
	var a, b int
	par.Join(func() { a = fib(n-1, gauge) }, func() { b = fib(n-2, gauge) })
	return a + b
}

// Catches: goroutine creation that grows with the number of forks (fib(20)
// makes about 11,000 of them), and joins losing a result.
// Not parallel: it counts every goroutine in the process.
func TestFibJoinGoroutineBound(t *testing.T) {
	n, want := 20, 6765
	if !*long {
		n, want = 16, 987
	}
	cases := defaultAndFour(t)
	for _, pc := range cases {
		baseline := runtime.NumGoroutine()
		workers := max(cases[1].pool.Workers(), par.Default().Workers())
		var gauge maxGauge
		var got int
		noHang(t, "fib", func() {
			par.For(1, func(int) { got = fib(n, &gauge) }, pc.opts...) // the Joins run on pc's pool
		})
		// From outside any pool too: the top-level Join is then not nested.
		var got2 int
		noHang(t, "fib", func() { got2 = fib(n, &gauge) })
		if got != want || got2 != want {
			t.Errorf("fib(%d) %s = %d and %d; want %d", n, pc.name, got, got2, want)
		}
		if g, b := gauge.v.Load(), goroutineBound(baseline, workers); g > b {
			t.Errorf("fib(%d) %s: %d goroutines alive; want at most %d", n, pc.name, g, b)
		}
	}
}

// Catches: nested loops that deadlock (every worker waiting in an outer body
// for inner pieces nobody runs), lose or repeat inner iterations, or mix up
// the frames of different inner loops.
func TestForInForInMap(t *testing.T) {
	t.Parallel()
	const A, B, C = 12, 10, 50
	for _, pc := range poolCases(t) {
		var cube [A][B][C]atomic.Int32
		items := make([]int, A)
		for i := range items {
			items[i] = i
		}
		var sums []int
		noHang(t, "For in For in Map", func() {
			sums = par.Map(items, func(a int) int {
				var sum atomic.Int64
				par.For(B, func(b int) {
					par.For(C, func(c int) {
						spin(100)
						cube[a][b][c].Add(1)
						sum.Add(int64(a*B*C + b*C + c))
					}, par.Grain(1))
				}, par.Grain(1))
				return int(sum.Load())
			}, pc.with(par.Grain(1))...)
		})
		for a := range cube {
			for b := range cube[a] {
				checkOnce(t, fmt.Sprintf("%s cube[%d][%d]", pc.name, a, b), cube[a][b][:])
			}
			want := 0
			for k := a * B * C; k < (a+1)*B*C; k++ {
				want += k
			}
			if sums[a] != want {
				t.Errorf("%s: Map result %d = %d; want %d", pc.name, a, sums[a], want)
			}
		}
	}
}

// Catches: a fixed nesting depth limit (a bounded per-worker stack of loop
// frames), or a deadlock once every worker is inside a nested call.
func TestDeepNestingChain(t *testing.T) {
	t.Parallel()
	depth := sized(500, 3000)
	var reached atomic.Int32
	var chain func(d int)
	chain = func(d int) {
		if d == 0 {
			reached.Add(1)
			return
		}
		switch d % 4 {
		case 0:
			par.For(1, func(int) { chain(d - 1) })
		case 1:
			par.Invoke([]func(){func() { chain(d - 1) }})
		case 2:
			par.Join(func() {}, func() { chain(d - 1) })
		case 3:
			_ = par.ForErr(context.Background(), 1, func(context.Context, int) error { chain(d - 1); return nil })
		}
	}
	for _, pc := range poolCases(t) {
		reached.Store(0)
		noHang(t, "deep chain", func() { par.For(3, func(int) { chain(depth) }, pc.opts...) })
		if r := reached.Load(); r != 3 {
			t.Errorf("%s: %d of 3 chains of depth %d reached the bottom", pc.name, r, depth)
		}
	}
}

// Catches: deadlock when a body on pool p calls into pool q whose body calls
// back into p while p's workers are all busy: the calling goroutine must run
// its own loop rather than wait for a worker.
func TestCrossPoolNesting(t *testing.T) {
	t.Parallel()
	p := newPool(t, par.Workers(2))
	q := newPool(t, par.Workers(1))
	const n = 8
	var counts [n][n][n]atomic.Int32
	noHang(t, "p -> q -> p", func() {
		par.For(n, func(a int) {
			par.For(n, func(b int) {
				par.Join(func() {
					par.For(n, func(c int) { spin(500); counts[a][b][c].Add(1) }, par.On(p))
				}, func() {}, par.On(q))
			}, par.On(q))
		}, par.On(p))
	})
	for a := range counts {
		for b := range counts[a] {
			checkOnce(t, fmt.Sprintf("counts[%d][%d]", a, b), counts[a][b][:])
		}
	}
}

// Catches: a nested call without On sent to the default pool instead of the
// pool of the worker running the body (it would cross pools, defeat On, and
// can deadlock a pool used for isolation). Every nested body checks the
// pool a call made there would run on, so the test does not depend on what
// else the process runs on the default pool meanwhile.
func TestNestedCallWithoutOnUsesWorkersPool(t *testing.T) {
	atLeastTwoPs(t)
	p := newPool(t, par.Workers(2))
	if w := p.Workers(); w != 2 {
		t.Fatalf("NewPool(Workers(2)).Workers() = %d", w)
	}
	resetStats(t, p)
	var g goroutines
	timedOut := false
	var elsewhere atomic.Int32 // nested bodies that found another pool
	inP := func() {
		if par.PoolHereForTest() != p {
			elsewhere.Add(1)
		}
	}
	noHang(t, "nested calls", func() {
		g.owner = goid()
		par.For(200, func(i int) {
			spin(20000)
			if n := g.record(); n > 0 {
				// The caller's own goroutine is no worker of p. Its second
				// body, after its first grain could split the rest, waits
				// for a worker to run one.
				if n == 2 && !await(&g.elsewhere) {
					timedOut = true
				}
				return
			}
			par.For(10, func(int) { spin(100); inP() })
			par.Join(func() { inP() }, func() { spin(100); inP() })
			par.Invoke([]func(){func() { spin(100); inP() }})
			par.Reduce([]int{1, 2, 3}, 0, func(a, b int) int { inP(); return a + b })
			_ = par.ForErr(context.Background(), 3, func(context.Context, int) error { inP(); return nil })
		}, par.On(p), par.Grain(1))
	})
	if timedOut || !g.elsewhere.Load() {
		t.Fatalf("no body ran on a worker of a 2-worker pool while the caller waited %v in its second one", rendezvousBound)
	}
	if e := elsewhere.Load(); e != 0 {
		t.Errorf("%d bodies of calls nested without On in bodies on pool p ran under another pool", e)
	}
	if pp := p.Stats().Total().Pieces; pp < 1 {
		t.Errorf("pool p counts %d pieces after running loops", pp)
	}
}

// Catches: a nested call run as a plain loop (its slot's deque offered a
// task when it began, route.go) that keeps the rest of its range after
// thieves have emptied that deque. An outer call over two items on a pool
// of four offers item 1 and runs item 0, whose nested call starts plainly;
// once item 1 is stolen the nested call must hand over the rest, or two
// workers sit idle until it ends. Each verb looks between chunks of 1, 2,
// 4, ... indices, and must spread over more than one goroutine, with an
// exact result. The nested call's first body waits until item 1 has been taken,
// and its owner's second body (after the call has looked) until another
// goroutine has run a body: with the hand-over that happens at once, and
// without it never.
func TestPlainNestedCallsHandOverTheRest(t *testing.T) {
	atLeastTwoPs(t) // an owner waiting in a body must leave a P to the thief
	p := newPool(t, par.Workers(4))
	const n = 512
	want := int64(n * (n - 1) / 2)
	work := func() { spin(20_000) } // tens of µs an index: the whole call takes milliseconds
	verbs := []struct {
		name string
		run  func(record func()) int64
	}{
		{"For", func(record func()) int64 {
			var sum atomic.Int64
			par.For(n, func(i int) { record(); work(); sum.Add(int64(i)) })
			return sum.Load()
		}},
		{"Map", func(record func()) int64 {
			in := make([]int, n)
			for i := range in {
				in[i] = i
			}
			var sum int64
			for _, v := range par.Map(in, func(x int) int64 { record(); work(); return int64(x) }) {
				sum += v
			}
			return sum
		}},
		{"ForErr", func(record func()) int64 {
			var sum atomic.Int64
			if err := par.ForErr(context.Background(), n, func(_ context.Context, i int) error {
				record()
				work()
				sum.Add(int64(i))
				return nil
			}); err != nil {
				t.Errorf("ForErr: %v", err)
			}
			return sum.Load()
		}},
		{"ForRange", func(record func()) int64 {
			var sum atomic.Int64
			par.ForRange(n, func(lo, hi int) {
				for i := lo; i < hi; i++ {
					record()
					work()
					sum.Add(int64(i))
				}
			})
			return sum.Load()
		}},
		{"ReduceRange", func(record func()) int64 {
			return par.ReduceRange(n, int64(0), func(lo, hi int) int64 {
				var s int64
				for i := lo; i < hi; i++ {
					record()
					work()
					s += int64(i)
				}
				return s
			}, func(a, b int64) int64 { return a + b })
		}},
	}
	for _, v := range verbs {
		var item1 atomic.Bool
		var g goroutines // the owner: the goroutine running outer item 0, and so the nested call
		timedOut := ""
		record := func() {
			switch g.record() {
			case 1: // the call began plainly, item 1 offered: a thief takes it meanwhile
				if !await(&item1) {
					timedOut = "item 1 of the outer call did not start while the nested call's first body waited"
				}
			case 2: // the call has looked since: it must have handed over the rest
				if !await(&g.elsewhere) {
					timedOut = "no other goroutine ran a body of the nested call while its owner waited in its second body"
				}
			}
		}
		var got int64
		par.For(2, func(j int) {
			if j == 1 {
				item1.Store(true)
				return
			}
			g.owner = goid()
			got = v.run(record)
		}, par.On(p))
		if got != want {
			t.Errorf("%s: sum %d, want %d", v.name, got, want)
		}
		if timedOut != "" {
			t.Errorf("%s: %s (%v)", v.name, timedOut, rendezvousBound)
		}
		if g.count() < 2 {
			t.Errorf("%s: the nested call ran on one goroutine", v.name)
		}
	}
}
