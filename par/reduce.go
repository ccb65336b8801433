package par

import (
	"runtime/trace"
	"unsafe"
)

// reduceFrame is the frame of a Reduce or ReduceRange call. Each piece
// folds its grains with leaf and combines them left to right (not starting
// from identity), and joins combine left and right results in index order,
// so by associativity the root holds the fold of the whole range; the
// caller applies identity once on the left.
type reduceFrame[T any] struct {
	loopCore
	leaf    func(lo, hi int) T // folds the indices of a grain
	combine func(a, b T) T
	result  T
	have    bool
}

// rjoin is the join of a Reduce split: the two halves' results.
//
// Ordering: a child writes vals[side] and have[side] before its
// pending.Add; the last arriver reads both after its own Add, which
// observes the other child's (sync/atomic is sequentially consistent).
type rjoin[T any] struct {
	join // first field: a *join of an rjoin is converted back with unsafe
	vals [2]T
	have [2]bool
}

func (f *reduceFrame[T]) runPiece(s *slot, t *task) {
	s.unflushedPieces++
	var r *trace.Region
	if f.traceCtx != nil {
		r = f.pieceRegion(s, t.lo, t.hi)
	}
	acc, have := f.iterate(s, t)
	if r != nil {
		r.End()
	}
	parent, side := t.parent, t.side
	s.freeTask(t)
	f.arrive(s, parent, side, acc, have)
}

func (f *reduceFrame[T]) iterate(s *slot, t *task) (acc T, have bool) {
	returned := false
	defer func() {
		if returned {
			return
		}
		have = false
		s.closeCut(t)             // before t is read: a thief may be cutting it (cut.go)
		if f.abandon(recover()) { // Goexit: runPiece will not go on, so finish the piece here
			parent, side := t.parent, t.side
			s.freeTask(t)
			var zero T
			f.arrive(s, parent, side, zero, false)
		}
	}()
	acc, have = f.fold(s, t)
	returned = true
	return acc, have
}

// fold is iterate's loop. It is a function of its own so that the
// accumulator stays in a register: the deferred recover in iterate
// captures iterate's results, which would put them in memory.
func (f *reduceFrame[T]) fold(s *slot, t *task) (acc T, have bool) {
	if f.solo {
		acc = f.leaf(t.lo, t.hi)
		if f.progress != nil {
			f.progress.done.Add(int64(t.hi - t.lo))
		}
		return acc, true
	}
	if f.early != earlyNone {
		f.offerEarly(s, t, f, newRJoin[T])
	}
	cur := int64(t.lo)
	pc := f.newPacer()
	var lastItems int64 // Weighted: items in the piece's previous grain
	t0 := cputicks()
	for cur < int64(t.hi) && !f.stop.Load() {
		end := f.grainEnd(cur, int64(t.hi), pc.grain)
		if f.prefix != nil {
			end = f.capWeightedGrain(cur, end, &lastItems)
		}
		f.openCut(s, t, &pc, f, cur, end, t0)
		v := f.leaf(int(cur), int(end))
		s.closeCut(t)
		if f.progress != nil {
			f.progress.done.Add(end - cur)
		}
		if have {
			acc = f.combine(acc, v)
		} else {
			acc, have = v, true
		}
		t0 = f.afterGrain(s, t, &pc, f, newRJoin[T], end, f.units(cur, end), t0)
		cur = end
	}
	return acc, have
}

func (f *reduceFrame[T]) splitJoin(s *slot) *join { return newRJoin[T](s) }

// newRJoin allocates the join of a Reduce split (not recycled: it holds
// values of T).
func newRJoin[T any](*slot) *join { return &new(rjoin[T]).join }

// arrive delivers a piece's result to its join and climbs while it is the
// last of its pair, combining in index order (see rangeFrame.arrive).
func (f *reduceFrame[T]) arrive(s *slot, j *join, side uint8, val T, have bool) {
	for j != nil {
		rj := (*rjoin[T])(unsafe.Pointer(j))
		rj.vals[side], rj.have[side] = val, have
		if j.pending.Add(-1) != 0 {
			return
		}
		val, have = f.merge(rj.vals[0], rj.have[0], rj.vals[1], rj.have[1])
		side, j = j.side, j.parent
	}
	f.result, f.have = val, have
	f.complete(s)
}

func (f *reduceFrame[T]) merge(a T, haveA bool, b T, haveB bool) (T, bool) {
	switch {
	case f.stop.Load():
		var zero T
		return zero, false
	case haveA && haveB:
		var out T
		if pe := catch(func() { out = f.combine(a, b) }, nil); pe != nil {
			f.fail(pe)
			return out, false
		}
		return out, true
	case haveA:
		return a, true
	default:
		return b, haveB
	}
}
