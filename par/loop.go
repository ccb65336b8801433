package par

import (
	"context"
	"sync"
)

// rangeFrame is the frame of a For, ForRange, Map or ForErr call: one per
// call, recycled through framePool. Exactly one of the bodies is set.
type rangeFrame struct {
	loopCore
	bodyI  func(int)
	bodyR  func(lo, hi int)
	bodyE  func(context.Context, int) error
	ctx    context.Context // ForErr: the context handed to bodies
	cancel context.CancelFunc
	errMu  sync.Mutex
	err    error // ForErr: the first error
}

var framePool = sync.Pool{New: func() any { return new(rangeFrame) }}

func (f *rangeFrame) splitJoin(s *slot) *join { return s.newJoin() }

// runRange runs the call described by f over [lo, n) on slot s, which is
// the caller's slot, and returns when every piece is done. The caller then
// reads f.pe and f.err.
func runRange(s *slot, f *rangeFrame, lo, n int) {
	root := s.newTask()
	root.kind = taskRange
	root.frame = f
	root.lo, root.hi = lo, n
	f.runPiece(s, root)
	f.wait(s)
}

// runPiece runs piece t on slot s, splitting it on demand, then hands its
// completion to its join (see join below). It frees t.
func (f *rangeFrame) runPiece(s *slot, t *task) {
	s.unflushedPieces++
	if f.traceCtx != nil {
		r := f.pieceRegion(s, t.lo, t.hi)
		f.iterate(s, t)
		r.End()
	} else {
		f.iterate(s, t)
	}
	parent := t.parent
	s.freeTask(t)
	f.arrive(s, parent)
}

// iterate runs t's iterations grain by grain. A panic stops the call; the
// piece then counts as finished. A Goexit stops the call too, and since
// runPiece will not go on, the deferred function finishes the piece.
func (f *rangeFrame) iterate(s *slot, t *task) {
	returned := false
	defer func() {
		if returned {
			return
		}
		s.closeCut(t) // before t is read: a thief may be cutting it (cut.go)
		if f.abandon(recover()) {
			parent := t.parent
			s.freeTask(t)
			f.arrive(s, parent)
		}
	}()
	if f.solo {
		f.call(t.lo, t.hi)
		if f.progress != nil {
			f.progress.done.Add(int64(t.hi - t.lo))
		}
		returned = true
		return
	}
	if f.early != earlyNone {
		f.offerEarly(s, t, f, (*slot).newJoin)
	}
	cur := int64(t.lo)
	pc := f.newPacer()
	var lastItems int64 // Weighted: items in the piece's previous grain
	t0 := f.firstTick(s)
	for cur < int64(t.hi) && !f.stop.Load() {
		end := f.grainEnd(cur, int64(t.hi), pc.grain)
		if f.prefix != nil {
			end = f.capWeightedGrain(cur, end, &lastItems)
		}
		f.openCut(s, t, &pc, f, cur, end, t0)
		f.call(int(cur), int(end))
		s.closeCut(t)
		if f.progress != nil {
			f.progress.done.Add(end - cur)
		}
		t0 = f.afterGrain(s, t, &pc, f, (*slot).newJoin, end, f.units(cur, end), t0)
		cur = end
	}
	f.lastTick(s, t0)
	returned = true
}

// call runs the body over [lo, hi). For and ForErr look at stop before
// each iteration (one load of a flag that stays in every core's cache), so
// that after a panic or an error at most one more iteration starts on each
// slot, however large the grain that the cheap iterations before it sized;
// ForErr also looks at its context (a non-blocking receive from Done).
func (f *rangeFrame) call(lo, hi int) {
	switch {
	case f.bodyR != nil:
		f.bodyR(lo, hi)
	case f.bodyI != nil:
		// Written as a test and a break, not "i < hi && !stop": the
		// compiler made that condition a bool in a register, tested
		// again (four branches an iteration, the loop 64 bytes long).
		body, stop := f.bodyI, &f.stop
		for i := lo; i < hi; i++ {
			if stop.Load() {
				break
			}
			body(i)
		}
	default:
		done := f.ctx.Done()
		for i := lo; i < hi; i++ {
			if f.stop.Load() {
				return
			}
			select {
			case <-done:
				f.stop.Store(true)
				return
			default:
			}
			if err := f.bodyE(f.ctx, i); err != nil {
				f.setErr(err)
				return
			}
		}
	}
}

// arrive reports a finished child at join j and climbs while this child is
// the last of its pair: the continuation of the join runs right here, on
// whichever slot finished last, and nobody waits.
//
// Ordering: everything a child did happens before its pending.Add, and the
// last arriver's Add observes both children's, so it (and the owner, through
// finished) sees all the children's writes.
func (f *rangeFrame) arrive(s *slot, j *join) {
	for j != nil {
		if j.pending.Add(-1) != 0 {
			return
		}
		parent := j.parent
		s.freeJoin(j)
		j = parent
	}
	f.complete(s)
}

func (f *rangeFrame) setErr(err error) {
	f.errMu.Lock()
	if f.err == nil {
		f.err = err
	}
	f.errMu.Unlock()
	f.stop.Store(true)
	f.cancel()
}
