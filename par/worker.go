package par

import (
	"sync/atomic"

	"github.com/parloop/parloop/par/internal/platform"
	"github.com/parloop/parloop/par/internal/sleep"
)

// run is a worker's main loop: pop or steal a task and run it, else spin
// and park (sleep.go); until the pool is closed and the deque is empty.
func (s *slot) run() {
	p := s.pool
	for {
		if p.closed.Load() && s.tasks.Len() == 0 {
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

// retired parks a retiring worker (nobody waits on it) once its own deque
// is empty, outside the sleeper list; resizeLocked or Close post its token.
func (s *slot) retired() {
	if t := s.popLocal(); t != nil {
		s.runTop(t)
		return
	}
	if !s.pool.closed.Load() {
		s.sleeper.Wait()
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

// runTop runs a task from the worker loop, its time counted as busy.
func (s *slot) runTop(t *task) {
	t0 := platform.Ticks()
	s.execute(t)
	s.stats.BusyNs.Add(platform.TicksToNs(platform.Ticks() - t0))
	s.flushStats()
}

// execute runs t under its call tree and pprof labels, then restores the
// slot's (read before: t is freed when it returns).
func (s *slot) execute(t *task) {
	tree := s.tree
	s.tree = t.tree.Load()
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
	s.tree = tree
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
