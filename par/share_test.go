package par

import (
	"testing"
)

// A standalone slot of a pool that never starts: pushes, pops and steals
// on it run on the test's goroutine only. solo says whether the pool has
// no worker threads. The split deque's rules have their own tests
// (par/internal/splitdeque); these test what par adds: the stamps.
func shareSlot(t *testing.T, solo bool) *slot {
	t.Helper()
	p := NewPool(Workers(2))
	t.Cleanup(p.Close)
	p.solo.Store(solo)
	return newSlot(p, 0, true)
}

func idTask(id int) *task { return &task{kind: taskFork, lo: id} }

// pushForkTask pushes t as fork and spawn do.
func (s *slot) pushForkTask(t *task) {
	if !s.tasks.Push(t, s.pool.solo.Load()) {
		s.pushFork(t)
	}
}

// TestShareStamps: a fork's task gets s's call tree as it is shared, not
// while it is private; a spawned task keeps the tree it was stamped with
// at spawn, even when shared under another.
func TestShareStamps(t *testing.T) {
	s := shareSlot(t, false)
	s.tree = 7
	a, b, c := idTask(1), idTask(2), idTask(3)
	sp := &task{kind: taskSpawn, lo: 4}
	sp.tree.Store(5)
	s.pushForkTask(a) // nothing public: shared at once
	if a.tree.Load() != 7 {
		t.Fatalf("a task shared at once has tree %d, want 7", a.tree.Load())
	}
	s.pushForkTask(b)
	s.pushForkTask(sp)
	s.pushForkTask(c)
	if b.tree.Load() != 0 || c.tree.Load() != 0 {
		t.Fatal("a private task was stamped")
	}
	s.tasks.Ask()
	s.pushPublic(idTask(5)) // shares b, sp and c first
	if b.tree.Load() != 7 || c.tree.Load() != 7 {
		t.Fatalf("shared tasks have trees %d, %d; want 7", b.tree.Load(), c.tree.Load())
	}
	if sp.tree.Load() != 5 {
		t.Fatalf("a shared spawned task has tree %d, want its own, 5", sp.tree.Load())
	}
	if s.tasks.Private() != 0 || s.tasks.Public().Len() != 5 || s.tasks.Asked() {
		t.Fatalf("after pushPublic: private %d, public %d, asked %v; want 0, 5, false",
			s.tasks.Private(), s.tasks.Public().Len(), s.tasks.Asked())
	}
}

// TestStealLoneTask: the wait for young tasks (steal.go) delays a steal of
// a victim's only task but does not prevent it; with two tasks the oldest
// goes at once.
func TestStealLoneTask(t *testing.T) {
	v := shareSlot(t, false)
	thief := newSlot(v.pool, 1, true)
	a, b := idTask(1), idTask(2)
	v.pushPublic(a)
	if x := thief.stealFrom(v, 0, true); x != a {
		t.Fatalf("steal of a lone task that stays = %v, want task 1", x)
	}
	v.pushPublic(a)
	v.pushPublic(b)
	if x := thief.stealFrom(v, 0, true); x != a {
		t.Fatalf("steal with two tasks = %v, want the oldest, task 1", x)
	}
	if x := thief.stealFrom(v, 0, true); x != b {
		t.Fatalf("steal = %v, want task 2", x)
	}
	if x := thief.stealFrom(v, 0, true); x != nil || !v.tasks.Asked() {
		t.Fatalf("steal from an empty slot = %v, want %v; want nil and the victim asked", x, v.tasks.Asked())
	}
}
