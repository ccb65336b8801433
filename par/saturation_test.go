package par_test

import (
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/parloop/parloop/par"
)

// splits is the number of ranges split on p so far, callers' included.
func splits(p *par.Pool) int64 { return p.Stats().Total().Splits }

// Catches: calls offering work while more goroutines wait for a P than
// there are Ps. With 64 callers at 2 Ps, the splits, wake-ups and spinning
// workers that no free P could serve cost 1.23x the CPU of the sequential
// loops (saturation.go). A call of a few milliseconds made beside 3P+2
// runnable goroutines must not split; the same call made once they are gone
// splits (on 2 Ps or more), which shows the test can see a split.
func TestNoSplitsWhilePsAreSaturated(t *testing.T) {
	procs := runtime.GOMAXPROCS(0)
	p := newPool(t)
	a := make([]float64, 1<<21)
	call := func() {
		par.ForRange(len(a), func(lo, hi int) {
			s := a[lo:hi]
			for j := range s {
				s[j] = math.Sqrt(float64(lo + j))
			}
		}, par.On(p))
	}
	call() // start the workers and learn the grain

	var stop atomic.Bool
	var wg sync.WaitGroup
	for range 3*procs + 2 {
		wg.Go(func() {
			for !stop.Load() {
				spin(100)
			}
		})
	}
	// The last answer, from the warm-up call, stands for 100 µs to 5 ms
	// (50 times what the read cost, saturation.go). The answer is a
	// sample of the scheduler: one in 50 to 150 runs here saw fewer
	// runnable goroutines than Ps at some read and split, at d187a52 as
	// later; so a few attempts, of which one must not split (without the
	// check every attempt splits, as the idle calls below do).
	var busy int64
	for range 3 {
		time.Sleep(6 * time.Millisecond)
		before := splits(p)
		for range 3 {
			call()
		}
		if busy = splits(p) - before; busy == 0 {
			break
		}
	}
	stop.Store(true)
	wg.Wait()
	if busy != 0 {
		t.Errorf("%d splits in 3 calls made beside %d runnable goroutines at GOMAXPROCS=%d, in each of 3 attempts; want 0", busy, 3*procs+2, procs)
	}

	if procs < 2 {
		return // parallelism 1: nothing ever splits
	}
	before := splits(p)
	for range 3 {
		call()
	}
	if idle := splits(p) - before; idle == 0 {
		t.Errorf("no split in 3 calls on an idle machine at GOMAXPROCS=%d: the test cannot see one", procs)
	}
}
