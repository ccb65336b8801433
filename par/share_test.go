package par

import (
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
)

// A standalone slot of a pool that never starts: forks, pops and steals on
// it run on the test's goroutines only. solo says whether the pool has no
// worker threads.
func shareSlot(t *testing.T, solo bool) *slot {
	t.Helper()
	p := NewPool(Workers(2))
	t.Cleanup(p.Close)
	p.solo.Store(solo)
	return newSlot(p, 0, true)
}

func idTask(id int) *task { return &task{kind: taskFork, lo: id} }

// checkShareState checks invariant P1 of share.go against model, the
// slot's tasks oldest first: the deque holds the oldest, the private stack
// the newest, in order.
func checkShareState(t *testing.T, s *slot, model []*task) {
	t.Helper()
	if got := s.localLen(); got != len(model) {
		t.Fatalf("slot holds %d tasks, model %d", got, len(model))
	}
	priv := s.priv[:s.nPriv]
	for i, x := range priv {
		if want := model[len(model)-len(priv)+i]; x != want {
			t.Fatalf("private[%d] = task %d, want task %d (private must be the newest, in order)", i, x.lo, want.lo)
		}
	}
}

// TestShareRules walks the sharing rules of share.go step by step.
func TestShareRules(t *testing.T) {
	s := shareSlot(t, false)
	a, b, c, d := idTask(1), idTask(2), idTask(3), idTask(4)

	s.pushForkTask(a) // nothing of s's is public: offered at once
	if s.dq.Len() != 1 || s.nPriv != 0 {
		t.Fatalf("first fork: public %d, private %d; want 1, 0", s.dq.Len(), s.nPriv)
	}
	s.pushForkTask(b) // thieves have a already
	s.pushForkTask(c)
	if s.dq.Len() != 1 || s.nPriv != 2 {
		t.Fatalf("after three forks: public %d, private %d; want 1, 2", s.dq.Len(), s.nPriv)
	}
	s.ask() // a thief wants more: the next fork shares the oldest half
	s.pushForkTask(d)
	if s.dq.Len() != 3 || s.nPriv != 1 || s.want.Load() {
		t.Fatalf("fork after ask: public %d, private %d, want %v; want 3, 1, false", s.dq.Len(), s.nPriv, s.want.Load())
	}
	checkShareState(t, s, []*task{a, b, c, d})
	if x, _ := s.dq.Steal(); x != a {
		t.Fatalf("a thief took task %v, want the oldest (1)", x)
	}
	for _, want := range []*task{d, c, b, nil} {
		if x := s.popLocal(); x != want {
			t.Fatalf("pop = %v, want %v (newest first)", x, want)
		}
	}

	// A pop that finds want set shares half of what is left.
	s.pushForkTask(a)
	s.pushForkTask(b)
	s.pushForkTask(c)
	s.pushForkTask(d) // a public, b c d private
	if x, _ := s.dq.Steal(); x != a {
		t.Fatalf("steal = %v, want task 1", x)
	}
	s.ask()
	if x := s.popLocal(); x != d {
		t.Fatalf("pop = %v, want task 4", x)
	}
	if s.dq.Len() != 1 || s.nPriv != 1 || s.want.Load() {
		t.Fatalf("pop after ask: public %d, private %d, want %v; want 1, 1, false", s.dq.Len(), s.nPriv, s.want.Load())
	}
	checkShareState(t, s, []*task{b, c})

	// A public push shares everything private first, so order holds.
	s.pushPublic(d)
	if s.nPriv != 0 || s.dq.Len() != 3 {
		t.Fatalf("after pushPublic: public %d, private %d; want 3, 0", s.dq.Len(), s.nPriv)
	}
	for _, want := range []*task{d, c, b, nil} {
		if x := s.popLocal(); x != want {
			t.Fatalf("pop = %v, want %v", x, want)
		}
	}
}

