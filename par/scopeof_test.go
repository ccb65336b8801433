package par_test

import (
	"errors"
	"sync/atomic"
	"testing"

	"github.com/parloop/parloop/par"
)

// spawnNode is a node of spawnOfTree's tree: its depth below the root, and
// its number among its siblings' subtrees, so that each node has a key of
// its own.
type spawnNode struct {
	depth, key int
}

// spawnOfTree is the task of a ScopeOf over a tree of fan children under
// each node down to depth: it marks the node's key and spawns its
// children.
func spawnOfTree(depth, fan int, marks []atomic.Int32) func(s *par.SpawnerOf[spawnNode], n spawnNode) {
	return func(s *par.SpawnerOf[spawnNode], n spawnNode) {
		marks[n.key].Add(1)
		if n.depth == depth {
			return
		}
		for c := range fan {
			s.Go(spawnNode{n.depth + 1, n.key*fan + c + 1})
		}
	}
}

// Catches: ScopeOf tasks lost, run twice or run with another task's
// argument, on several seats, with Blocking (tasks queued as closures) and
// on a closed pool (no seat, every task queued).
func TestScopeOfRunsEveryTaskOnce(t *testing.T) {
	const depth, fan, nodes = 5, 5, 3906 // 1 + 5 + ... + 5^5
	for _, tc := range []struct {
		name string
		opts []par.Option
	}{
		{"workers=1", []par.Option{par.On(newPool(t, par.Workers(1)))}},
		{"workers=2", []par.Option{par.On(newPool(t, par.Workers(2)))}},
		{"workers=4", []par.Option{par.On(newPool(t, par.Workers(4)))}},
		{"default pool", nil},
		{"Blocking(3)", []par.Option{par.Blocking(3)}},
		{"closed pool", []par.Option{par.On(closedPool(t))}},
	} {
		marks := make([]atomic.Int32, nodes)
		par.ScopeOf(func(s *par.SpawnerOf[spawnNode]) { s.Go(spawnNode{}) }, spawnOfTree(depth, fan, marks), tc.opts...)
		for k := range marks {
			if got := marks[k].Load(); got != 1 {
				t.Errorf("%s: node %d ran %d times before ScopeOf returned, want 1", tc.name, k, got)
				break
			}
		}
	}
}

// Catches: per-task allocations in ScopeOf (a closure, a box or a task per
// Go, or boxes dropped when a seat goes idle, as the caller's does between
// scopes): the same allocations for 1 task, 1,001 and 10,001.
func TestScopeOfTaskAllocatesNothing(t *testing.T) {
	skipAllocTests(t)
	p := newPool(t, par.Workers(1))
	var sum atomic.Int64
	task := func(_ *par.SpawnerOf[[3]int], a [3]int) { sum.Add(int64(a[0] + a[1] + a[2])) }
	allocs := func(tasks int) float64 {
		return testing.AllocsPerRun(50, func() {
			par.ScopeOf(func(s *par.SpawnerOf[[3]int]) {
				for i := range tasks {
					s.Go([3]int{i, 1, 2})
				}
			}, task, par.On(p))
		})
	}
	few, many, more := allocs(1), allocs(1001), allocs(10001)
	if more-many >= 1 {
		t.Errorf("a ScopeOf of 10,001 tasks made %.1f allocations, one of 1,001 tasks %.1f: %.4f per task, want 0", more, many, (more-many)/9000)
	}
	if many-few >= 1 {
		t.Errorf("a ScopeOf of 1,001 tasks made %.1f allocations, one of 1 task %.1f: %.4f per task, want 0", many, few, (many-few)/1000)
	}
}

// Catches: a ScopeOf task's panic lost, or Scope's guarantees not holding
// for it (the first value, raised once every task has returned).
func TestScopeOfPanicReachesCaller(t *testing.T) {
	boom := errors.New("boom")
	var ran atomic.Int64
	got, panicked := catch(func() {
		par.ScopeOf(func(s *par.SpawnerOf[int]) {
			for i := range 100 {
				s.Go(i)
			}
		}, func(_ *par.SpawnerOf[int], i int) {
			ran.Add(1)
			if i == 37 {
				panic(boom)
			}
		}, par.On(newPool(t, par.Workers(2))))
	})
	pe, ok := got.(*par.PanicError)
	if !panicked || !ok {
		t.Fatalf("ScopeOf with a panicking task: recovered %v (%T), want a *par.PanicError", got, got)
	}
	if !errors.Is(pe, boom) || pe.Lo != -1 || pe.Hi != -1 {
		t.Errorf("PanicError %v with Lo %d Hi %d, want boom with -1, -1", pe, pe.Lo, pe.Hi)
	}
	if n := ran.Load(); n < 1 || n > 100 {
		t.Errorf("%d tasks ran, want between 1 and 100", n)
	}
}

// Catches: a chain of ScopeOf tasks each spawning the next growing the
// stack, and tasks nested in other verbs (a loop, a Scope) losing count.
func TestScopeOfChainsAndNests(t *testing.T) {
	n := 200_000
	if testing.Short() || raceEnabled {
		n = 20_000
	}
	p := newPool(t, par.Workers(2))
	var count atomic.Int64
	par.ScopeOf(func(s *par.SpawnerOf[int]) { s.Go(1) }, func(s *par.SpawnerOf[int], i int) {
		count.Add(1)
		if i < n {
			s.Go(i + 1)
		}
	}, par.On(p))
	if int(count.Load()) != n {
		t.Errorf("a chain of %d ScopeOf tasks ran %d", n, count.Load())
	}

	count.Store(0)
	par.For(8, func(int) {
		par.ScopeOf(func(s *par.SpawnerOf[int]) {
			for i := range 10 {
				s.Go(i)
			}
		}, func(s *par.SpawnerOf[int], i int) {
			par.Scope(func(inner *par.Spawner) {
				for range i {
					inner.Go(func() { count.Add(1) })
				}
			})
		}, par.On(p))
	}, par.On(p))
	if got := count.Load(); got != 8*45 {
		t.Errorf("ScopeOf nested in For, Scope nested in its tasks: %d tasks ran, want %d", got, 8*45)
	}
}

// Catches: ScopeOf's misuse failing later or silently.
func TestScopeOfBadInput(t *testing.T) {
	task := func(*par.SpawnerOf[int], int) {}
	var leaked *par.SpawnerOf[int]
	par.ScopeOf(func(s *par.SpawnerOf[int]) { leaked = s }, task)
	for name, tc := range map[string]struct {
		f    func()
		want string
	}{
		"nil body":     {func() { par.ScopeOf(nil, task) }, "par: ScopeOf called with a nil body"},
		"nil task":     {func() { par.ScopeOf(func(*par.SpawnerOf[int]) {}, nil) }, "par: ScopeOf called with a nil task"},
		"after return": {func() { leaked.Go(1) }, "par: SpawnerOf.Go called after its scope returned, or on a SpawnerOf no scope made"},
		"zero":         {func() { new(par.SpawnerOf[int]).Go(1) }, "par: SpawnerOf.Go called after its scope returned, or on a SpawnerOf no scope made"},
		"Grain option": {func() { par.ScopeOf(func(*par.SpawnerOf[int]) {}, task, par.Grain(4)) }, "par: ScopeOf does not take the Grain option: it applies to the loop verbs, the reductions and Fold"},
	} {
		got, panicked := catch(tc.f)
		if !panicked {
			t.Errorf("%s: no panic", name)
			continue
		}
		if s, _ := got.(string); s != tc.want {
			t.Errorf("%s: panic %q, want %q", name, got, tc.want)
		}
	}
}
