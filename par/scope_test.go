package par_test

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/parloop/parloop/par"
)

// spawnTree spawns a tree of tasks, fan children under each down to depth,
// from the goroutine that runs each task, and counts the tasks run.
func spawnTree(s *par.Spawner, depth, fan int, count *atomic.Int64) {
	count.Add(1)
	if depth == 0 {
		return
	}
	for range fan {
		s.Go(func() { spawnTree(s, depth-1, fan, count) })
	}
}

// Catches: tasks lost or run twice when tasks spawn tasks on several seats
// (workers, the caller's guest seat, the default pool, a private pool of
// one), and a Scope returning before its last task.
func TestScopeRunsEveryTaskOnce(t *testing.T) {
	for _, workers := range []int{1, 2, 4} {
		p := newPool(t, par.Workers(workers))
		for _, on := range []*par.Pool{p, nil} {
			var count atomic.Int64
			opts := []par.Option{}
			if on != nil {
				opts = append(opts, par.On(on))
			}
			par.Scope(func(s *par.Spawner) { spawnTree(s, 5, 6, &count) }, opts...)
			// 1 + 6 + ... + 6^5
			if got, want := count.Load(), int64(9331); got != want {
				t.Errorf("workers=%d on=%v: %d tasks ran before Scope returned, want %d", workers, on != nil, got, want)
			}
		}
	}
}

// Catches: a scope whose tasks never leave the caller (no worker takes
// one), or whose caller does not help.
func TestScopeRunsTasksOnWorkersAndCaller(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("needs two Ps")
	}
	p := newPool(t, par.Workers(2))
	g := goroutines{owner: goid()}
	task := func() {
		g.record()
		spinFor(20 * time.Microsecond)
	}
	par.Scope(func(s *par.Spawner) {
		for range 200 {
			s.Go(task)
		}
		// A worker busy elsewhere in the process (other tests, other
		// packages) may be slow to start: keep offering tasks until one
		// has run on a worker, within a liveness bound.
		for deadline := time.Now().Add(hangLimit / 3); !g.elsewhere.Load() && time.Now().Before(deadline); {
			spinFor(200 * time.Microsecond)
			for range 20 {
				s.Go(task)
			}
		}
	}, par.On(p))
	if !g.elsewhere.Load() {
		t.Error("every task ran on the caller: no worker took one")
	}
	if g.ownerRan == 0 {
		t.Error("the caller ran no task while it waited")
	}
}

// Catches: nested scopes and loops inside tasks deadlocking or losing
// work, and tasks spawned from inside a nested For's bodies.
func TestScopeNestsWithLoopsAndScopes(t *testing.T) {
	p := newPool(t, par.Workers(3))
	var count atomic.Int64
	par.Scope(func(s *par.Spawner) {
		for range 8 {
			s.Go(func() {
				par.For(50, func(i int) {
					if i%10 == 0 {
						s.Go(func() { count.Add(1) })
					}
				})
				par.Scope(func(inner *par.Spawner) {
					for range 5 {
						inner.Go(func() { count.Add(1) })
					}
				})
			})
		}
	}, par.On(p))
	if got, want := count.Load(), int64(8*5+8*5); got != want {
		t.Errorf("%d tasks ran, want %d", got, want)
	}
}

// Catches: a panic in a task lost, not wrapped, or raised before the
// other tasks returned; tasks starting long after it.
func TestScopePanicReachesCaller(t *testing.T) {
	p := newPool(t, par.Workers(2))
	var running, after atomic.Int64
	var panicked atomic.Bool
	pe := wantPanicError(t, "Scope", func() {
		par.Scope(func(s *par.Spawner) {
			for i := range 1000 {
				s.Go(func() {
					if panicked.Load() {
						after.Add(1)
					}
					running.Add(1)
					defer running.Add(-1)
					if i == 10 {
						panicked.Store(true)
						panic("boom")
					}
					spinFor(5 * time.Microsecond)
				})
			}
		}, par.On(p))
	})
	if pe.Value != "boom" || pe.Lo != -1 || pe.Hi != -1 {
		t.Fatalf("Scope panicked with %#v, want a *PanicError of \"boom\" with Lo and Hi -1", pe)
	}
	if r := running.Load(); r != 0 {
		t.Errorf("Scope panicked while %d tasks still ran", r)
	}
	if a := after.Load(); a > 2 {
		t.Errorf("%d tasks started after the panic; want at most one per worker", a)
	}
}