// TestShareSolo: with no worker threads, forks stay private even on an
// empty deque; an ask still shares.
func TestShareSolo(t *testing.T) {
	s := shareSlot(t, true)
	a, b := idTask(1), idTask(2)
	s.pushForkTask(a)
	if s.dq.Len() != 0 || s.nPriv != 1 {
		t.Fatalf("solo fork: public %d, private %d; want 0, 1", s.dq.Len(), s.nPriv)
	}
	s.ask()
	s.pushForkTask(b)
	if s.dq.Len() != 1 || s.nPriv != 1 {
		t.Fatalf("solo fork after ask: public %d, private %d; want 1, 1", s.dq.Len(), s.nPriv)
	}
}

// TestShareOverflow: more forks than the private stack holds keep their
// order.
func TestShareOverflow(t *testing.T) {
	s := shareSlot(t, true)
	var model []*task
	for i := range 5 * privMax {
		x := idTask(i)
		s.pushForkTask(x)
		model = append(model, x)
		checkShareState(t, s, model)
	}
	for i := len(model) - 1; i >= 0; i-- {
		if x := s.popLocal(); x != model[i] {
			t.Fatalf("pop = %v, want task %d", x, i)
		}
	}
}

// TestShareModel runs random forks, public pushes, pops, steals and asks
// against a model stack: pops return the newest task, steals the oldest or
// nothing, every task is taken once, P1 holds after each step, and a slot
// whose deque is empty after a fork or an asked pop holds nothing private.
func TestShareModel(t *testing.T) {
	for seed := range uint64(200) {
		r := rand.New(rand.NewPCG(seed, 1))
		s := shareSlot(t, seed%4 == 0)
		var model []*task
		next := 0
		for range 400 {
			switch op := r.IntN(10); {
			case op < 4:
				x := idTask(next)
				next++
				wasEmpty, asked := s.dq.Len() == 0, s.want.Load()
				s.pushForkTask(x)
				model = append(model, x)
				if (asked || (wasEmpty && !s.pool.solo.Load())) && s.dq.Len() == 0 {
					t.Fatalf("seed %d: a fork that had to share left the deque empty", seed)
				}
			case op < 5:
				x := idTask(next)
				next++
				s.pushPublic(x)
				model = append(model, x)
				if s.nPriv != 0 {
					t.Fatalf("seed %d: private tasks left under a public push", seed)
				}
			case op < 7:
				x := s.popLocal()
				if len(model) == 0 {
					if x != nil {
						t.Fatalf("seed %d: pop on an empty slot returned task %d", seed, x.lo)
					}
					continue
				}
				if want := model[len(model)-1]; x != want {
					t.Fatalf("seed %d: pop = %v, want task %d", seed, x, want.lo)
				}
				model = model[:len(model)-1]
			case op < 9:
				x, _ := s.dq.Steal()
				if x == nil {
					s.ask()
					continue
				}
				if x != model[0] {
					t.Fatalf("seed %d: steal = task %d, want the oldest, %d", seed, x.lo, model[0].lo)
				}
				model = model[1:]
			default:
				s.ask()
			}
			checkShareState(t, s, model)
		}
	}
}

// TestShareConcurrent: an owner forking and popping against thieves that
// steal and ask concurrently; every task is taken exactly once. Run it
// under -race: the private stack is the owner's alone.
func TestShareConcurrent(t *testing.T) {
	const tasks = 20000
	s := shareSlot(t, false)
	taken := make([]atomic.Int32, tasks)
	var stop atomic.Bool
	var wg sync.WaitGroup
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				if x, _ := s.dq.Steal(); x != nil {
					taken[x.lo].Add(1)
				} else {
					s.ask()
				}
			}
		}()
	}
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < tasks; i++ {
		if r.IntN(8) == 0 {
			s.pushPublic(idTask(i))
		} else {
			s.pushForkTask(idTask(i))
		}
		for r.IntN(3) == 0 {
			if x := s.popLocal(); x != nil {
				taken[x.lo].Add(1)
			}
		}
	}
	for x := s.popLocal(); x != nil; x = s.popLocal() {
		taken[x.lo].Add(1)
	}
	stop.Store(true)
	wg.Wait()
	for i := range taken {
		if n := taken[i].Load(); n != 1 {
			t.Fatalf("task %d taken %d times", i, n)
		}
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
	if x := thief.stealFrom(v, 0, true); x != nil || !v.want.Load() {
		t.Fatalf("steal from an empty slot = %v, want %v; want nil and the victim asked", x, v.want.Load())
	}
}
