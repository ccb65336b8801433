package par

import (
	"math/bits"

	"github.com/parloop/parloop/par/internal/grain"
	"github.com/parloop/parloop/par/internal/platform"
)

// Isolation. A goroutine waiting for its own call (a caller in helpUntil,
// or a worker waiting inside a body for a nested call or a fork) runs only
// work of its own call tree, the root call made from outside the pool and
// every call nested in its bodies, so that a caller holding a lock across a
// call cannot run another caller's body that takes it (Rayon's issue #592).
// A root call takes a tree id from its guest seat (seats.go); every task
// carries its tree, set by its pusher before the push; a slot runs under
// its task's tree (execute), and a waiting slot steals with deque.StealIf,
// which claims the top task only if its tree matches. The top alone tells:
// a deque holds one tree's tasks at a time (a waiting slot pushes and runs
// only its tree's, and a worker between tasks, which takes any tree, pops
// its own leftovers before it steals).

// steal tries to take a task from another slot: first the slot with id
// prefer (if >= 0), then the workers in victim order, then the guest seats
// held for this pool, then the cut points (offer.go). Each slot is tried
// once, so nil means every deque looked empty (or, with tree != 0, held
// nothing of tree) when tried, as the sleep protocol's re-check needs; a
// quiet slot (stop.go, unwinding) steals nothing.
func (s *slot) steal(prefer int32, tree uint64) *task {
	if s.quiet {
		return nil
	}
	p := s.pool
	l := p.layout.Load()
	if prefer >= 0 && prefer != s.id {
		if v := l.slotByID(prefer); v != nil {
			var t *task
			if v.worker {
				t = s.stealFrom(v, tree, tree == 0)
			} else {
				t = s.stealGuest(v, tree)
			}
			if t != nil {
				return t
			}
		}
	}
	var order []int32
	var levels []int
	if int(s.id) < len(l.victims) {
		order, levels = l.victims[s.id], l.levels[s.id]
	} else if len(l.workers) > 0 {
		// A guest seat: every active worker, in one level.
		order, levels = l.allWorkers, []int{len(l.allWorkers)}
	}
	start := 0
	for _, end := range levels {
		if n := end - start; n > 0 {
			off := int(s.rand() % uint64(n))
			for k := 0; k < n; k++ {
				v := l.workers[order[start+(off+k)%n]]
				if t := s.stealFrom(v, tree, tree == 0); t != nil {
					return t
				}
			}
		}
		start = end
	}
	for m := guestTable.Held(); m != 0; m &= m - 1 {
		if t := s.stealGuest(guestTable.Seat(bits.TrailingZeros64(m)), tree); t != nil {
			return t
		}
	}
	if t := s.cutAny(l, order, tree); t != nil { // every deque was empty: the rest of a running piece (offer.go)
		return t
	}
	s.stats.FailedSteals.Add(1)
	return nil
}

// Young tasks. A task its owner takes back within a microsecond (the g of a
// fork whose f is tiny) costs more stolen than run in place. So a thief
// reads the victim's top, waits grain.YoungNs by the clock (a PAUSE's
// length varies), and steals only if top has not moved (top only grows).

// stealGuest tries guest seat g, if held for s's pool: only tasks of its
// call, and of tree if tree != 0 (seats.go says why seatTree comes first).
func (s *slot) stealGuest(g *slot, tree uint64) *task {
	seatTree := g.seatTree.Load()
	if g == s || g.guestPool.Load() != s.pool || (tree != 0 && tree != seatTree) {
		return nil
	}
	return s.stealFrom(g, seatTree, tree == 0)
}

// stealFrom tries victim v, retrying while it loses races to other
// thieves; with tree != 0 only a task of that tree. Finding v empty, it
// asks v to share its private forks if ask (par/internal/splitdeque).
func (s *slot) stealFrom(v *slot, tree uint64, ask bool) *task {
	dq := v.tasks.Public()
	if dq.Len() != 0 {
		top := dq.Top()
		t0, wait := platform.Ticks(), grain.Thresholds().Young
		for platform.Ticks()-t0 < wait {
			platform.Pause(1)
		}
		if dq.Top() != top {
			return nil // taken meanwhile: it was young, or another thief got it
		}
	}
	for {
		var t *task
		var retry bool
		if tree == 0 {
			t, retry = dq.Steal()
		} else {
			t, retry = dq.StealIf(func(t *task) bool { return t.tree.Load() == tree })
		}
		if t != nil {
			s.stats.Steals.Add(1)
			switch t.kind {
			case taskPiece:
				t.frame.base().thief.Store(s.id + 1)
			case taskFork:
				t.thief.Store(s.id + 1)
			default:
				t.scope.thief.Store(s.id + 1)
			}
			return t
		}
		if !retry {
			if ask {
				v.tasks.Ask()
			}
			return nil
		}
	}
}

// slotByID returns the worker or guest seat with the given id, or nil.
func (l *layout) slotByID(id int32) *slot {
	if id >= guestBase {
		if i := int(id) - guestBase; i < maxGuests {
			return guestTable.Seat(i)
		}
		return nil
	}
	if int(id) < len(l.workers) {
		return l.workers[id]
	}
	return nil
}