// Catches: a panic in the body not waiting for the tasks already running.
func TestScopeBodyPanicWaitsForTasks(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("needs two Ps: the body waits for a worker to start the task")
	}
	p := newPool(t, par.Workers(2))
	var done atomic.Int64
	started := make(chan struct{})
	pe := wantPanicError(t, "Scope", func() {
		par.Scope(func(s *par.Spawner) {
			s.Go(func() {
				close(started)
				time.Sleep(20 * time.Millisecond)
				done.Add(1)
			})
			<-started
			panic("body")
		}, par.On(p))
	})
	if pe.Value != "body" {
		t.Fatalf("Scope panicked with %#v, want the body's panic", pe)
	}
	if done.Load() != 1 {
		t.Error("Scope panicked before its running task returned")
	}
}

// Catches: a Goexit in a task (t.Fatal in a test helper) not ending the
// caller's goroutine, or ending it before the other tasks returned, and
// the pool left unusable.
func TestScopeGoexit(t *testing.T) {
	p := newPool(t, par.Workers(2))
	for _, where := range []string{"task", "body"} {
		var done atomic.Int64
		exited := make(chan bool)
		go func() {
			returned := false
			defer func() { exited <- !returned }()
			par.Scope(func(s *par.Spawner) {
				for i := range 100 {
					s.Go(func() {
						if where == "task" && i == 50 {
							runtime.Goexit()
						}
						done.Add(1)
					})
				}
				s.Go(func() { time.Sleep(10 * time.Millisecond); done.Add(1) })
				if where == "body" {
					runtime.Goexit()
				}
			}, par.On(p))
			returned = true
		}()
		if !<-exited {
			t.Errorf("%s: Scope returned after a Goexit, want the caller's goroutine to exit", where)
		}
		var count atomic.Int64
		par.Scope(func(s *par.Spawner) { spawnTree(s, 3, 4, &count) }, par.On(p))
		if count.Load() != 85 {
			t.Errorf("%s: after a Goexit, a scope ran %d tasks, want 85", where, count.Load())
		}
	}
}

// Catches: ScopeErr not returning the first error, not cancelling the
// context, tasks starting after it, and a done context not stopping it.
func TestScopeErr(t *testing.T) {
	p := newPool(t, par.Workers(2))
	errStop := errors.New("stop")
	var after atomic.Int64
	var failed atomic.Bool
	var sawCancel atomic.Bool
	err := par.ScopeErr(context.Background(), func(ctx context.Context, s *par.ErrSpawner) error {
		for i := range 1000 {
			s.Go(func() error {
				if failed.Load() {
					after.Add(1)
				}
				if i == 20 {
					failed.Store(true)
					return errStop
				}
				if ctx.Err() != nil {
					sawCancel.Store(true)
				}
				spinFor(5 * time.Microsecond)
				return nil
			})
		}
		return nil
	}, par.On(p))
	if err != errStop {
		t.Fatalf("ScopeErr = %v, want %v", err, errStop)
	}
	if a := after.Load(); a > 2 {
		t.Errorf("%d tasks started after the error; want at most one per worker", a)
	}

	err = par.ScopeErr(context.Background(), func(ctx context.Context, s *par.ErrSpawner) error {
		s.Go(func() error { <-ctx.Done(); return nil }) // returns only once the body's error cancels ctx
		return errStop
	}, par.On(p))
	if err != errStop {
		t.Errorf("ScopeErr with a failing body = %v, want %v", err, errStop)
	}

	ctx, cancel := context.WithCancel(context.Background())
	var ran atomic.Int64
	err = par.ScopeErr(ctx, func(_ context.Context, s *par.ErrSpawner) error {
		s.Go(func() error { ran.Add(1); return nil })
		cancel()
		for range 100 {
			s.Go(func() error { ran.Add(1); return nil })
		}
		return nil
	}, par.On(p))
	if err != context.Canceled {
		t.Errorf("ScopeErr after its context was cancelled = %v, want %v", err, context.Canceled)
	}
	if r := ran.Load(); r > 1 {
		t.Errorf("%d tasks ran after the context was cancelled", r-1)
	}
	if err := par.ScopeErr(ctx, func(context.Context, *par.ErrSpawner) error {
		t.Error("body ran with a done context")
		return nil
	}); err != context.Canceled {
		t.Errorf("ScopeErr with a done context = %v, want %v", err, context.Canceled)
	}
}

