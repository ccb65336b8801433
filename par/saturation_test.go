package par_test

import (
	"math"
	"runtime"
	"testing"

	"github.com/parloop/parloop/par"
)

// splits is the number of ranges split on p so far, callers' included.
func splits(p *par.Pool) int64 { return p.Stats().Total().Splits }

// Catches: calls offering work while more goroutines wait for a P than
// there are Ps. With 64 callers at 2 Ps, the splits, wake-ups and spinning
// workers that no free P could serve cost 1.23x the CPU of the sequential
// loops (pool.go). Each call below starts with every worker parked.
// Made while the saturation answer is yes, a call of a few milliseconds
// must neither split nor kick a worker (which would cut it): it runs on
// the caller alone. Made while the answer is no, the same call splits (on
// 2 Ps or more), which shows the test can see a split. The answer is fixed
// here (SaturatedForTest); the internal test
// TestSaturatedCountsRunnableGoroutines checks how it is read.
// Not parallel: the answer is global, and waitParked looks at every worker.
func TestNoSplitsWhilePsAreSaturated(t *testing.T) {
	procs := runtime.GOMAXPROCS(0)
	p := newPool(t)
	n := 1 << 21
	if raceEnabled {
		n = 1 << 18 // a few milliseconds still: the detector slows each body
	}
	a := make([]float64, n)
	call := func() {
		par.ForRange(len(a), func(lo, hi int) {
			s := a[lo:hi]
			for j := range s {
				s[j] = math.Sqrt(float64(lo + j))
			}
		}, par.On(p))
	}
	call() // start the workers and learn the grain
	splitsIn3Calls := func(saturated bool) int64 {
		defer par.SaturatedForTest(saturated)()
		before := splits(p)
		for range 3 {
			waitParked(t, p)
			call()
		}
		return splits(p) - before
	}
	if busy := splitsIn3Calls(true); busy != 0 {
		t.Errorf("%d splits in 3 calls made while the Ps were saturated at GOMAXPROCS=%d; want 0", busy, procs)
	}
	if procs < 2 {
		return // parallelism 1: nothing ever splits
	}
	if idle := splitsIn3Calls(false); idle == 0 {
		t.Errorf("no split in 3 calls while the Ps were not saturated at GOMAXPROCS=%d: the test cannot see one", procs)
	}
}
