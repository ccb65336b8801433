package par

// Cutting the rest of a running piece.
//
// Lazy splitting (split.go) offers work only between grains: a piece keeps
// half of its rest in its deque while the deque is empty, and splits again
// at the end of each grain, but the part of the piece behind a running
// grain stays hidden until that grain ends. When a grain is long (an item
// of 20 ms first in a loop of cheap ones; a row of mandelbrot, a few ms, in
// the tail of a loop on 16 workers; the largest items of a loop sorted
// largest first), workers that run dry meanwhile wait for it: For over
// 1,000 items whose first is half the work took 1.52× the best schedule on
// two workers. A cut lets such a worker take the upper half of the rest of
// the running piece at once.
//
// The cut point. Each slot has one (slot.cut), on cache lines of its own:
// a state (closed, open, cutting) and, while it is open, the piece t, next
// (the first index after the running grain), opened (the tick the grain
// started), and the call's frame.
//
// The owner, around a grain (openCut, closeCut):
//
//	open:  if the grain may be long (the piece's first grain while the
//	       call's cost per iteration is not known yet, or a grain expected
//	       to take cutMinNs or more),
//	       something is left after it, and the slot's cut point is closed:
//	       write t, next, opened, frame; state.Store(open).
//	grain: run [cur, next), touching nothing of t.
//	close: CompareAndSwap(open, closed), spinning while the state is
//	       cutting (a cut takes well under a microsecond; after 64 tries
//	       it yields, for a thief descheduled mid-cut). Afterwards t.hi,
//	       t.parent and t.side are the owner's again, and may have changed.
//
// A piece that runs inside an open grain of its slot (a nested call's piece,
// or work a waiting body helps with) leaves the cut point alone: the outer
// rest, the larger, stays offered.
//
// A thief, once every deque was empty (cutFrom, from steal):
//
//	CompareAndSwap(open, cutting); if the grain has run cutAgeNs or more (a
//	tiny loop's first grain ends before a cut could pay, as in "Young tasks",
//	steal.go), the piece is of the pool and of the thief's call tree
//	(isolation), and [next, t.hi) is worth a split: detach the upper half,
//	[mid, t.hi), as a new piece under a new join with t, as the owner's own
//	split does (detach, split.go); a single item left is taken whole. Then
//	state.Store(open), and run the new piece.
//
// Why it is safe. Only the thief that moved the state from open to cutting
// writes t, and the owner reads t only after its own CAS from open to
// closed, which cannot succeed while the state is cutting; so the two never
// touch t at once. The thief's writes happen before its Store(open), which
// the owner's successful CAS observes (sync/atomic is sequentially
// consistent), so the owner sees the shortened piece and its new parent;
// likewise the owner's writes of the cut point happen before its
// Store(open), which the thief's CAS observes. t is not freed while the
// point is open: the owner frees a piece only after closing, and a grain
// that panics or calls Goexit closes the point first thing in iterate's
// deferred function. The join made by the cut is an ordinary split's: the
// owner's part arrives as its left child, the cut part as its right, so
// ReduceRange still combines in index order, and a stop (panic, error)
// reaches the cut part as it reaches a stolen half.
//
// Kicks. A cut point is seen only by a worker that looks, and a worker
// that parked before the call began does not: For over 1,000 items whose
// first took 20 ms, called on a pool idle for 20 ms, took 30.6 ms, the
// first item alone before anything was offered. Pushing work wakes a
// sleeper (notify); publishing a first grain kicks one (Pool.kick, the
// protocol in sleep.go): the worker scans once, cuts if the grain is still
// running (it is older than cutAgeNs by the time a woken worker looks), and
// otherwise parks again without spinning. With the kick the same loop took
// 20.6 ms. A kick costs the owner a channel send that wakes a thread: with
// no limit a loop of 1,000 cheap items, which kicked whenever its worker
// had parked again, took 1,135 ns instead of 729 (1.6x). So a pool kicks at
// most once per kickEveryNs (1 ms: that loop runs about 1,000 times in
// between); and not at GOMAXPROCS 1 or while the Ps are saturated
// (saturation.go), where a woken worker could only take a P from the owner.
//
// What it costs: the owner pays a store and a CAS per published grain: a few
// thousandths of a grain of cutMinNs or more, and 2% of a loop over 1,000
// cheap items, whose one published grain is its first (the call's cost is
// not known then). Thieves look at cut points only after every deque was
// empty.