// Catches: Blocking scopes running more than limit tasks at once, or
// tasks spawned by tasks not counted in the one limit.
func TestScopeBlockingLimit(t *testing.T) {
	var now, peak atomic.Int64
	var count atomic.Int64
	var walk func(s *par.Spawner, depth int)
	walk = func(s *par.Spawner, depth int) {
		n := now.Add(1)
		for m := peak.Load(); n > m && !peak.CompareAndSwap(m, n); m = peak.Load() {
		}
		time.Sleep(200 * time.Microsecond)
		now.Add(-1)
		count.Add(1)
		if depth > 0 {
			for range 4 {
				s.Go(func() { walk(s, depth-1) })
			}
		}
	}
	par.Scope(func(s *par.Spawner) { s.Go(func() { walk(s, 4) }) }, par.Blocking(8))
	if count.Load() != 341 {
		t.Errorf("%d tasks ran, want 341", count.Load())
	}
	if p := peak.Load(); p > 8 || p < 2 {
		t.Errorf("%d tasks ran at once under Blocking(8); want between 2 and 8", p)
	}
}

// Catches: Go from a goroutine with no seat on the scope's pool (one the
// body started) losing its task or hanging the scope; a scope on a closed
// pool not running its tasks.
func TestScopeGoFromElsewhere(t *testing.T) {
	p := newPool(t, par.Workers(2))
	var count atomic.Int64
	par.Scope(func(s *par.Spawner) {
		var wg sync.WaitGroup
		for range 4 {
			wg.Go(func() {
				for range 100 {
					s.Go(func() { count.Add(1) })
				}
			})
		}
		wg.Wait()
	}, par.On(p))
	if count.Load() != 400 {
		t.Errorf("%d tasks from other goroutines ran, want 400", count.Load())
	}

	closed := par.NewPool(par.Workers(2))
	closed.Close()
	count.Store(0)
	par.Scope(func(s *par.Spawner) { spawnTree(s, 3, 5, &count) }, par.On(closed))
	if count.Load() != 156 {
		t.Errorf("on a closed pool: %d tasks ran, want 156", count.Load())
	}
}

// Catches: a chain of tasks, each spawning the next, growing the stack
// (run by Go instead of queued) or running out of it.
func TestScopeChainRunsInBoundedStack(t *testing.T) {
	n := 1_000_000
	if testing.Short() || raceEnabled {
		n = 50_000
	}
	p := newPool(t, par.Workers(2))
	for _, on := range []*par.Pool{p, closedPool(t)} {
		var count atomic.Int64
		var next func(s *par.Spawner, i int)
		next = func(s *par.Spawner, i int) {
			count.Add(1)
			if i < n {
				s.Go(func() { next(s, i+1) })
			}
		}
		par.Scope(func(s *par.Spawner) { next(s, 1) }, par.On(on))
		if int(count.Load()) != n {
			t.Errorf("a chain of %d tasks ran %d", n, count.Load())
		}
	}
}

func closedPool(t *testing.T) *par.Pool {
	p := par.NewPool(par.Workers(2))
	p.Close()
	return p
}

