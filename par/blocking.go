package par

// Blocking bodies (the Blocking option). A body that waits keeps the worker
// that runs it, so a Blocking(limit) call uses no pool: it starts
// min(limit, n) goroutines, which take indices from a shared counter in
// increasing order until the range is done or the call stops, and waits
// for them, with the verbs' rules for stopping (stop.go), panics, Goexit,
// errors and labels. Not a spare worker while a task blocks (Java's
// managedBlock): a body cannot tell the pool it is about to block, and the
// Go runtime parks and wakes a plain goroutine cheaply.

import (
	"sync"
	"sync/atomic"
)

// runBlocking runs b over [0, n) on at most sp.blocking goroutines of its
// own.
func runBlocking[T any](sp *spec, jb *job[T], n int) error {
	var tc traced
	tc.startTrace(sp.verb, n, nil, jb.ctx)
	defer tc.endTrace()
	// Copies for the goroutines: the pointers are to the caller's stack.
	b, progress := *jb, sp.progress
	var (
		next  atomic.Int64
		stop  atomic.Bool
		first atomic.Pointer[PanicError]
		errMu sync.Mutex
		err   error
		wg    sync.WaitGroup
	)
	run := func() {
		defer wg.Done()
		var c catcher
		defer c.catch(&stop, func(pe *PanicError) {
			first.CompareAndSwap(nil, pe)
			if b.cancel != nil {
				b.cancel()
			}
		})
		for !stop.Load() {
			i := int(next.Add(1) - 1)
			if i >= n {
				break
			}
			c.lo, c.hi = i, i+1
			if _, e := b.run(i, i+1, &stop); e != nil {
				if e != errCtxDone {
					errMu.Lock()
					if err == nil {
						err = e
					}
					errMu.Unlock()
					b.cancel()
				}
				stop.Store(true)
			}
			if progress != nil {
				progress.Add(1)
			}
		}
		c.returned = true
	}
	g := min(sp.blocking, n)
	wg.Add(g)
	for range g {
		go run()
	}
	wg.Wait()
	if pe := first.Load(); pe != nil {
		raise(pe)
	}
	return err
}
