package par_test

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/parloop/parloop/par"
)

// Catches: a worker of one pool stealing a piece of another pool's call
// from a guest seat that changed hands between the thief's look at the
// seat's pool and its steal (guest.go). The piece's bodies then run on the
// wrong pool's worker, and their nested calls without On go to that pool.
// Callers on two pools take and give back guest seats as fast as they can;
// every body checks that it runs on its own pool's worker or on a
// goroutine that is none.
func TestGuestSeatsNeverLendWorkAcrossPools(t *testing.T) {
	pools := []*par.Pool{newPool(t, par.Workers(2)), newPool(t, par.Workers(2))}
	var wrong atomic.Int64
	var stop atomic.Bool
	var wg sync.WaitGroup
	callers := 2 * runtime.GOMAXPROCS(0)
	for c := range callers {
		p := pools[c%2]
		wg.Go(func() {
			for !stop.Load() {
				par.For(16, func(int) {
					if w := par.WorkerPool(); w != nil && w != p {
						wrong.Add(1)
					}
					spin(200)
				}, par.On(p), par.Grain(1))
			}
		})
	}
	time.Sleep(300 * time.Millisecond)
	stop.Store(true)
	wg.Wait()
	if n := wrong.Load(); n != 0 {
		t.Errorf("%d bodies of a call on one pool ran on a worker of the other", n)
	}
}
