package par

// Blocking bodies (the Blocking option). A body that waits keeps the worker
// that runs it, and a loop of such bodies runs at the pool's width however
// many could wait at once. So a Blocking(limit) call uses no pool: it
// starts min(limit, n) plain goroutines, which take indices from a shared
// counter in increasing order until the range is done or the call stops,
// and the caller waits for them: the semaphore-bounded fan-out users write
// by hand, with the verbs' rules for stopping (stop.go), panics, Goexit,
// errors and labels (inherited by the goroutines). Java's managedBlock (a
// spare worker while a task blocks) was not taken: a body cannot tell the
// pool when it is about to block, and a plain goroutine is what the Go
// runtime parks and wakes cheaply.

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
	// Copies for the goroutines to share: the pointers are to the caller's
	// stack, which must not escape.
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
