package par

// When work is offered to thieves: lazy splits after a grain, few items
// offered before the first one, cuts of a piece behind a running grain, and
// kicks that make sleepers look at them (why each, in docs/DESIGN.md).
//
// Lazy binary splitting (Tzannes et al., PPoPP 2010): after each grain, if
// its slot's deque is empty and the rest is worth a split (splitMinNs of
// work; splitWakeNs if a sleeper must be woken), a piece pushes the upper
// half of its rest; not while at least P callers are in calls or the Ps
// are saturated (saturation.go).
//
// Few items. A call from outside over at most fewPerWorker items per worker
// splits down to single items before its first grain and wakes a sleeper
// per piece, so n equal items take ceil(n/P) rounds.
//
// Cuts. Around every grain that leaves a rest of its piece the owner opens
// a cut point, and a thief that found every deque empty may cut the upper
// half of the rest (cutFrom) once the grain has run cutAgeNs. Every grain,
// whatever its estimate: a recursion's children, most of them leaves and
// one a deep subtree, are mispriced by the grains so far, and what a
// nested call's rest holds is offered nowhere else while the outer grain
// runs. A grain is timed from after its point opens to before it closes,
// so that the pacer sizes grains by their work alone (where atomics are
// slow, as under the race detector, the point's cost would otherwise
// shrink grains to one index). A slot's points are a stack: a nested
// call's grain opens the next (up to maxCuts deep), and closes it before
// the outer grain ends. A thief tries them oldest first, as Cilk steals the
// oldest continuation: the outermost rest is the largest, and once thieves
// have cut it away, a deeper one is what is left to take (a deep
// recursion's inner calls, while its outer grains run for long). The
// protocol, for each point:
//
//	owner, open:  write t, next, opened, frame; state.Store(open).
//	owner, grain: run [cur, next), touching nothing of t.
//	owner, close: CAS(open, closed), spinning while the state is cutting
//	              (after 64 tries it yields, for a thief descheduled
//	              mid-cut). Afterwards t.hi, t.parent and t.side are the
//	              owner's again, and may have changed.
//	thief:        CAS(open, cutting); if the grain has run cutAgeNs, the
//	              call is of the pool and of the thief's tree (the frame's:
//	              a recycled first piece may carry another's), and the
//	              rest is worth a split, detach its upper half under a new
//	              join; state.Store(spent) if no rest is left after the
//	              grain, else state.Store(open).
//
// A spent point stays open to the owner (closing takes open or spent to
// closed) but thieves pass it with a load: nothing can be added to a rest
// while its grain runs, so the point has nothing more to give. Without it,
// every thief would write every exhausted point of every slot on each
// look, and a deep recursion's slots hold dozens of them, their rests cut
// away while the grains below run.
//
// Only the thief that moved the state from open to cutting writes t, and
// the owner reads t only after its CAS from open or spent to closed, which
// cannot succeed while the state is cutting; the thief's writes happen
// before its Store(open) or Store(spent), which the owner's CAS observes
// (sync/atomic is sequentially consistent), and likewise the owner's writes
// of the point before the thief's CAS. t is not freed while the point is
// open: the owner frees a piece only after closing it, and a grain that
// panics closes it first (iterate). The cut join is an ordinary split's, so
// reductions still combine in index order. The owner opens and closes its
// points in stack order (a grain nests inside the grain that opened the
// point below), so the open points are a prefix of the array, which thieves
// scan up to the first closed one (one that closes meanwhile only hides the
// rest a while).
//
// Kicks. Publishing a piece's first grain kicks a parked worker (sleep.go),
// at most once per kickEveryNs per pool, when nobody spins, and not at
// GOMAXPROCS 1 or while the Ps are saturated.

import (
	"math/bits"
	"runtime"
	"sync/atomic"

	"github.com/parloop/parloop/par/internal/platform"
)

// fewPerWorker: the most items per worker for which a call offers singles.
const fewPerWorker = 4

// shape decides, once per call over n items (guest: from outside), whether
// it runs solo (the pool shrank to parallelism 1 since route looked) or
// offers few items.
func (c *core) shape(guest bool, n int) {
	p := c.pool.layout.Load().active + 1
	switch {
	case p == 1:
		c.solo = true
	case guest && n <= fewPerWorker*p && !c.pool.exp.NoFewItems:
		c.fewItems = true
	}
}