// Catches: misuse that failed later or silently: nil functions, a Go
// after the scope returned, a zero Spawner, options a scope cannot honour.
func TestScopeBadInput(t *testing.T) {
	var leaked *par.Spawner
	par.Scope(func(s *par.Spawner) { leaked = s })
	for name, tc := range map[string]struct {
		f    func()
		want string
	}{
		"nil body":     {func() { par.Scope(nil) }, "par: Scope called with a nil body"},
		"nil err body": {func() { _ = par.ScopeErr(context.Background(), nil) }, "par: ScopeErr called with a nil body"},
		"nil ctx": {func() {
			var nilCtx context.Context // the point of the test
			_ = par.ScopeErr(nilCtx, func(context.Context, *par.ErrSpawner) error { return nil })
		}, "par: ScopeErr called with a nil context"},
		"nil task":        {func() { par.Scope(func(s *par.Spawner) { s.Go(nil) }) }, "par: Spawner.Go called with a nil function"},
		"after return":    {func() { leaked.Go(func() {}) }, "par: Spawner.Go called after its scope returned, or on a Spawner no scope made"},
		"zero Spawner":    {func() { new(par.Spawner).Go(func() {}) }, "par: Spawner.Go called after its scope returned, or on a Spawner no scope made"},
		"Grain option":    {func() { par.Scope(func(*par.Spawner) {}, par.Grain(4)) }, "par: Scope does not take the Grain option: it applies to the loop verbs, the reductions and Fold"},
		"On and Blocking": {func() { par.Scope(func(*par.Spawner) {}, par.Blocking(2), par.On(par.Default())) }, ""},
	} {
		got, panicked := catch(tc.f)
		if !panicked {
			t.Errorf("%s: no panic", name)
			continue
		}
		if pe, ok := got.(*par.PanicError); ok { // a misuse inside the body
			got = rootValue(pe)
		}
		if s, _ := got.(string); tc.want != "" && s != tc.want {
			t.Errorf("%s: panic %q, want %q", name, got, tc.want)
		}
	}
}

// Catches: per-task allocations beyond the function the caller made (a
// task or a queue entry allocated per Go).
func TestScopeTaskAllocatesNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	p := newPool(t, par.Workers(1))
	var count atomic.Int64
	f := func() { count.Add(1) }
	allocs := func(tasks int) float64 {
		return testing.AllocsPerRun(50, func() {
			par.Scope(func(s *par.Spawner) {
				for range tasks {
					s.Go(f)
				}
			}, par.On(p))
		})
	}
	few, many := allocs(1), allocs(1001)
	if many-few >= 1 {
		t.Errorf("a scope of 1,001 tasks made %.1f allocations, one of 1 task %.1f: %.3f per task, want 0", many, few, (many-few)/1000)
	}
}

// peak tracks how many bodies run at once.
type peak struct{ now, max atomic.Int64 }

func (p *peak) enter() {
	n := p.now.Add(1)
	for m := p.max.Load(); n > m && !p.max.CompareAndSwap(m, n); m = p.max.Load() {
	}
}

func (p *peak) leave() { p.now.Add(-1) }

// Catches: blocking calls nested in blocking bodies or tasks each taking
// their own limit (4 x 6 x 8 goroutines where the outer call allows 4), a
// nested call with no goroutine to spare not running its bodies, and a
// nested call with limit >= n not running every body at once (its bodies
// wait for each other here).
func TestBlockingBudgetIsShared(t *testing.T) {
	var p peak
	var done atomic.Int64
	leaf := func(int) {
		p.enter()
		time.Sleep(200 * time.Microsecond)
		p.leave()
		done.Add(1)
	}
	par.For(4, func(int) {
		par.For(8, func(int) {
			par.For(30, leaf, par.Blocking(8))
		}, par.Blocking(6))
	}, par.Blocking(4))
	if done.Load() != 4*8*30 {
		t.Errorf("nested Blocking calls ran %d bodies, want %d", done.Load(), 4*8*30)
	}
	if m := p.max.Load(); m > 4 || m < 2 {
		t.Errorf("%d bodies ran at once under an outer Blocking(4), want 2 to 4", m)
	}

	par.For(2, func(int) {
		var arrived sync.WaitGroup
		arrived.Add(3)
		par.For(3, func(int) { // a barrier: every body must run at once
			arrived.Done()
			arrived.Wait()
		}, par.Blocking(3))
	}, par.Blocking(2))

	var sp peak
	done.Store(0)
	par.Scope(func(s *par.Spawner) {
		for range 6 {
			s.Go(func() {
				par.For(20, func(int) {
					sp.enter()
					time.Sleep(200 * time.Microsecond)
					sp.leave()
					done.Add(1)
				}, par.Blocking(16))
				s.Go(func() { leaf(0) })
			})
		}
	}, par.Blocking(3))
	if done.Load() != 6*20+6 {
		t.Errorf("a Blocking scope ran %d bodies, want %d", done.Load(), 6*20+6)
	}
	if m := sp.max.Load(); m > 3 {
		t.Errorf("%d bodies ran at once under a Blocking(3) scope", m)
	}
}
