package par_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/parloop/parloop/par"
)

// crowdVerbs runs each range verb over [0, n) from the calling goroutine,
// calling seen(i) for every index i a body runs, and returns an error if
// the verb's result is wrong.
var crowdVerbs = []struct {
	name string
	run  func(p *par.Pool, n int, seen func(i int)) error
}{
	{"For", func(p *par.Pool, n int, seen func(int)) error {
		par.For(n, seen, par.On(p))
		return nil
	}},
	{"ForRange", func(p *par.Pool, n int, seen func(int)) error {
		par.ForRange(n, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				seen(i)
			}
		}, par.On(p))
		return nil
	}},
	{"Map", func(p *par.Pool, n int, seen func(int)) error {
		in := make([]int, n)
		for i := range in {
			in[i] = i
		}
		out := par.Map(in, func(i int) int { seen(i); return 2 * i }, par.On(p))
		for i, v := range out {
			if v != 2*i {
				return errors.New("Map: wrong output")
			}
		}
		return nil
	}},
	{"ForErr", func(p *par.Pool, n int, seen func(int)) error {
		return par.ForErr(context.Background(), n, func(_ context.Context, i int) error { seen(i); return nil }, par.On(p))
	}},
	{"ReduceRange", func(p *par.Pool, n int, seen func(int)) error {
		sum := par.ReduceRange(n, 0, func(lo, hi int) int {
			s := 0
			for i := lo; i < hi; i++ {
				seen(i)
				s += i
			}
			return s
		}, func(a, b int) int { return a + b }, par.On(p))
		if sum != n*(n-1)/2 {
			return errors.New("ReduceRange: wrong sum")
		}
		return nil
	}},
}

// Catches: a call made from outside the pool while the Ps are saturated
// taking a guest seat and a frame anyway (the cost crowd.go removes), or
// giving a body to a worker; and a wrong or repeated index on the plain
// path. The control half shows that the test can see a seat.
func TestCrowdedCallsRunPlainOnTheCaller(t *testing.T) {
	atLeastTwoPs(t)
	p := par.Default()                               // only the default pool's calls are crowded
	par.For(100, func(int) { spin(100) }, par.On(p)) // start the pool
	for _, crowded := range []bool{true, false} {
		restore := par.SaturatedForTest(crowded)
		for _, v := range crowdVerbs {
			const n = 5000
			counts := make([]atomic.Int32, n)
			var seats, onWorkers atomic.Int32
			var err error
			var wg sync.WaitGroup
			wg.Go(func() { // a fresh goroutine: from outside the pool
				err = v.run(p, n, func(i int) {
					counts[i].Add(1)
					if par.HoldsGuestSeat() {
						seats.Add(1)
					}
					if par.WorkerPool() != nil {
						onWorkers.Add(1)
					}
				})
			})
			wg.Wait()
			if err != nil {
				t.Errorf("%s (crowded %v): %v", v.name, crowded, err)
			}
			checkOnce(t, v.name, counts)
			switch {
			case crowded && (seats.Load() != 0 || onWorkers.Load() != 0):
				t.Errorf("%s, saturated: %d bodies ran on a guest seat and %d on workers; want 0 and 0 (a plain loop on the caller)", v.name, seats.Load(), onWorkers.Load())
			case !crowded && seats.Load() == 0:
				t.Errorf("%s, not saturated: no body ran on a guest seat; want the framed path", v.name)
			}
		}
		restore()
	}
}

// Catches: a crowded call that keeps running plainly after the crowd has
// left (its rest never offered to the pool), or a hand-over that loses,
// repeats or misfolds indices.
func TestCrowdedCallHandsOverWhenTheCrowdLeaves(t *testing.T) {
	atLeastTwoPs(t)
	p := par.Default()
	par.For(100, func(int) { spin(100) }, par.On(p))
	for _, v := range crowdVerbs {
		restore := par.SaturatedForTest(true)
		const n, leaveAt = 1 << 13, 1000
		counts := make([]atomic.Int32, n)
		var seatsAfter atomic.Int32
		var left atomic.Bool
		var err error
		var wg sync.WaitGroup
		wg.Go(func() {
			err = v.run(p, n, func(i int) {
				counts[i].Add(1)
				if i >= leaveAt && left.CompareAndSwap(false, true) {
					par.SaturatedForTest(false) // the crowd leaves
				}
				if left.Load() && par.HoldsGuestSeat() {
					seatsAfter.Add(1)
				}
			})
		})
		wg.Wait()
		restore()
		if err != nil {
			t.Errorf("%s: %v", v.name, err)
		}
		checkOnce(t, v.name, counts)
		if seatsAfter.Load() == 0 {
			t.Errorf("%s: the crowd left at index %d of %d and no later body ran on a guest seat; want the rest handed to the framed path", v.name, leaveAt, n)
		}
	}
}

