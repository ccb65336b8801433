package par

import (
	"unsafe"

	"github.com/parloop/parloop/par/internal/platform"
)

// A slot's tasks are a split deque: private forks, shared on demand
// (par/internal/splitdeque, which has the protocol).

// pushFork pushes a fork's task t, or a spawned one (scope.go), that the
// fast path (s.tasks.Push, inlined where t is made) did not keep private,
// and shares what the split deque says to.
func (s *slot) pushFork(t *task) {
	for {
		k, pushed := s.tasks.PushShare(t, s.pool.solo.Load())
		if k > 0 {
			s.share(k)
		}
		if pushed {
			return
		}
	}
}

// pushPublic pushes t where thieves can take it, after sharing everything
// private (P1), and clears want. The caller notifies.
func (s *slot) pushPublic(t *task) {
	if n := s.tasks.Private(); n > 0 {
		s.share(n)
	}
	s.tasks.PushPublic(t)
}

// popLocal pops s's newest task: private first, then the deque (P1).
func (s *slot) popLocal() *task {
	t, k := s.tasks.PopPrivate()
	if t == nil {
		return s.tasks.Public().Pop()
	}
	if k > 0 {
		s.share(k)
	}
	return t
}

// share stamps the k oldest private tasks, moves them to the deque, and
// notifies.
func (s *slot) share(k int) {
	labels := platform.ProfLabel()
	for _, t := range s.tasks.Oldest(k) {
		if t.kind != taskSpawn { // stamped when spawned, perhaps under another tree than s's now
			s.stamp(t, labels)
		}
	}
	s.tasks.Share(k)
	s.pool.notify()
}

// stamp gives a fork's task, as it is offered, what a thief needs to run
// it: its call tree (steal.go) and pprof labels; the fast path (a private
// push) reads neither. The labels are the goroutine's at the offer: a
// pprof.Do entered between the fork and the offer gives a thief the inner
// labels. The tree cannot have changed: a slot runs only its own tree's
// tasks while any of its forks are outstanding.
func (s *slot) stamp(t *task, labels unsafe.Pointer) {
	if t.tree.Load() != s.tree { // a recycled task usually has it already: no store, no fence
		t.tree.Store(s.tree)
	}
	if t.labels != labels {
		t.labels = labels
	}
}
