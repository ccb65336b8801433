package par

import (
	"sync"
	"sync/atomic"
)

// Blocking bodies (the Blocking option).
//
// A body that waits (a file read, a network call, a sleep, a lock) keeps
// the worker that runs it: the Go scheduler hands the worker's P to other
// goroutines, but the pool has one worker less until
// the body returns, and a loop of such bodies runs at the pool's width, one
// per CPU, however many could wait at once (500 reads of 2 ms each took 630
// ms on two workers, against 14 ms for a goroutine per file).
//
// So a call with Blocking(limit) does not use the pool at all: it starts
// min(limit, n) goroutines of its own, plain ones (not locked to threads),
// which take indices from a shared counter, one at a time, in increasing
// order, until the range is done or the call stops; the caller waits for
// them. This is the semaphore-bounded fan-out users write by hand, with the
// verbs' guarantees:
//
//   - Stopping: the first panic, error, Goexit or cancellation sets stop;
//     every goroutine looks at stop before taking its next index, so at
//     most one more body starts per goroutine. A ForErr error also cancels
//     the context handed to the bodies.
//   - The caller returns only after every goroutine has returned (the
//     WaitGroup), and re-raises the first panic, or exits by Goexit.
//   - Labels: a goroutine inherits its creator's pprof labels, so the
//     bodies' samples go to the caller's labels with no work here.
//   - The pool's workers keep running CPU-bound calls meanwhile; a
//     Blocking call made from inside a body blocks that body's worker
//     until it is done, like any other blocking body.
//
// Why not the alternative, ForkJoinPool.managedBlock's: a spare worker
// thread started while a body blocks. A body cannot tell the pool when it
// is about to block on a file or a lock, and starting or waking a worker
// (10 to 30 µs here for a thread-locked one) costs more than many of the
// waits it would cover. A plain goroutine is what the Go runtime already
// parks and wakes cheaply.

// runBlocking runs a range call over [0, n) with the bodies on at most
// limit goroutines of their own.
func runBlocking(verb string, n int, cfg *callConfig, body *rangeBody) error {
	// Copies for the goroutines to share: the pointers are to the caller's
	// stack, which must not escape (it would put every call's arguments on
	// the heap).
	c, b := *cfg, *body
	var tc traced
	tc.startTrace(verb, n, nil, b.ctx)
	defer tc.endTrace()
	limit := c.blocking
	var (
		next  atomic.Int64
		stop  atomic.Bool
		first atomic.Pointer[PanicError]
		errMu sync.Mutex
		err   error
		wg    sync.WaitGroup
	)
	fail := func(e error) {
		errMu.Lock()
		if err == nil {
			err = e
		}
		errMu.Unlock()
		stop.Store(true)
		b.cancel()
	}
	run := func() {
		defer wg.Done()
		returned := false
		defer func() {
			if !returned {
				first.CompareAndSwap(nil, recovered(recover()))
				stop.Store(true)
				if b.cancel != nil {
					b.cancel()
				}
			}
		}()
		for !stop.Load() {
			i := next.Add(1) - 1
			if i >= int64(n) {
				break
			}
			switch {
			case b.i != nil:
				b.i(int(i))
			case b.r != nil:
				b.r(int(i), int(i)+1)
			default:
				if e := b.e(b.ctx, int(i)); e != nil {
					fail(e)
					continue
				} else if b.ctx.Err() != nil {
					stop.Store(true)
				}
			}
			if c.progress != nil {
				c.progress.done.Add(1)
			}
		}
		returned = true
	}
	g := min(limit, n)
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
