package par

// Stopping a call, and completing it.
//
// Stopping (a panic, an error, a cancelled context, a Goexit) is written
// once, in failure, which a framed call's core, a scope (scope.go) and a
// blocking call (blocking.go) each hold:
//
//  1. Whoever sees the reason first stores it: the first panic or Goexit
//     by a CAS on pe (fail), the first error under errMu (setErr); then
//     stop.Store(true). An error, a panic or a Goexit also cancels the
//     bodies' context (ForErr, MapErr, ScopeErr); a done context
//     (errCtxDone) only stops the call. A panicking body stores stop
//     before its stack is taken (catcher), so the others need not wait.
//  2. Every piece loads stop before each grain, and a body of one index
//     (For, Map, ForErr, MapErr) before each index (job.run), where
//     ForErr's bodies also look at their context. A blocking call's
//     goroutines load it before each index, and a scope before each task
//     starts and before a Go queues one, where ScopeErr's context's Done
//     counts as stop (stopped). So once stop is visible no new grain, index
//     or task starts; a running body is never interrupted.
//  3. A stopped piece still arrives at its join, so the join tree still
//     completes and the caller gets its token: stopping never hangs a call,
//     and the caller returns only after every running body has returned.
//     Pieces still in deques are taken as usual and return at once; a
//     stopped scope's tasks are still taken and counted, and a blocking
//     call still waits for its goroutines.
//  4. The caller reads the outcome (outcome) after it saw the call
//     complete; the stores in 1 happen before the arrivals in 3 (a scope's
//     finish, a blocking goroutine's WaitGroup.Done), so it sees them.
//
// Completing (complete): on the owner's slot, a plain write the owner reads
// back; elsewhere the finished flag and a token to the owner, which helps
// meanwhile (wait). The owner recycles the frame once it sees the call
// complete, so the completer reads owner first and touches nothing after.

import (
	"context"
	"sync"
	"sync/atomic"
)

// failure is how a call stops (see above): its stop flag, its first panic
// and its first error. The core and the scope embed it, so that the hot
// paths load stop as a field of their own (f.stop.Load(), per grain and per
// index) and &f.stop is what job.run and catcher take; a blocking call's
// goroutines share one.
type failure struct {
	stop  atomic.Bool                // no new grain, index or task: set on panic, error, cancellation or Goexit
	pe    atomic.Pointer[PanicError] // the first panic or Goexit
	errMu sync.Mutex
	err   error // the first error, under errMu
}

// fail records the first panic or Goexit, stops the call and, if cancel is
// not nil (a call with a context), cancels the bodies' context.
func (f *failure) fail(pe *PanicError, cancel context.CancelFunc) {
	f.pe.CompareAndSwap(nil, pe)
	f.stop.Store(true)
	if cancel != nil {
		cancel()
	}
}

// setErr records a body's error (the first one wins), cancels the bodies'
// context and stops the call; errCtxDone, a done context, only stops it.
func (f *failure) setErr(err error, cancel context.CancelFunc) {
	if err != errCtxDone {
		f.errMu.Lock()
		if f.err == nil {
			f.err = err
		}
		f.errMu.Unlock()
		cancel()
	}
	f.stop.Store(true)
}

// stopped reports whether the call has stopped, or done, if not nil, is
// closed.
func (f *failure) stopped(done <-chan struct{}) bool {
	if f.stop.Load() {
		return true
	}
	if done != nil {
		select {
		case <-done:
			return true
		default:
		}
	}
	return false
}

// outcome returns the first panic and the first error, once the call has
// completed (4 above).
func (f *failure) outcome() (*PanicError, error) {
	return f.pe.Load(), f.err
}

// complete marks the call finished (see above).
func (c *core) complete(s *slot) {
	owner := c.owner
	if owner == s && !c.waiting {
		c.ownDone = true
		return
	}
	c.finished.Store(true)
	if owner != s {
		owner.sleeper.Signal()
	}
}

// wait helps, after the owner's root piece, until every piece is done.
func (c *core) wait(s *slot) {
	if c.ownDone || c.finished.Load() {
		return
	}
	c.waiting = true
	s.helpUntil(&c.finished, &c.thief)
}

// waitUnwinding is wait for a caller a Goexit is unwinding (runFramed). It
// steals nothing meanwhile (unwinding): a stolen body of another call of the
// tree, not stopped, could Goexit again and end the goroutine while its own
// call still unwinds. It still runs what s's own deque holds; a Goexit there
// cannot end the wait (helpUntil); the caller defers what must follow.
func (c *core) waitUnwinding(s *slot) {
	defer s.restore(s.unwinding())
	c.wait(s)
}

// unwinding makes s, if not nil, steal nothing (quiet) while a Goexit (or,
// in a fork, a panic) unwinds its call, and returns what to restore. Its
// tree stays: a fork's g run inline meanwhile stamps its tasks with it.
func (s *slot) unwinding() (was bool) {
	if s == nil {
		return false
	}
	was, s.quiet = s.quiet, true
	return was
}

// restore gives s, if not nil, back what unwinding took.
func (s *slot) restore(was bool) {
	if s != nil {
		s.quiet = was
	}
}
