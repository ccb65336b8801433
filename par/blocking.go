package par

// Blocking bodies (the Blocking option).
//
// A body that waits (a file read, a network call, a sleep, a lock) keeps
// the worker that runs it: the Go scheduler hands the worker's P to other
// goroutines, but the pool has one worker less until the body returns, and
// a loop of such bodies runs at the pool's width, one per CPU, however many
// could wait at once. So a call with Blocking(limit) does not use a pool:
// it starts min(limit, n) plain goroutines, which take indices from a
// shared counter, one at a time in increasing order, until the range is
// done or the call stops; the caller waits for them. This is the
// semaphore-bounded fan-out users write by hand, with the verbs' rules:
// stopping as in stop.go (every goroutine looks at stop, and ForErr's
// context, before its next index), the caller returning only after every
// goroutine has returned, the first panic re-raised or the Goexit passed
// on, and the caller's pprof labels inherited by the goroutines.
//
// Java's alternative, ForkJoinPool.managedBlock (a spare worker while a
// task blocks), was not taken: a body cannot tell the pool when it is
// about to block, and waking a worker costs more than many of the waits it
// would cover. A plain goroutine is what the Go runtime parks and wakes
// cheaply.

import (
	"sync"
	"sync/atomic"
)

// runBlocking runs b over [0, n) on at most sp.blocking goroutines of its
// own.
func runBlocking[T any](sp *spec, jb *job[T], n int) error {
	var tc traced
	tc.startTrace(sp.verb, n)
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
