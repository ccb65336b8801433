package par

// Stopping a call, and completing it.
//
// Stopping (a panic, an error, a cancelled context, a Goexit):
//
//  1. Whoever sees the reason first stores it: the first panic by a CAS on
//     pe, the first error under errMu; then stop.Store(true). An error
//     also cancels the context handed to the bodies. A panicking piece
//     stores stop before it takes the panic's stack (catcher), so the
//     others stop without waiting for that.
//  2. Every piece loads stop before each grain, and a body of one index
//     (For, Map, ForErr, MapErr) before each index (body.run); ForErr's
//     bodies also look at their context there. So no new grain, and for
//     those verbs no new index, starts on a slot once stop is visible
//     there; a running body is never interrupted.
//  3. A stopped piece still arrives at its join, so the join tree still
//     completes and the caller still gets its token: stopping never hangs
//     a call, and the caller returns only after every running body has
//     returned. Pieces still in deques are taken as usual and return at
//     once.
//  4. The caller reads pe and err after it saw the call complete; the
//     stores in 1 happen before the arrivals in 3, so it sees them.
//
// The races this prevents: a piece that starts after the panic (it would
// run bodies the user expects skipped), and a caller that returns while a
// body still runs (it would read results being written).
//
// Completing: the root's arrival completes the call (complete). On the
// owner's own slot that is a plain write the owner reads back, the common
// case for small calls; elsewhere it is the finished flag and a token to
// the owner, which meanwhile helps (wait: helpUntil, worker.go). The owner
// recycles the frame as soon as it sees the call complete, so the
// completer reads owner first and touches nothing after its store.

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
		owner.signal()
	}
}

// wait is the owner's side of the call after its root piece: help until
// every piece is done.
func (c *core) wait(s *slot) {
	if c.ownDone || c.finished.Load() {
		return
	}
	c.waiting = true
	s.helpUntil(&c.finished, &c.thief)
}

// waitUnwinding is wait for a call whose caller a Goexit is unwinding
// (runFramed): it helps with nothing but s's own deque, whose pieces belong
// to calls the same unwinding stopped. Stealing from the call tree could
// run a body of another call of the tree, which this call's stop does not
// stop; a Goexit there would cut the deferred function short before it
// gave back the guest seat.
func (c *core) waitUnwinding(s *slot) {
	tree := s.tree
	s.tree = unwindingTree
	c.wait(s)
	s.tree = tree
}

// unwindingTree is no call's tree: a slot waiting under it steals nothing.
const unwindingTree = ^uint64(0)
