package par

// The frame: one per framed call (route.go), shared by its pieces.
//
// A call's range is one piece at first, the root task, run by its caller.
// A piece runs grain by grain (loop); between grains it may split
// (offer.go): the upper half of its rest becomes a new piece, pushed where
// thieves take it, and both halves become the children of a new join in
// the piece's place. The last of a join's two children to arrive carries on
// upward (arrive), so nobody waits at a join; the root's arrival completes
// the call (stop.go). A reduction's piece folds its grains left to right,
// and joins combine left and right, so by associativity the root holds the
// fold of the whole range (the verb applies identity once). A loop is a
// reduction of nothing (T = none): no combine; its joins are recycled.

import (
	"context"
	"errors"
	"runtime/trace"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/parloop/parloop/par/internal/counters"
	"github.com/parloop/parloop/par/internal/grain"
	"github.com/parloop/parloop/par/internal/platform"
	"github.com/parloop/parloop/par/internal/tracing"
)

// none is the value type of a loop's frame.
type none = struct{}

// job is what a call runs: exactly one of each, rng, eachErr, leaf and of.
type job[T any] struct {
	of      ofRunner[T]                            // ForOf, ReduceRangeOf: a box on the caller's seat (of.go)
	each    func(i int)                            // For, Map
	rng     func(lo, hi int)                       // ForRange, Fold
	eachErr func(ctx context.Context, i int) error // ForErr, MapErr
	ctx     context.Context                        // eachErr: the context handed to the bodies
	cancel  context.CancelFunc                     // eachErr: cancels ctx on the first error
	leaf    func(lo, hi int) T                     // Reduce, ReduceRange
	combine func(a, b T) T                         // a reduction's; nil for a loop
	frames  **frame[T]                             // ReduceRangeOf: where its box keeps a frame (of.go)
}

// errCtxDone reports that eachErr stopped because its context was done.
var errCtxDone = errors.New("par: the call's context is done")

// run runs the body over [lo, hi) and returns a leaf's result, or eachErr's
// first error (errCtxDone once the context is done). Each index looks at
// stop first (nil in a plain run: nobody else can stop it), so after a
// panic or an error at most one more index starts on each slot.
func (b *job[T]) run(lo, hi int, stop *atomic.Bool) (v T, err error) {
	switch {
	case b.leaf != nil:
		v = b.leaf(lo, hi)
	case b.of != nil:
		v = b.of.runRange(lo, hi, stop)
	case b.rng != nil:
		b.rng(lo, hi)
	case b.each != nil:
		eachIndex(b.each, stop, lo, hi)
	default:
		done := b.ctx.Done()
		for i := lo; i < hi; i++ {
			if stop != nil && stop.Load() {
				break
			}
			select {
			case <-done:
				return v, errCtxDone
			default:
			}
			if err = b.eachErr(b.ctx, i); err != nil {
				return v, err
			}
		}
	}
	return v, err
}

// eachIndex runs body(i) for i in [lo, hi), looking at stop before each if
// it is not nil. A test and a break, not "i < hi && !stop", which compiles
// to four branches an iteration.
//
//go:noinline
func eachIndex(body func(int), stop *atomic.Bool, lo, hi int) {
	if stop == nil {
		for i := lo; i < hi; i++ {
			body(i)
		}
		return
	}
	for i := lo; i < hi; i++ {
		if stop.Load() {
			break
		}
		body(i)
	}
}

// runner is a frame as its tasks see it.
type runner interface {
	runPiece(s *slot, t *task)
	newJoin(s *slot) *join // a join of the frame's kind (offer.go splits and cuts)
	base() *core
}

// core is what the scheduler needs of any call's frame, whatever its type.
type core struct {
	pool     *Pool
	owner    *slot          // the slot of the goroutine that made the call
	solo     bool           // the pool shrank to parallelism 1: run every piece whole, untimed
	fewItems bool           // pieces offer single items before their first grain (offer.go)
	sizer    grain.Sizer    // the Grain hint, the weights and what the pieces learned (internal/grain)
	failure                 // stop, the first panic and the first error (stop.go)
	finished atomic.Bool    // the root join completed on another slot than the owner's
	ownDone  bool           // the root join completed on the owner's slot before it waited (owner-only)
	waiting  bool           // the owner is in wait (owner-only)
	thief    atomic.Int32   // id+1 of the last slot that stole a piece
	progress *atomic.Int64  // Track's count of items done, or nil
	tree     uint64         // the call tree (steal.go), set before any split
	labels   unsafe.Pointer // the caller's pprof label set
	traced                  // the call's trace task, if a trace was recorded at its start

	// Owner-only clock readings, so that a guest's call, timed for the
	// callers' busy time, reads the clock twice, not four times: the call's
	// start, which starts the owner's first grain, and the end of its last.
	startTicks, endTicks int64
}

func (c *core) base() *core { return c }

// frame is a call's core with its body and its result.
type frame[T any] struct {
	core
	b      job[T]
	result T
	have   bool
}

