package par

// Stopping a call, and completing it.
//
// Stopping (a panic, an error, a cancelled context, a Goexit):
//
//  1. Whoever sees the reason first stores it: the first panic by a CAS on
//     pe, the first error under errMu; then stop.Store(true). An error
//     also cancels the bodies' context. A panicking piece stores stop
//     before it takes the stack (catcher), so the others need not wait.
//  2. Every piece loads stop before each grain, and a body of one index
//     (For, Map, ForErr, MapErr) before each index (job.run), where
//     ForErr's bodies also look at their context. So once stop is visible
//     on a slot no new grain, and for those verbs no new index, starts
//     there; a running body is never interrupted.
//  3. A stopped piece still arrives at its join, so the join tree still
//     completes and the caller gets its token: stopping never hangs a call,
//     and the caller returns only after every running body has returned.
//     Pieces still in deques are taken as usual and return at once.
//  4. The caller reads pe and err after it saw the call complete; the
//     stores in 1 happen before the arrivals in 3, so it sees them.
//
// Completing (complete): on the owner's slot, a plain write the owner reads
// back; elsewhere the finished flag and a token to the owner, which helps
// meanwhile (wait). The owner recycles the frame once it sees the call
// complete, so the completer reads owner first and touches nothing after.

// fail records the first panic and stops the call.
func (c *core) fail(pe *PanicError) {
	c.pe.CompareAndSwap(nil, pe)
	c.stop.Store(true)
}

// setErr records a body's error (the first one wins) and stops the call;
// errCtxDone, a cancelled context, only stops it.
func (f *frame[T]) setErr(err error) {
	if err != errCtxDone {
		f.errMu.Lock()
		if f.err == nil {
			f.err = err
		}
		f.errMu.Unlock()
		f.b.cancel()
	}
	f.stop.Store(true)
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
// steals nothing meanwhile (unwinding): a stolen body of another call of
// the tree, not stopped, could Goexit again and end the goroutine while its
// own call still unwinds. What s's own deque holds it still runs; a Goexit
// there cannot end the wait (helpUntil), and the caller defers what must
// follow it.
func (c *core) waitUnwinding(s *slot) {
	defer s.restore(s.unwinding())
	c.wait(s)
}

// unwinding makes s, if not nil, steal nothing while a Goexit (or, in a
// fork, a panic) unwinds its call, and returns its tree to restore.
func (s *slot) unwinding() uint64 {
	if s == nil {
		return 0
	}
	tree := s.tree
	s.tree = unwindingTree
	return tree
}

// restore gives s, if not nil, back the tree unwinding took.
func (s *slot) restore(tree uint64) {
	if s != nil {
		s.tree = tree
	}
}

// unwindingTree is no call's tree: a slot waiting under it steals nothing.
const unwindingTree = ^uint64(0)
