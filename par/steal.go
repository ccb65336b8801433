package par

import (
	"math/bits"
)

// victimOrders computes, for each of the workers placed on cpus, the other
// workers in the order it tries to steal from them, and the end offset of
// each distance level in that order. Within a level the order is
// randomised at every steal round.
func victimOrders(m *Machine, cpus []int, active int, policy VictimPolicy) ([][]int32, [][]int) {
	n := len(cpus)
	victims := make([][]int32, n)
	levels := make([][]int, n)
	for i := 0; i < n; i++ {
		var order [][]int
		if policy == VictimNearest {
			order = m.t.VictimOrder(cpus, i)
		} else {
			var all []int
			for j := 0; j < n; j++ {
				if j != i {
					all = append(all, j)
				}
			}
			order = [][]int{all}
		}
		for _, lvl := range order {
			for _, j := range lvl {
				victims[i] = append(victims[i], int32(j))
			}
			levels[i] = append(levels[i], len(victims[i]))
		}
	}
	return victims, levels
}

// steal tries to take a task from another slot of the pool: first the slot
// with id prefer (if >= 0), then the workers in the victim order, then the
// guest seats held for this pool. Every slot is tried once per call, so a
// nil result means every deque looked empty at the moment it was tried,
// which is what the sleep protocol's re-check needs.
func (s *slot) steal(prefer int32) *task {
	p := s.pool
	l := p.layout.Load()
	if prefer >= 0 && prefer != s.id {
		if v := l.slotByID(prefer); v != nil {
			if t := s.stealFrom(v); t != nil {
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
	if p.cfg.victims == VictimLongest {
		if t := s.stealLongest(l, order); t != nil {
			return t
		}
	}
	start := 0
	for _, end := range levels {
		if n := end - start; n > 0 {
			off := int(s.rand() % uint64(n))
			for k := 0; k < n; k++ {
				v := l.workers[order[start+(off+k)%n]]
				if t := s.stealFrom(v); t != nil {
					return t
				}
			}
		}
		start = end
	}
	for m := guestMask.Load(); m != 0; m &= m - 1 {
		g := guestSeats[bits.TrailingZeros64(m)]
		if g != s && g.guestPool.Load() == p {
			if t := s.stealFrom(g); t != nil {
				return t
			}
		}
	}
	s.stats.failedSteals.Add(1)
	return nil
}

// stealLongest tries the worker whose deque looks longest.
func (s *slot) stealLongest(l *layout, order []int32) *task {
	best, bestLen := -1, 0
	for _, id := range order {
		if n := l.workers[id].dq.Len(); n > bestLen {
			best, bestLen = int(id), n
		}
	}
	if best < 0 {
		return nil
	}
	return s.stealFrom(l.workers[best])
}

// Young tasks. A task that its owner takes back within a few hundred
// nanoseconds (the g of a Join whose f is tiny) costs more stolen than run
// in place: the owner then waits for the thief, and the thief pays a cache
// miss or two for a task that does nothing. So when a victim's deque holds
// a single task, a thief reads its index, waits about 200 ns, and steals
// only if the task is still there: top only grows, so an unchanged top
// means that the same task stayed. Older tasks below a newer one are not
// delayed, and a range piece, split off because somebody was hungry,
// lives at least as long as a grain, far longer. The wait is short next to
// the 10-30 µs of waking a parked worker, and a spinning thief spends it
// spinning anyway.
const youngPauses = 7 // spinPause iterations, about 30 ns each here

// stealFrom tries victim v, retrying while it loses races to other thieves
// (a lost race means the deque was not empty).
func (s *slot) stealFrom(v *slot) *task {
	if v.dq.Len() == 1 {
		top := v.dq.Top()
		spinPause(youngPauses)
		if v.dq.Top() != top {
			return nil // taken meanwhile: it was young, or another thief got it
		}
	}
	for {
		t, retry := v.dq.Steal()
		if t != nil {
			s.stats.steals.Add(1)
			if t.kind == taskRange {
				t.frame.noteThief(s.id)
			} else {
				t.thief.Store(s.id + 1)
			}
			return t
		}
		if !retry {
			v.ask()
			return nil
		}
	}
}

// slotByID returns the worker or guest seat with the given id, or nil.
func (l *layout) slotByID(id int32) *slot {
	if id >= guestBase {
		if i := int(id) - guestBase; i < maxGuests {
			return guestSeats[i]
		}
		return nil
	}
	if int(id) < len(l.workers) {
		return l.workers[id]
	}
	return nil
}
