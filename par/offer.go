package par

// When work is offered to thieves: lazy splits after a grain, few items
// offered before the first one, cuts of a piece behind a running grain, and
// kicks that make sleepers look at them (why each, in docs/DESIGN.md).
//
// Lazy binary splitting (Tzannes et al., PPoPP 2010): after each grain, if
// its slot's deque is empty and the rest is worth a split (grain.SplitMinNs
// of work; grain.SplitWakeNs if a sleeper must be woken), a piece pushes
// the upper half of its rest; not while at least P callers are in calls or
// the Ps are saturated (pool.go).
//
// Few items. A call from outside over at most fewPerWorker items per worker
// splits down to single items before its first grain and wakes a sleeper
// per piece, so n equal items take ceil(n/P) rounds.
//
// Cuts. A running grain offers the rest of its piece at a cut point
// (par/internal/cut, whose doc has the protocol).
//
// Kicks. Publishing a piece's first grain kicks a parked worker
// (par/internal/sleep), at most once per grain.KickEveryNs per pool, when
// nobody spins, and not at GOMAXPROCS 1 or while the Ps are saturated.

import (
	"math/bits"

	"github.com/parloop/parloop/par/internal/cut"
	"github.com/parloop/parloop/par/internal/grain"
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
	for int64(t.hi-t.lo) >= 2*c.sizer.MinGrain {
		// Once the cost is measured, only a piece worth a split splits.
		if pc := c.sizer.NewPacer(); pc.Measured() && !pc.CostAtLeast(c.sizer.Units(int64(t.lo), int64(t.hi)), grain.Thresholds().SplitMin) {
			break
		}
		c.splitAt(s, t, f, c.sizer.Midpoint(t.lo, t.hi))
		pushed++
	}
	if pushed > 0 { // the first push woke one sleeper; the pieces can feed one worker per item
		c.pool.sleep.Wake(min(items, c.pool.layout.Load().active+1)-2, true)
	}
}

// afterGrain ends a grain of units units of piece t, run from tick t0 to
// t1 up to index cur: it sizes the next grain and splits the rest of t if
// a worker could take it.
func (c *core) afterGrain(s *slot, t *task, pc *grain.Pacer, f runner, cur, units, t0, t1 int64) {
	c.sizer.Adapt(pc, max(units, 1), t1-t0)
	if c.worthSplitting(s, cur, int64(t.hi), pc, t1) {
		c.sizer.Publish(pc)
		c.splitAt(s, t, f, c.sizer.Midpoint(int(cur), t.hi))
	}
}

// worthSplitting reports whether a piece with [cur, hi) left, running on
// s, should split now; now is the tick its last grain ended.
func (c *core) worthSplitting(s *slot, cur, hi int64, pc *grain.Pacer, now int64) bool {
	if hi-cur < 2 || s.tasks.Public().Len() != 0 {
		return false
	}
	tk := grain.Thresholds()
	rem := c.sizer.Units(cur, hi)
	if !pc.CostAtLeast(rem, tk.SplitMin) {
		return false
	}
	l := c.pool.layout.Load()
	if bits.OnesCount64(guestTable.Held()) > l.active || l.busyElsewhere(now) {
		c.pool.maybeResizeAt(now) // the split that would have checked GOMAXPROCS
		return false
	}
	if c.pool.sleep.ShouldWake() {
		return pc.CostAtLeast(rem, tk.SplitWake)
	}
	return true
}

// splitAt detaches [mid, t.hi) of piece t and pushes it for thieves.
func (c *core) splitAt(s *slot, t *task, f runner, mid int) {
	s.pushPublic(c.detach(s, t, f, f.newJoin(s), mid))
	c.pool.notify()
	c.pool.maybeResize() // splits are rare and worth grain.SplitMinNs: a cheap place to follow GOMAXPROCS
}

// openCut publishes the rest of piece t after its grain [cur, next), about
// to start at tick t0, on s's next cut point (par/internal/cut), and
// reports whether it did; a first grain also kicks.
func (c *core) openCut(s *slot, t *task, pc *grain.Pacer, cur, next, t0 int64) bool {
	if next >= int64(t.hi) || c.pool.exp.NoCut || !s.cuts.Open(t, cur, next, t0) {
		return false
	}
	if !pc.Measured() && cur == int64(t.lo) {
		c.pool.kick(t0)
	}
	return true
}

// kick wakes a parked worker for a first grain published at tick now.
func (p *Pool) kick(now int64) {
	if !p.sleep.ShouldWake() || p.exp.NoKick {
		return
	}
	last := p.lastKick.Load()
	if now-last < grain.Thresholds().KickEvery || !p.lastKick.CompareAndSwap(last, now) {
		return
	}
	if l := p.layout.Load(); l.procs > 1 && !l.busyElsewhere(now) {
		p.sleep.KickLast()
	}
}

// cutFrom tries to cut, for s, the rest of a piece running on v (with
// tree != 0, only of that call tree), the oldest first.
func (s *slot) cutFrom(v *slot, tree uint64) *task {
	if v == s {
		return nil
	}
	for cp, i := v.cuts.Claim(0); cp != nil; cp, i = v.cuts.Claim(i) {
		if t := s.cutAt(cp, tree); t != nil {
			return t
		}
	}
	return nil
}

// cutAt tries to cut the rest offered at point cp, which s holds, and
// releases it (par/internal/cut).
func (s *slot) cutAt(cp *cut.Point[task], tree uint64) *task {
	var r *task
	t, next := cp.Piece(), cp.Next()
	f := t.frame
	c := f.base()
	if hi, age := int64(t.hi), platform.Ticks()-cp.Opened(); c.pool == s.pool && (tree == 0 || c.tree == tree) && hi > next &&
		age >= grain.Thresholds().CutAge && c.worthCutting(age, cp.Lo(), next, hi) {
		mid := int(next)
		if hi-next >= 2 {
			mid = c.sizer.Midpoint(mid, int(hi))
		}
		r = c.detach(s, t, f, f.newJoin(s), mid)
	}
	cp.Release(int64(t.hi) <= next)
	if r != nil {
		s.stats.Steals.Add(1)
		c.thief.Store(s.id + 1)
	}
	return r
}

// worthCutting reports whether the rest [next, hi) behind a grain [lo,
// next) that has run age ticks is worth a split: at the call's published
// cost, or at the running grain's own rate so far, whichever is higher.
// The grain's age is a measurement the published cost does not hold yet:
// a recursion's deep child among leaves runs for milliseconds where the
// leaves priced an item at a fraction of a microsecond. Without a
// published cost, the age alone says the work is not tiny.
func (c *core) worthCutting(age, lo, next, hi int64) bool {
	pc := c.sizer.NewPacer()
	rest, split := c.sizer.Units(next, hi), grain.Thresholds().SplitMin
	return !pc.Measured() || pc.CostAtLeast(rest, split) ||
		!c.pool.exp.NoRateCut && grain.RateAtLeast(max(c.sizer.Units(lo, next), 1), age, rest, split)
}

// cutAny tries the workers' cut points in order, then the guest seats'.
func (s *slot) cutAny(l *layout, order []int32, tree uint64) *task {
	for _, id := range order {
		if t := s.cutFrom(l.workers[id], tree); t != nil {
			return t
		}
	}
	for m := guestTable.Held(); m != 0; m &= m - 1 {
		if t := s.cutFrom(guestTable.Seat(bits.TrailingZeros64(m)), tree); t != nil {
			return t
		}
	}
	return nil
}
