package par

// Workers: the worker loop, helping while waiting, and the workers' side
// of the sleep and wake protocol (written down in par/internal/sleep):
// spinning, parking, notify.

import (
	"sync/atomic"

	"github.com/parloop/parloop/par/internal/counters"
	"github.com/parloop/parloop/par/internal/platform"
	"github.com/parloop/parloop/par/internal/sleep"
)

// run is a worker's main loop: pop or steal a task and run it, else spin
// and park (below); until the pool is closed and the deque is empty.
func (s *slot) run() {
	p := s.pool
	for {
		if p.closed.Load() && s.tasks.Len() == 0 {
			s.busy(false)
			return
		}
		var t *task
		if s.retiring() {
			t = s.retired()
		} else if t = s.findWork(0); t == nil {
			s.busy(false)
			t = s.idle()
		}
		if t != nil {
			s.busy(true)
			s.execute(t)
		}
	}
}

// retired returns a retiring worker's next own task, or parks it outside
// the sleeper list (nobody waits on it; resizeLocked or Close post its token).
func (s *slot) retired() *task {
	if t := s.popLocal(); t != nil {
		return t
	}
	s.busy(false)
	if !s.pool.closed.Load() {
		s.sleeper.Wait()
	}
	return nil
}

// busy counts a worker's busy time in stretches, from a task found after
// idling to the next idle spell: a clock read and an atomic add a task would
// cost a small task more than its pop. It publishes the time and the pieces
// when a stretch ends and every 64 pieces, so Stats lags a worker by no more.
func (s *slot) busy(running bool) {
	if s.busySince != 0 && (!running || s.unflushedPieces >= 64) {
		s.flushStats(counters.Since(s.busySince, &s.pool.statsFrom))
		s.busySince = 0
	}
	if running && s.busySince == 0 {
		s.busySince = platform.Ticks()
	}
}

// idle spins (if allowed), then parks until there is work. It returns a
// task, or nil to re-check the state (closed, retired, a stale token).
func (s *slot) idle() *task {
	p := s.pool
	l := p.layout.Load()
	spinning := !p.exp.NoBackoff && (p.exp.SpinForever || !l.busyElsewhere(platform.Ticks())) && p.tryStartSpinning(l)
	for {
		if spinning {
			if t := s.spin(); t != nil {
				p.stopSpinning()
				return t
			}
			p.sleep.StopSpinning()
		}
		if p.closed.Load() || s.retiring() {
			return nil
		}
		t, woken := s.park(nil, 0)
		if t == nil && woken {
			t = s.findWork(0)
		}
		if t != nil {
			if woken {
				p.stopSpinning()
			}
			return t
		}
		if !woken || p.exp.NoBackoff {
			if woken {
				p.sleep.StopSpinning()
			}
			return nil
		}
		spinning = true // a waker counted us as spinning: search a while
	}
}

// spin scans for work for a bounded time (par/internal/sleep).
func (s *slot) spin() *task {
	for i := 0; i < sleep.SpinRounds || s.pool.exp.SpinForever; i++ {
		if t := s.findWork(0); t != nil {
			return t
		}
		if s.pool.closed.Load() {
			return nil
		}
		platform.Pause(sleep.SpinPauses)
	}
	return nil
}

// execute runs t under its call tree and pprof labels, then restores the
// slot's (read before: t is freed when it returns).
func (s *slot) execute(t *task) {
	tree, quiet := s.tree, s.quiet
	s.tree, s.quiet = t.tree.Load(), false
	labels := platform.ProfLabel()
	if t.labels != labels {
		platform.SetProfLabel(t.labels)
	}
	switch t.kind {
	case taskPiece:
		t.frame.runPiece(s, t)
	case taskFork:
		s.runFork(t)
	default:
		s.runSpawned(t)
	}
	s.tree, s.quiet = tree, quiet
	if platform.ProfLabel() != labels {
		platform.SetProfLabel(labels)
	}
}

// findWork pops a task or steals one (of tree only, if not 0); nil if
// every deque looked empty.
func (s *slot) findWork(tree uint64) *task {
	if t := s.popLocal(); t != nil {
		return t
	}
	return s.steal(-1, tree)
}

// helpUntil runs other work of s's call tree (steal.go) until done is set:
// its own deque first, then steals, first from the slot in thief, likely to
// hold the subtasks of the task it stole (leapfrogging). With no such work
// it spins sleep.SpinRounds rounds, then parks with done as its wake
// condition, so that pushed work wakes it too; whoever sets done then posts
// a token.
//
// A task it runs may call runtime.Goexit, which ends this goroutine but
// must not end the wait: a caller, or a deferred function unwinding a
// call, relies on done being set once helpUntil is left, even so. So the
// deferred call goes on helping until done is set.
func (s *slot) helpUntil(done *atomic.Bool, thief *atomic.Int32) {
	defer func() {
		if !done.Load() {
			s.helpUntil(done, thief)
		}
	}()
	spins := 0
	for !done.Load() {
		t := s.popLocal()
		if t == nil {
			t = s.steal(thief.Load()-1, s.tree)
		}
		if t != nil {
			s.execute(t)
			spins = 0
			continue
		}
		if spins < sleep.SpinRounds {
			spins++
			platform.Pause(sleep.SpinPauses)
			continue
		}
		spins = 0
		t, woken := s.park(done, s.tree)
		if woken {
			s.pool.stopSpinning()
		}
		if t != nil {
			s.execute(t)
		}
	}
}

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
		s.clearBoxes()
		t0 := platform.Ticks()
		s.sleeper.Wait()
		s.stats.IdleNs.Add(platform.TicksToNs(counters.Since(t0, &p.statsFrom)))
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
