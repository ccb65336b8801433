package par

// Blocking bodies (the Blocking option). A body that waits keeps the worker
// that runs it, so a Blocking(limit) call uses no pool: it starts
// min(limit, n) goroutines, which take indices from a shared counter in
// increasing order until the range is done or the call stops, and waits
// for them, with the verbs' rules for stopping (stop.go), panics, Goexit,
// errors and labels. Not a spare worker while a task blocks (Java's
// managedBlock): a body cannot tell the pool it is about to block, and the
// Go runtime parks and wakes a plain goroutine cheaply.
//
// One budget for a tree of blocking calls (internal/budget): a Blocking
// call nested in a blocking call's body runs on its caller and spends the
// outer call's budget, except a call with limit >= n, which promises that
// every body runs at once (bodies may wait on each other, as iter's
// producer and runners do): it starts its own.

import (
	"sync"
	"sync/atomic"

	"github.com/parloop/parloop/par/internal/budget"
)

// runBlocking runs b over [0, n) on at most sp.blocking goroutines of its
// own.
func runBlocking[T any](sp *spec, jb *job[T], n int) error {
	var tc traced
	tc.startTrace(sp.verb, n, nil, jb.ctx)
	defer tc.End()
	// Copies for the goroutines: the pointers are to the caller's stack.
	b, progress := *jb, sp.progress
	var (
		next atomic.Int64
		fl   failure // stop.go
		wg   sync.WaitGroup
	)
	work := func() {
		var c catcher
		defer c.catch(&fl.stop, func(pe *PanicError) { fl.fail(pe, b.cancel) })
		for !fl.stop.Load() {
			i := int(next.Add(1) - 1)
			if i >= n {
				break
			}
			c.lo, c.hi = i, i+1
			if _, err := b.run(i, i+1, &fl.stop); err != nil {
				fl.setErr(err, b.cancel)
			}
			if progress != nil {
				progress.Add(1)
			}
		}
		c.returned = true
	}
	run := func() {
		defer wg.Done()
		work()
	}
	if outer := budget.Here(); outer != nil && sp.blocking < n {
		// Nested in a blocking call's body: the caller works too, with as
		// many goroutines as the shared budget spares. (A call with
		// limit >= n keeps its promise that every body runs at once.)
		g := outer.Take(min(sp.blocking, n) - 1)
		wg.Add(g)
		for range g {
			outer.Go(run)
		}
		returned := false
		defer func() {
			if !returned { // a Goexit in a body the caller ran
				fl.stop.Store(true)
				wg.Wait()
			}
		}()
		work()
		wg.Wait()
		returned = true
	} else {
		g := min(sp.blocking, n)
		bud := budget.New(sp.blocking - g) // for calls nested in the bodies
		wg.Add(g)
		for range g {
			bud.Go(run)
		}
		wg.Wait()
	}
	pe, err := fl.outcome()
	if pe != nil {
		raise(pe)
	}
	return err
}