// offerItems splits piece t down to single items before its first grain
// (see above).
func (c *core) offerItems(s *slot, t *task, f runner) {
	items, pushed := t.hi-t.lo, 0
	for int64(t.hi-t.lo) >= 2*c.minGrain {
		// Once the cost is measured, only a piece worth a split splits.
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

// afterGrain ends a grain of units units of piece t, run from tick t0 to
// t1 up to index cur: it sizes the next grain and splits the rest of t if
// a worker could take it.
func (c *core) afterGrain(s *slot, t *task, pc *pacer, f runner, cur, units, t0, t1 int64) {
	c.adapt(pc, max(units, 1), t1-t0)
	if c.worthSplitting(s, cur, int64(t.hi), pc, t1) {
		c.publish(pc)
		c.splitAt(s, t, f, c.midpoint(int(cur), t.hi))
	}
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

// splitAt detaches [mid, t.hi) of piece t and pushes it for thieves.
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
	cutSpent // open, with no rest left to cut
)

// maxCuts is how deep a slot's points go: deeper grains open none.
const maxCuts = 64

// cutPoint is a slot's offer of the rest of a piece it runs.
type cutPoint struct {
	state  atomic.Int32
	t      *task // the piece, while open; owner-written while closed
	next   int64 // the first index after the running grain
	opened int64 // ticks at the grain's start
	frame  runner
}

// openCut publishes the rest of piece t after its grain [cur, next), about
// to start at tick t0, on s's next point (see above), and reports whether
// it did; a first grain also kicks.
func (c *core) openCut(s *slot, t *task, pc *pacer, f runner, cur, next, t0 int64) bool {
	if s.nCuts == maxCuts || next >= int64(t.hi) || c.pool.exp.NoCut {
		return false
	}
	cp := &s.cuts[s.nCuts]
	s.nCuts++
	cp.t, cp.next, cp.opened, cp.frame = t, next, t0, f
	cp.state.Store(cutOpen)
	if pc.costIters == 0 && cur == int64(t.lo) {
		c.pool.kick(t0)
	}
	return true
}

// kick wakes a parked worker for a first grain published at tick now.
func (p *Pool) kick(now int64) {
	if p.sleep.nSleepers.Load() == 0 || p.sleep.nSpinning.Load() != 0 || p.exp.NoKick {
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

// closeCut closes s's top cut point if piece t opened it (see above).
func (s *slot) closeCut(t *task) {
	if s.nCuts == 0 || s.cuts[s.nCuts-1].t != t {
		return
	}
	s.nCuts--
	cp := &s.cuts[s.nCuts]
	for i := 0; !cp.state.CompareAndSwap(cutOpen, cutClosed) && !cp.state.CompareAndSwap(cutSpent, cutClosed); i++ {
		if i < 64 {
			platform.Pause(1)
		} else {
			runtime.Gosched() // the thief was descheduled mid-cut and may need this P
		}
	}
	cp.t, cp.frame = nil, nil
}

// cutFrom tries to cut, for s, the rest of a piece running on v (with
// tree != 0, only of that call tree), the oldest first.
func (s *slot) cutFrom(v *slot, tree uint64) *task {
	if v == s {
		return nil
	}
	for i := range v.cuts {
		cp := &v.cuts[i]
		switch cp.state.Load() {
		case cutClosed:
			return nil
		case cutOpen:
			if t := s.cutAt(cp, tree); t != nil {
				return t
			}
		}
	}
	return nil
}

// cutAt tries to cut the rest offered at point cp (see above).
func (s *slot) cutAt(cp *cutPoint, tree uint64) *task {
	if !cp.state.CompareAndSwap(cutOpen, cutCutting) {
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
	if int64(t.hi) <= cp.next {
		cp.state.Store(cutSpent)
	} else {
		cp.state.Store(cutOpen)
	}
	if r != nil {
		s.stats.steals.Add(1)
		c.thief.Store(s.id + 1)
	}
	return r
}

// worthCutting reports whether [lo, hi) is worth a split at the call's
// published cost; without one, the grain's age says the work is not tiny.
func (c *core) worthCutting(lo, hi int64) bool {
	pc := c.newPacer()
	return pc.costIters == 0 || pc.costAtLeast(c.units(lo, hi), thresholds.Load().splitMin)
}

// cutAny tries the workers' cut points in order, then the guest seats'.
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
