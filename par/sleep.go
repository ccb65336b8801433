package par

// The sleep and wake protocol is written down in par/internal/sleep.

import (
	"sync/atomic"

	"github.com/parloop/parloop/par/internal/platform"
)

// notify is called after pushing a task. Two atomic loads on the fast path.
func (p *Pool) notify() {
	if p.sleep.ShouldWake() {
		p.maybeResize()
		p.sleep.Wake(1, false)
	}
}

// tryStartSpinning admits the caller as a spinner if fewer than half the
// active workers and half the Ps (at least one) spin already.
func (p *Pool) tryStartSpinning(l *layout) bool {
	limit := int32(max(1, min(l.active, l.procs)/2))
	if p.exp.AllSpin {
		limit = int32(max(1, min(l.active, l.procs)))
	}
	return p.sleep.TryStartSpinning(limit)
}

// stopSpinning is called by a spinner that found work: it passes the
// wake-up on.
func (p *Pool) stopSpinning() {
	p.sleep.StopSpinning()
	p.notify()
}

// park puts s (a worker, or a slot in helpUntil) to sleep (the protocol's
// three steps; done, if not nil, also ends it; tree, if not 0, is the only
// tree s may take from) and returns a task the re-check found, and woken
// (a waker counted s as spinning). After a kick s goes through the steps
// again, whose re-check also sees what the kick's token displaced (done,
// Close).
func (s *slot) park(done *atomic.Bool, tree uint64) (t *task, woken bool) {
	p := s.pool
	for {
		p.sleep.List(&s.sleeper)
		t = s.findWork(tree)
		if t != nil || (done != nil && done.Load()) || (s.worker && p.closed.Load()) || (done == nil && s.retiring()) {
			return t, p.sleep.Unlist(&s.sleeper)
		}
		s.dropBoxes()
		t0 := platform.Ticks()
		s.sleeper.Wait()
		s.stats.IdleNs.Add(platform.TicksToNs(platform.Ticks() - t0))
		kicked := s.sleeper.Kicked()
		if woken = p.sleep.Unlist(&s.sleeper); woken || !kicked {
			return nil, woken
		}
	}
}

// retiring reports whether s is a worker that a GOMAXPROCS decrease took
// out of service (its run loop parks it in retired).
func (s *slot) retiring() bool {
	return s.worker && int(s.id) >= s.pool.layout.Load().active
}
