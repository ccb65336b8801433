package par

// When work is offered to thieves (steal.go decides where idle workers take
// it from): lazy splits after a grain, few items offered before the first
// one, and cuts of a piece behind a long grain, with the kicks that make
// sleepers look at them. Why each exists, and what it was measured to gain,
// is in docs/DESIGN.md.
//
// Lazy binary splitting (Tzannes et al., PPoPP 2010). After each grain a
// piece looks for demand: if its slot's deque is empty and the rest is
// worth a split (splitMinNs of work; splitWakeNs if a sleeper must be woken
// for it), it pushes the upper half of its rest and goes on with the
// lower. Nothing splits while at least P callers are inside calls or the
// Go scheduler has goroutines waiting for a P (saturation.go).
//
// Few items. A call from outside over at most fewPerWorker items per worker
// splits down to single items before its first grain, while the cost is
// unknown, and wakes a sleeper per piece, so n equal items take ceil(n/P)
// rounds rather than a grain's measurement and a split per round.
//
// Cuts. Around a grain that may be long (a piece's first grain while the
// cost is unknown, or one expected to take cutMinNs) the owner opens its
// slot's cut point, and a thief that found every deque empty may cut the
// upper half of the rest (cutFrom). The protocol:
//
//	owner, open:  write t, next, opened, frame; state.Store(open).
//	owner, grain: run [cur, next), touching nothing of t.
//	owner, close: CAS(open, closed), spinning while the state is cutting
//	              (after 64 tries it yields, for a thief descheduled
//	              mid-cut). Afterwards t.hi, t.parent and t.side are the
//	              owner's again, and may have changed.
//	thief:        CAS(open, cutting); if the grain has run cutAgeNs, the
//	              call is of the pool and of the thief's tree (the frame's
//	              tree: a call's first piece is a recycled task that may
//	              still carry another tree's), and the rest
//	              is worth a split, detach its upper half under a new join,
//	              as the owner's own split would; state.Store(open).
//
// Only the thief that moved the state from open to cutting writes t, and
// the owner reads t only after its CAS from open to closed, which cannot
// succeed while the state is cutting; the thief's writes happen before its
// Store(open), which the owner's CAS observes (sync/atomic is sequentially
// consistent), and likewise the owner's writes of the point before the
// thief's CAS. t is not freed while the point is open: the owner frees a
// piece only after closing it, and a grain that panics closes it first
// (frame.go, iterate). The cut join is an ordinary split's, so reductions
// still combine in index order. A piece run inside an open grain of its
// slot (a nested call's) leaves the point alone: the outer rest, the
// larger, stays offered.
//
// Kicks. A worker parked before a call began does not look at its cut
// point, so publishing a piece's first grain kicks the worker that parked
// last when nobody spins (sleep.go): it scans once and parks again. A pool
// kicks at most once per kickEveryNs, and not at GOMAXPROCS 1 or while the
// Ps are saturated.

import (
	"math/bits"
	"runtime"
	"sync/atomic"

	"github.com/parloop/parloop/par/internal/platform"
)

// fewPerWorker: a call from outside over this many items per worker or
// fewer offers single items.
const fewPerWorker = 4

// shape decides, once per call over n items (guest: from outside the
// pool), whether the call runs solo (the pool shrank to parallelism 1 since
// route looked) or offers few items.
func (c *core) shape(guest bool, n int) {
	p := c.pool.layout.Load().active + 1
	switch {
	case p == 1:
		c.solo = true
	case guest && n <= fewPerWorker*p && !c.pool.exp.noFewItems:
		c.fewItems = true
	}
}

// offerItems splits piece t down to single items before its first grain
// (see above).
func (c *core) offerItems(s *slot, t *task, f runner) {
	items, pushed := t.hi-t.lo, 0
	for int64(t.hi-t.lo) >= 2*c.minGrain {
		// Once a grain has measured the cost, only a piece worth a split
		// is split further.
		if pc := c.newPacer(); pc.costIters != 0 && !pc.costAtLeast(c.units(int64(t.lo), int64(t.hi)), thresholds.Load().splitMin) {
			break
		}
		c.splitAt(s, t, f, c.midpoint(t.lo, t.hi))
		pushed++
	}
	if pushed > 0 { // the first push woke one sleeper; the pieces can feed one worker per item
		c.pool.wake(min(items, c.pool.layout.Load().active+1)-2, true)
	}
}

// afterGrain ends a grain of units units of piece t, started at tick t0
// and ending at index cur: it sizes the next grain and, if some worker
// could take it, splits the rest of t. It returns the tick at which the
// next grain starts.
func (c *core) afterGrain(s *slot, t *task, pc *pacer, f runner, cur, units, t0 int64) int64 {
	t1 := platform.Ticks()
	c.adapt(pc, max(units, 1), t1-t0)
	if c.worthSplitting(s, cur, int64(t.hi), pc, t1) {
		c.publish(pc)
		c.splitAt(s, t, f, c.midpoint(int(cur), t.hi))
	}
	return t1
}