// Catches: a panic in a crowded call's body not re-raised in the caller as
// a *par.PanicError, as on every other path.
func TestCrowdedCallPanics(t *testing.T) {
	atLeastTwoPs(t)
	p := par.Default()
	par.For(100, func(int) { spin(100) }, par.On(p))
	defer par.SaturatedForTest(true)()
	var got any
	var wg sync.WaitGroup
	wg.Go(func() {
		defer func() { got = recover() }()
		par.For(1000, func(i int) {
			if i == 700 {
				panic("boom")
			}
		}, par.On(p))
	})
	wg.Wait()
	var pe *par.PanicError
	if err, ok := got.(error); !ok || !errors.As(err, &pe) || pe.Value != "boom" {
		t.Fatalf("recovered %#v; want a *par.PanicError of \"boom\"", got)
	}
}

// Catches: a crowded ForRange handing its body ranges shorter than the
// Grain hint asked for (the plain path's chunks start at 1 without it).
func TestCrowdedCallKeepsTheGrain(t *testing.T) {
	atLeastTwoPs(t)
	p := par.Default()
	par.For(100, func(int) { spin(100) }, par.On(p))
	defer par.SaturatedForTest(true)()
	const n, g = 10_000, 100
	var short, pieces atomic.Int32
	var wg sync.WaitGroup
	wg.Go(func() {
		par.ForRange(n, func(lo, hi int) {
			pieces.Add(1)
			if hi-lo < g && hi != n {
				short.Add(1)
			}
		}, par.On(p), par.Grain(g))
	})
	wg.Wait()
	if short.Load() != 0 {
		t.Errorf("ForRange: %d of %d pieces shorter than Grain(%d) before the last", short.Load(), pieces.Load(), g)
	}
	short.Store(0)
	pieces.Store(0)
	var sum int
	wg.Go(func() {
		sum = par.ReduceRange(n, 0, func(lo, hi int) int {
			pieces.Add(1)
			if hi-lo < g && hi != n {
				short.Add(1)
			}
			return hi - lo
		}, func(a, b int) int { return a + b }, par.On(p), par.Grain(g))
	})
	wg.Wait()
	if short.Load() != 0 || sum != n {
		t.Errorf("ReduceRange: %d of %d leaves shorter than Grain(%d) before the last, sum %d (want %d)", short.Load(), pieces.Load(), g, sum, n)
	}
}

// Catches: crowded calls missing from the pool's Stats (no seat, so none
// of the guests' counters), which would make a crowded program look idle.
func TestCrowdedCallsCountInStats(t *testing.T) {
	atLeastTwoPs(t)
	p := par.Default()
	par.For(100, func(int) { spin(100) }, par.On(p))
	defer par.SaturatedForTest(true)()
	p.ResetStats()
	var wg sync.WaitGroup
	for range 3 {
		wg.Go(func() { par.For(1000, func(int) { spin(100) }, par.On(p)) })
	}
	wg.Wait()
	if c := p.Stats().Callers; c.Pieces != 3 || c.Busy <= 0 {
		t.Errorf("after 3 crowded calls: callers' pieces %d, busy %v; want 3 and more than 0", c.Pieces, c.Busy)
	}
	p.ResetStats()
	if c := p.Stats().Callers; c.Pieces != 0 || c.Busy != 0 {
		t.Errorf("after ResetStats: callers' pieces %d, busy %v; want 0 and 0", c.Pieces, c.Busy)
	}
}

// Catches: a call on a pool other than the default one made crowded: it
// holds no seat then, and a nested call without On in one of its bodies
// would run on the default pool instead of the body's.
func TestCrowdedCallsOnlyOnTheDefaultPool(t *testing.T) {
	atLeastTwoPs(t)
	p := newPool(t, par.Workers(2))
	par.For(100, func(int) { spin(100) }, par.On(p))
	defer par.SaturatedForTest(true)()
	var onDefault, bodies atomic.Int32
	var wg sync.WaitGroup
	wg.Go(func() {
		par.For(200, func(int) {
			bodies.Add(1)
			par.For(4, func(int) {
				if w := par.WorkerPool(); w != nil && w != p {
					onDefault.Add(1)
				}
			})
		}, par.On(p))
	})
	wg.Wait()
	if onDefault.Load() != 0 {
		t.Errorf("%d nested bodies of %d calls ran on another pool's workers; want 0", onDefault.Load(), bodies.Load())
	}
	before := par.Default().Stats().Total().Pieces
	wg.Go(func() {
		par.For(200, func(int) { par.For(4, func(int) {}) }, par.On(p))
	})
	wg.Wait()
	if d := par.Default().Stats().Total().Pieces - before; d != 0 {
		t.Errorf("the default pool counted %d pieces of calls nested in a saturated call on another pool; want 0", d)
	}
}
