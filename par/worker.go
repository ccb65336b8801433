package par

import (
	"sync/atomic"

	"github.com/parloop/parloop/par/internal/platform"
)

// run is a worker's main loop: take work (own deque, then steal), run it,
// and when there is none, spin briefly and park (sleep.go). It returns when
// the pool is closed and the worker's deque is empty.
func (s *slot) run() {
	p := s.pool
	for {
		if p.closed.Load() && s.localLen() == 0 {
			return
		}
		if s.retiring() {
			s.retired()
			continue
		}
		t := s.findWork(0)
		if t == nil {
			t = s.idle()
		}
		if t != nil {
			s.runTop(t)
		}
	}
}

// retired parks a worker that a GOMAXPROCS decrease took out of service,
// after it has run what is left in its own deque. Thieves never wait on it,
// and resizeLocked or Close post its token.
func (s *slot) retired() {
	if t := s.popLocal(); t != nil {
		s.runTop(t)
		return
	}
	if !s.pool.closed.Load() {
		<-s.wake
	}
}

// idle spins (if allowed) and then parks until there is work. It returns a
// task, or nil when the worker should re-check its state (closed, retired,
// or a stale token).
func (s *slot) idle() *task {
	p := s.pool
	l := p.layout.Load()
	spinning := !p.exp.noBackoff && (p.exp.spinForever || !l.busyElsewhere(platform.Ticks())) && p.tryStartSpinning(l)
	for {
		if spinning {
			if t := s.spin(); t != nil {
				p.stopSpinning()
				return t
			}
			p.sleep.nSpinning.Add(-1)
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
		if !woken || p.exp.noBackoff {
			if woken {
				p.sleep.nSpinning.Add(-1)
			}
			return nil
		}
		spinning = true // a waker counted us as spinning: search a while
	}
}

// spin scans for work for a bounded time (sleep.go).
func (s *slot) spin() *task {
	for i := 0; i < spinRounds || s.pool.exp.spinForever; i++ {
		if t := s.findWork(0); t != nil {
			return t
		}
		if s.pool.closed.Load() {
			return nil
		}
		platform.Pause(spinPauses)
	}
	return nil
}

// runTop runs a task taken at the top of the worker loop and accounts its
// time as busy.
func (s *slot) runTop(t *task) {
	t0 := platform.Ticks()
	s.execute(t)
	s.stats.busyNs.Add(platform.TicksToNs(platform.Ticks() - t0))
	s.flushStats()
}

// execute runs one task, under its call tree and its pprof labels, and
// restores the slot's afterwards. t is freed by the time the task returns,
// so what is restored was read before.
func (s *slot) execute(t *task) {
	tree := s.tree
	s.tree = t.tree.Load()
	labels := platform.ProfLabel()
	if t.labels != labels {
		platform.SetProfLabel(t.labels)
	}
	if t.kind == taskPiece {
		t.frame.runPiece(s, t)
	} else {
		s.runFork(t)
	}
	s.tree = tree
	if platform.ProfLabel() != labels {
		platform.SetProfLabel(labels)
	}
}

// findWork returns a task from the slot's own deque or stolen from another
// slot of the pool; nil if every deque looked empty. tree, if not 0,
// restricts stealing to that call tree (a waiting slot, see steal.go).
func (s *slot) findWork(tree uint64) *task {
	if t := s.popLocal(); t != nil {
		return t
	}
	return s.steal(-1, tree)
}

// helpUntil runs other work of its own call tree until done is set (for a
// fork's task, or a call's completion): its own deque first, then steals,
// trying the slot recorded in thief first (leapfrogging: the thief of our
// task is likely to hold its subtasks); nothing of another tree
// (isolation, steal.go). With no such work it spins spinRounds rounds of
// PAUSE, then parks with done as its wake condition, so that work pushed
// meanwhile wakes it too. Whoever sets done posts a token to this slot
// afterwards (sleep.go).
func (s *slot) helpUntil(done *atomic.Bool, thief *atomic.Int32) {
	spins := 0
	for !done.Load() {
		if t := s.popLocal(); t != nil {
			s.execute(t)
			spins = 0
			continue
		}
		if t := s.steal(thief.Load()-1, s.tree); t != nil {
			s.execute(t)
			spins = 0
			continue
		}
		if spins < spinRounds {
			spins++
			platform.Pause(spinPauses)
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