// rjoin is the join of a reduction's split: its halves' results.
//
// Ordering: a child writes vals[side] and has[side] before its
// pending.Add; the last arriver reads both after its own Add, which
// observes the other child's (sync/atomic is sequentially consistent).
type rjoin[T any] struct {
	join // first field: a *join of an rjoin is converted back
	vals [2]T
}

// newJoin makes a join for a split on slot s: a recycled one for a loop, a
// new rjoin for a reduction (it holds values of T).
func (f *frame[T]) newJoin(s *slot) *join {
	if f.b.combine == nil {
		return s.newJoin()
	}
	return &new(rjoin[T]).join
}

// rangeFrames recycles loop frames; a slot also keeps one (slot.frame).
var rangeFrames = sync.Pool{New: func() any { return new(frame[none]) }}

// getFrame returns a cleared frame for a call of b on slot s: the frame of
// the last call of b's box (ReduceRangeOf, of.go), the slot's or a pooled
// one for a loop, else a new one.
func getFrame[T any](s *slot, b *job[T]) *frame[T] {
	if fp := b.frames; fp != nil && *fp != nil {
		f := *fp
		*fp = nil
		return f
	}
	if fp, ok := any(&s.frame).(**frame[T]); ok { // a loop
		if f := *fp; f != nil {
			*fp = nil
			return f
		}
		return rangeFrames.Get().(*frame[T])
	}
	return new(frame[T])
}

// putFrame clears f and keeps it for the next call of its box, at the same
// depth of a recursion, or for the next loop on s.
func putFrame[T any](s *slot, f *frame[T]) {
	boxed := f.b.frames
	*f = frame[T]{}
	if boxed != nil && *boxed == nil {
		*boxed = f
		return
	}
	if fp, ok := any(&s.frame).(**frame[T]); ok {
		if *fp == nil {
			*fp = f
		} else {
			rangeFrames.Put(f)
		}
	}
}

// begin readies f for a call on pool p made on slot s, field by field: a
// composite literal, built on the stack first, would make a fresh
// goroutine's first call grow its stack.
//
//go:noinline
func (f *frame[T]) begin(p *Pool, s *slot, sp *spec, b *job[T], tc traced) {
	c := &f.core
	c.pool, c.owner, c.tree = p, s, s.tree
	c.sizer.MinGrain = min(int64(max(1, sp.grain)), grain.MaxGrain)
	c.sizer.NoSlowStart = p.exp.NoSlowStart
	c.labels = platform.ProfLabel()
	c.progress, c.sizer.Prefix, c.traced = sp.progress, sp.prefix, tc
	f.b = *b
}

// runFramed runs a framed call of b over [lo, n) on slot s of pool p (a
// guest seat acquired for it if guest, released here) and returns its fold
// and first error, or re-raises a body's panic or Goexit once every piece
// is done. It is the one place a caller unwinds a Goexit: the deferred
// function stops the call, waits for it (waitUnwinding), gives back the
// seat, and the Goexit goes on.
func runFramed[T any](sp *spec, b *job[T], tc traced, s *slot, guest bool, p *Pool, lo, n int) (T, bool, error) {
	f := getFrame(s, b)
	f.begin(p, s, sp, b, tc)
	f.shape(guest, n-lo)
	if guest {
		f.startTicks = platform.Ticks()
	}
	t0 := f.startTicks
	returned := false
	defer func() {
		if !returned {
			defer f.end(s, guest, t0)
			f.fail(goexitError, f.b.cancel)
			f.waitUnwinding(s)
		}
	}()
	root := s.newTask()
	root.kind, root.frame = taskPiece, f
	root.lo, root.hi = lo, n
	f.runPiece(s, root)
	f.wait(s)
	returned = true
	v, have, pe, err := f.end(s, guest, t0)
	if pe != nil {
		raise(pe)
	}
	return v, have, err
}

// end reads the outcome after every piece is done, recycles f and, for a
// guest, accounts the time since t0 and releases the seat.
func (f *frame[T]) end(s *slot, guest bool, t0 int64) (T, bool, *PanicError, error) {
	pe, err := f.outcome()
	v, have, t1 := f.result, f.have, f.endTicks
	putFrame(s, f)
	if guest {
		if t1 < t0 { // the owner ran no grain (all stolen, or stopped at once)
			t1 = platform.Ticks()
		}
		releaseGuestBusy(s, counters.Between(t0, t1, &s.pool.statsFrom))
	}
	return v, have, pe, err
}

// runPiece runs piece t on slot s, hands its result to its join, frees t.
func (f *frame[T]) runPiece(s *slot, t *task) {
	s.unflushedPieces++
	var r *trace.Region
	if f.traced.Ctx != nil {
		r = tracing.Piece(f.traced.Ctx, s != f.owner, t.lo, t.hi)
	}
	acc, have := f.iterate(s, t)
	if r != nil {
		r.End()
	}
	parent, side := t.parent, t.side
	s.freeTask(t)
	f.arrive(s, parent, side, acc, have)
}