// worthSplitting reports whether a piece with [cur, hi) left, running on
// s, should split now; now is the tick its last grain ended.
func (c *core) worthSplitting(s *slot, cur, hi int64, pc *pacer, now int64) bool {
	if hi-cur < 2 || s.dq.Len() != 0 {
		return false
	}
	tk := thresholds.Load()
	rem := c.units(cur, hi)
	if !pc.costAtLeast(rem, tk.splitMin) {
		return false
	}
	l := c.pool.layout.Load()
	if bits.OnesCount64(guestMask.Load()) > l.active || l.busyElsewhere(now) {
		c.pool.maybeResizeAt(now) // the split that would have checked GOMAXPROCS
		return false
	}
	st := &c.pool.sleep
	if st.nSleepers.Load() > 0 && st.nSpinning.Load() == 0 {
		return pc.costAtLeast(rem, tk.splitWake)
	}
	return true
}

// splitAt gives [mid, t.hi) of piece t to a new piece, pushed where thieves
// take it, and makes t end at mid.
func (c *core) splitAt(s *slot, t *task, f runner, mid int) {
	s.pushPublic(c.detach(s, t, f, f.newJoin(s), mid))
	c.pool.notify()
	c.pool.maybeResize() // splits are rare and worth splitMinNs: a cheap place to follow GOMAXPROCS
}

// The states of a cut point.
const (
	cutClosed int32 = iota
	cutOpen
	cutCutting
)

// cutPoint is a slot's offer of the rest of the piece it runs.
type cutPoint struct {
	state  atomic.Int32
	t      *task // the piece, while open; owner-written while closed
	next   int64 // the first index after the running grain
	opened int64 // ticks at the grain's start
	frame  runner
}

// openCut publishes the rest of piece t after its grain [cur, next), about
// to start at tick t0, if that grain may be long (see above); a first grain
// also kicks. A tiny loop never measures its cost, so it publishes only its
// first grain.
func (c *core) openCut(s *slot, t *task, pc *pacer, f runner, cur, next, t0 int64) {
	if s.cut.t != nil || next >= int64(t.hi) || c.pool.exp.noCut {
		return
	}
	first := pc.costIters == 0 && cur == int64(t.lo)
	if first || pc.costAtLeast(c.units(cur, next), thresholds.Load().cutMin) {
		cp := &s.cut
		cp.t, cp.next, cp.opened, cp.frame = t, next, t0, f
		cp.state.Store(cutOpen)
		if first {
			c.pool.kick(t0)
		}
	}
}

// kick wakes a parked worker for a first grain published at tick now.
func (p *Pool) kick(now int64) {
	if p.sleep.nSleepers.Load() == 0 || p.sleep.nSpinning.Load() != 0 || p.exp.noKick {
		return
	}
	last := p.lastKick.Load()
	if now-last < thresholds.Load().kickEvery || !p.lastKick.CompareAndSwap(last, now) {
		return
	}
	if l := p.layout.Load(); l.procs > 1 && !l.busyElsewhere(now) {
		p.kickOne()
	}
}

// closeCut closes s's cut point if piece t opened it, waiting for a thief
// that is cutting. t's fields are the owner's again afterwards.
func (s *slot) closeCut(t *task) {
	cp := &s.cut
	if cp.t != t {
		return
	}
	for i := 0; !cp.state.CompareAndSwap(cutOpen, cutClosed); i++ {
		if i < 64 {
			platform.Pause(1)
		} else {
			runtime.Gosched() // the thief was descheduled mid-cut and may need this P
		}
	}
	cp.t, cp.frame = nil, nil
}

// cutFrom tries to cut the rest of the piece running on v, for s to run;
// with tree != 0 only a piece of that call tree.
func (s *slot) cutFrom(v *slot, tree uint64) *task {
	cp := &v.cut
	if v == s || cp.state.Load() != cutOpen || !cp.state.CompareAndSwap(cutOpen, cutCutting) {
		return nil
	}
	var r *task
	t, f := cp.t, cp.frame
	c := f.base()
	if hi := int64(t.hi); c.pool == s.pool && (tree == 0 || c.tree == tree) && hi > cp.next &&
		platform.Ticks()-cp.opened >= thresholds.Load().cutAge && c.worthCutting(cp.next, hi) {
		mid := int(cp.next)
		if hi-cp.next >= 2 {
			mid = c.midpoint(mid, int(hi))
		}
		r = c.detach(s, t, f, f.newJoin(s), mid)
	}
	cp.state.Store(cutOpen)
	if r != nil {
		s.stats.steals.Add(1)
		c.thief.Store(s.id + 1)
	}
	return r
}

// worthCutting reports whether [lo, hi) is worth a split at the call's
// published cost per iteration; while none is published, the grain's own
// age says the work is not tiny.
func (c *core) worthCutting(lo, hi int64) bool {
	pc := c.newPacer()
	return pc.costIters == 0 || pc.costAtLeast(c.units(lo, hi), thresholds.Load().splitMin)
}

// cutAny tries the cut points of the workers in order, then of the guest
// seats held for s's pool (see steal).
func (s *slot) cutAny(l *layout, order []int32, tree uint64) *task {
	for _, id := range order {
		if t := s.cutFrom(l.workers[id], tree); t != nil {
			return t
		}
	}
	for m := guestMask.Load(); m != 0; m &= m - 1 {
		if t := s.cutFrom(guestSeats[bits.TrailingZeros64(m)], tree); t != nil {
			return t
		}
	}
	return nil
}