import (
	"math/bits"
	"runtime"
	"sync/atomic"
)

const (
	cutMinNs = 10_000         // a grain expected to take this long is published
	cutAgeNs = splitMinNs     // a grain cut must have run this long
	cutMaxN  = int64(1) << 62 // no weighted arithmetic overflows below this

	kickEveryNs = 1_000_000 // at most one kick per pool in this time
)

// The states of a cut point.
const (
	cutClosed int32 = iota
	cutOpen
	cutCutting
)

// cutPoint is a slot's offer of the rest of the piece it runs (see above).
type cutPoint struct {
	state  atomic.Int32
	t      *task // the piece, while open; owner-written while closed
	next   int64 // the first index after the running grain
	opened int64 // cputicks at the grain's start
	core   *loopCore
	frame  pieceRunner
}

// openCut publishes the rest of piece t after its grain [cur, next), about
// to start at tick t0, if that grain may be long (see above): a piece's
// first grain while the call's cost is unknown, not the next ones (a tiny
// loop never measures its cost: its grains are too short to be believed,
// and publishing each cost it 8%), or a grain expected to take cutMinNs.
// A first grain also kicks a parked worker to look at it (kick).
func (c *loopCore) openCut(s *slot, t *task, pc *pacer, frame pieceRunner, cur, next, t0 int64) {
	if s.cut.t != nil || next >= int64(t.hi) {
		return
	}
	if first := pc.costIters == 0 && cur == int64(t.lo); first || c.longGrain(pc, cur, next) {
		s.cut.open(t, c, frame, next, t0)
		if first {
			c.pool.kick(t0)
		}
	}
}

// kick wakes a parked worker for the first grain of a piece, just
// published at tick now, when nobody spins to see it (see "Kicks" above).
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

// longGrain reports whether the grain [cur, next) is expected to take
// cutMinNs or more at the pacer's measured cost.
func (c *loopCore) longGrain(pc *pacer, cur, next int64) bool {
	return pc.costAtLeast(c.units(cur, next), thresholds.Load().cutMin)
}

func (cp *cutPoint) open(t *task, c *loopCore, frame pieceRunner, next, t0 int64) {
	cp.t, cp.next, cp.opened, cp.core, cp.frame = t, next, t0, c, frame
	cp.state.Store(cutOpen)
}

// closeCut closes s's cut point if piece t opened it, waiting for a thief
// that is cutting. t's fields are the owner's again afterwards.
func (s *slot) closeCut(t *task) {
	if s.cut.t == t {
		s.cut.close()
	}
}

func (cp *cutPoint) close() {
	for i := 0; !cp.state.CompareAndSwap(cutOpen, cutClosed); i++ {
		if i < 64 {
			spinPause(1)
		} else {
			// The thief was descheduled in the middle of its cut: on a
			// pool wider than GOMAXPROCS it may need this P to finish.
			runtime.Gosched()
		}
	}
	cp.t, cp.core, cp.frame = nil, nil, nil
}

// cutFrom tries to cut the rest of the piece running on v, for s to run;
// with tree != 0 only a piece of that call tree.
func (s *slot) cutFrom(v *slot, tree uint64) *task {
	cp := &v.cut
	if v == s || cp.state.Load() != cutOpen || !cp.state.CompareAndSwap(cutOpen, cutCutting) {
		return nil
	}
	var r *task
	t, c := cp.t, cp.core
	hi := int64(t.hi)
	if c.pool == s.pool && (tree == 0 || t.tree.Load() == tree) && hi > cp.next &&
		cputicks()-cp.opened >= thresholds.Load().cutAge && c.worthCutting(cp.next, hi) {
		mid := cp.next
		if hi-mid >= 2 {
			mid = int64(c.midpoint(int(mid), int(hi)))
		}
		r = c.detach(s, t, cp.frame, cp.frame.splitJoin(s), int(mid))
	}
	cp.state.Store(cutOpen)
	if r != nil {
		s.stats.steals.Add(1)
		r.frame.noteThief(s.id)
	}
	return r
}

// worthCutting reports whether [lo, hi) is worth a split at the call's
// published cost per iteration; while none is published (no split yet), the
// grain's own age says the work is not tiny, and it is.
func (c *loopCore) worthCutting(lo, hi int64) bool {
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