// iterate runs piece t; a panic or Goexit stops the call (stop.go) and
// finishes the piece with no value (on Goexit here: runPiece will not go on).
func (f *frame[T]) iterate(s *slot, t *task) (acc T, have bool) {
	var c catcher
	defer c.catch(&f.stop, func(pe *PanicError) {
		s.cuts.Close(t) // before t is read: a thief may be cutting it (par/internal/cut)
		f.fail(pe, f.b.cancel)
		if pe.goexit {
			parent, side := t.parent, t.side
			s.freeTask(t)
			var zero T
			f.arrive(s, parent, side, zero, false)
		}
	})
	acc, have = f.loop(s, t, &c)
	c.returned = true
	return acc, have
}

// loop runs piece t grain by grain, each timed, then a look for demand
// (offer.go); not in iterate, whose defer would keep acc in memory.
func (f *frame[T]) loop(s *slot, t *task, c *catcher) (acc T, have bool) {
	if f.solo {
		c.lo, c.hi = t.lo, t.hi
		return f.grain(int64(t.lo), int64(t.hi), acc, false, c)
	}
	if f.fewItems {
		f.offerItems(s, t, f)
	}
	cur := int64(t.lo)
	pc := f.sizer.NewPacer()
	t0 := f.firstTick(s)
	for cur < int64(t.hi) && !f.stop.Load() {
		end := f.sizer.End(&pc, cur, int64(t.hi))
		if f.openCut(s, t, &pc, cur, end, t0) {
			t0 = platform.Ticks() // the grain's time leaves out its point's
		}
		c.lo, c.hi = int(cur), int(end)
		acc, have = f.grain(cur, end, acc, have, c)
		t1 := platform.Ticks()
		s.cuts.Close(t)
		f.afterGrain(s, t, &pc, f, end, f.sizer.Units(cur, end), t0, t1)
		t0, cur = t1, end
	}
	f.lastTick(s, t0)
	return acc, have
}

// grain runs [lo, hi) of a piece and folds its value into acc, c holding
// what runs.
func (f *frame[T]) grain(lo, hi int64, acc T, have bool, c *catcher) (T, bool) {
	v, err := f.b.run(int(lo), int(hi), &f.stop)
	if err != nil {
		f.setErr(err, f.b.cancel)
	}
	if f.progress != nil {
		f.progress.Add(hi - lo)
	}
	if f.b.combine == nil {
		return acc, false
	}
	if have {
		c.lo, c.hi = -1, -1 // a panic in combine is outside the bodies
		return f.b.combine(acc, v), true
	}
	return v, true
}

// arrive delivers a piece's value to its join and climbs while it is the
// last of its pair, combining in index order; the root's arrival completes
// the call.
//
// Ordering: everything a child did happens before its pending.Add, and the
// last arriver's Add observes both children's, so it (and the owner,
// through finished) sees all the children's writes.
func (f *frame[T]) arrive(s *slot, j *join, side uint8, v T, have bool) {
	reduce := f.b.combine != nil
	for j != nil {
		if reduce {
			(*rjoin[T])(unsafe.Pointer(j)).vals[side], j.has[side] = v, have
		}
		if j.pending.Add(-1) != 0 {
			return
		}
		parent, up := j.parent, j.side
		if reduce {
			rj := (*rjoin[T])(unsafe.Pointer(j))
			v, have = f.merge(rj.vals[0], j.has[0], rj.vals[1], j.has[1])
		} else {
			s.freeJoin(j)
		}
		j, side = parent, up
	}
	f.result, f.have = v, have
	f.complete(s)
}

// merge combines a join's two values in index order; a stopped call
// carries none.
func (f *frame[T]) merge(a T, haveA bool, b T, haveB bool) (T, bool) {
	switch {
	case f.stop.Load():
		var zero T
		return zero, false
	case haveA && haveB:
		out, pe := catchCombine(f.b.combine, a, b)
		if pe != nil {
			f.fail(pe, f.b.cancel)
			return out, false
		}
		return out, true
	case haveA:
		return a, true
	default:
		return b, haveB
	}
}

// detach gives [mid, t.hi) of piece t to a new piece made on slot s and
// makes t end at mid, both children of j, a join of f's kind, in t's place.
// The one split of a piece, by its owner or by a thief cutting it
// (offer.go), who must have t to itself.
func (c *core) detach(s *slot, t *task, f runner, j *join, mid int) *task {
	j.pending.Store(2)
	j.parent, j.side = t.parent, t.side
	r := s.newTask()
	r.kind, r.frame = taskPiece, f
	r.lo, r.hi = mid, t.hi
	r.parent, r.side = j, 1
	r.tree.Store(c.tree)
	r.labels = c.labels
	t.hi, t.parent, t.side = mid, j, 0
	s.stats.Splits.Add(1)
	return r
}

// firstTick returns the tick at which a piece running on s starts its
// first grain: the call's start for the owner's first piece, else now.
func (c *core) firstTick(s *slot) int64 {
	if s == c.owner { // owner-only fields: test the slot first, so that thieves never read them
		if t := c.startTicks; t != 0 {
			c.startTicks = 0
			return t
		}
	}
	return platform.Ticks()
}

// lastTick records t, the end of a piece's last grain, if s is the owner.
func (c *core) lastTick(s *slot, t int64) {
	if s == c.owner {
		c.endTicks = t
	}
}
