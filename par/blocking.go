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
// One budget for a tree of blocking calls. A Blocking call's limit is a
// budget of goroutines, which its goroutines carry (blockers, by goroutine
// key): a Blocking call or scope made by one of them, in a body or a task,
// spends the same budget instead of a new one. It runs on its caller, which
// already holds a token, and starts a goroutine for each token it can take
// (budget.take), at most its own limit less one; each such goroutine gives
// its token back when it exits. So however deep blocking calls nest, the
// goroutines of the tree never exceed the outermost limit, and a nested call
// with no token left still makes progress on its caller. Except a call with
// limit >= n, which promises that every body runs at once (bodies may wait
// on each other, as iter's producer and runners do): it starts its own.

import (
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/parloop/parloop/par/internal/gtable"
	"github.com/parloop/parloop/par/internal/platform"
)

// budget counts the tokens (goroutines) left to a tree of blocking calls.
type budget struct{ free atomic.Int64 }

// blockers maps the keys of goroutines that blocking calls and scopes
// started to their budget, while they run.
var blockers gtable.Table

// budgetHere returns the budget of the calling goroutine, or nil if it is
// not one a blocking call started.
func budgetHere() *budget { return (*budget)(blockers.Get(platform.GoroutineKey())) }

// take takes up to want tokens and returns how many it took.
func (b *budget) take(want int) int {
	for {
		f := b.free.Load()
		k := min(f, int64(want))
		if k <= 0 {
			return 0
		}
		if b.free.CompareAndSwap(f, f-k) {
			return int(k)
		}
	}
}

// goWith starts f on a goroutine that holds one of b's tokens (taken by
// the caller) and gives it back when f returns or calls Goexit.
func goWith(b *budget, f func()) {
	go func() {
		k := platform.GoroutineKey()
		blockers.Put(k, unsafe.Pointer(b))
		defer func() {
			blockers.Delete(k)
			b.free.Add(1)
		}()
		f()
	}()
}

// runBlocking runs b over [0, n) on at most sp.blocking goroutines of its
// own.
func runBlocking[T any](sp *spec, jb *job[T], n int) error {
	var tc traced
	tc.startTrace(sp.verb, n, nil, jb.ctx)
	defer tc.End()
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
	work := func() {
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
	run := func() {
		defer wg.Done()
		work()
	}
	if outer := budgetHere(); outer != nil && sp.blocking < n {
		// Nested in a blocking call's body: the caller works too, with as
		// many goroutines as the shared budget spares. (A call with
		// limit >= n keeps its promise that every body runs at once.)
		g := outer.take(min(sp.blocking, n) - 1)
		wg.Add(g)
		for range g {
			goWith(outer, run)
		}
		returned := false
		defer func() {
			if !returned { // a Goexit in a body the caller ran
				stop.Store(true)
				wg.Wait()
			}
		}()
		work()
		wg.Wait()
		returned = true
	} else {
		g := min(sp.blocking, n)
		bud := new(budget)
		bud.free.Store(int64(sp.blocking - g)) // for calls nested in the bodies
		wg.Add(g)
		for range g {
			goWith(bud, run)
		}
		wg.Wait()
	}
	if pe := first.Load(); pe != nil {
		raise(pe)
	}
	return err
}
