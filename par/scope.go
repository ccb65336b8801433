package par

// Scopes: tasks that spawn tasks.
//
// Counting. What is unfinished is counted in a tree, so that tasks on many
// workers do not all write one word. A task spawned while a task of the
// same scope is the spawner's seat's running task (spawning) is counted in
// that task, plainly while it runs: in its spawned, which only its runner
// touches. Each such task subtracts 1 from the task's open when it has
// finished, and the task's end adds spawned, leaving in open those not
// finished: before the end, open has only gone down from 0, so no finish
// can see 0 there. A task that spawns k makes up to k+1 atomics for them,
// one that spawns none makes none; fewer when a seat runs siblings one
// after another (runSpawned), whose subtractions it makes as one, at the
// end of the run. Any other task (spawned from the body, from a loop's
// body on a seat running no task of the scope, or from a goroutine with
// no seat) is counted in the scope's pending, with the body
// (1 from the start; on a seat, the body runs as a task, so what it spawns
// there is counted in it), and so is every task spawned by one maxCountLevel
// counts up from pending (level), so that a chain of tasks each spawning
// the next keeps at most that many finished tasks waiting for the last,
// not the whole chain. Go counts the task before it queues it, and cannot
// come too late: the spawning task is still running on the spawner's
// stack, and has not made its end's addition. A task is done when it has
// returned and counted none, or when its open drops to 0 after its end;
// whoever finds it done frees it and subtracts 1 from the count above it
// (a run of siblings, their number at once: later, never sooner), and
// whoever brings pending to 0 wakes the owner (the scope's caller).
// The owner returns once it sees 0: every task's subtraction comes after
// everything the task did, each count's last subtraction comes after all
// the others on it and before its own from the count above, and the
// owner's load that sees 0 comes after the last of those (sync/atomic is
// sequentially consistent), so all of it happens before the scope returns.
//
// Where a task waits to run:
//   - on a seat of the scope's pool: Go pushes it onto the deque of the
//     seat the calling goroutine runs on (the owner's own seat for the body,
//     a worker's for a task it runs), stamped with that seat's call tree, so
//     thieves and the waiting owner (helpUntil) take it as any other work
//     of the tree. It goes on the seat's private stack as a fork's task
//     does (par/internal/splitdeque), stamped at once: unlike a fork's, it
//     may still be there once its pusher has returned to a loop under
//     another tree, and sharing it then must not restamp it. Every loop
//     that waits or looks for work pops its own seat's tasks first, private
//     ones included.
//   - in the scope's queue (a stack under mu), which the owner runs while
//     it waits: with Blocking, where goroutines started for the scope run
//     it too, one for each token of the blocking budget (blocking.go) a Go
//     can take (limit less the owner's own, or what is left of the budget
//     of the blocking call the scope is nested in); without a seat (the
//     pool is closed or every guest seat is held); and for a Go from a
//     goroutine that has no seat on the pool.
// Either way a task is queued, not run by Go: a chain of tasks each
// spawning the next runs in constant stack. A ScopeOf's task on a seat
// holds its spawner and argument in a box instead of a function (of.go's
// boxes: the task keeps it on the free list for the next spawn of its
// type); in the scope's queue it is a closure.
//
// Waking the owner: wakeOwner stores wake, then posts a token to the
// owner's seat (or to ch without one). The owner clears wake, runs what is
// queued, checks pending, and waits for wake (helpUntil or ch): a Go or a
// finish that it missed set wake after the clear, so it does not sleep
// through it; stale tokens only cost a loop (par/internal/sleep).
//
// Stopping: the first panic, Goexit or error stores stop, and ScopeErr's
// context done counts as stop (stop.go's failure); from then on tasks are
// still taken and counted but their functions do not start, and a Go does
// not queue. A Goexit (in the body, or in a task the owner ran) unwinds the
// scope's call, whose deferred function waits, taking only from the
// owner's own deque (unwinding), for the stopped tasks still out.

import (
	"context"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/parloop/parloop/par/internal/budget"
	"github.com/parloop/parloop/par/internal/platform"
)

// Spawner spawns the tasks of a Scope. Its Go may be called from the
// scope's body and from its tasks, while the scope has not returned.
type Spawner struct{ scope }

// ErrSpawner spawns the tasks of a ScopeErr, as Spawner does those of a
// Scope, with tasks that return errors.
type ErrSpawner struct{ scope }

// Scope calls body with a Spawner, and returns once body and every task
// spawned through the Spawner (by body, or by other tasks) have returned.
// Tasks run in parallel on the pool's workers, with no goroutine each;
// the caller runs tasks too while it waits. It is what a WaitGroup with a
// goroutine per task becomes when tasks discover more tasks: walking a
// tree, crawling a graph, draining a channel. A task is queued, not run by
// Go, so a chain of tasks each spawning the next runs in constant stack.
//
// Tasks must not wait for each other (one receiving what another sends):
// tasks may run one after another on one goroutine. Tasks may call every
// verb, Scope included. If body or a task panics, no
// task starts from then on (running ones finish), and once all have
// returned Scope panics with a *PanicError holding the first value (Lo and
// Hi are -1: tasks have no index). A Goexit stops it the same way, then
// ends the caller's goroutine. With Blocking(limit), for tasks that wait on
// I/O or locks, tasks run on at most limit goroutines, the caller's
// included, shared with the blocking calls nested in them (see Blocking);
// otherwise Scope takes the On option.
func Scope(body func(s *Spawner), opts ...Option) {
	mustBody("Scope", "body", body == nil)
	sp, _ := makeSpec("Scope", scopeOptions, opts, 0)
	s := new(Spawner)
	runScope(&sp, &s.scope, func() { body(s) }, nil)
}

// Go spawns a task that calls f. It panics if f is nil, or if the Scope
// that made s has returned.
func (s *Spawner) Go(f func()) {
	if f == nil {
		panic("par: Spawner.Go called with a nil function")
	}
	spawn[struct{}](&s.scope, f, nil, nil, struct{}{})
}

// ScopeErr is Scope for tasks that may fail: the first error a task or
// body returns cancels the context given to body and stops new tasks from
// starting, and ScopeErr returns it once every running task has returned.
// ctx is looked at before each task: once it is done none starts, and
// ScopeErr returns ctx.Err() unless an error came first. Panics as Scope;
// ScopeErr panics if ctx is nil.
func ScopeErr(ctx context.Context, body func(ctx context.Context, s *ErrSpawner) error, opts ...Option) error {
	if ctx == nil {
		panic("par: ScopeErr called with a nil context")
	}
	mustBody("ScopeErr", "body", body == nil)
	sp, _ := makeSpec("ScopeErr", scopeOptions, opts, 0)
	if err := ctx.Err(); err != nil {
		return err
	}
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s := new(ErrSpawner)
	sc := &s.scope
	sc.done, sc.cancel = cctx.Done(), cancel
	runScope(&sp, sc, nil, func() error { return body(cctx, s) })
	if _, err := sc.outcome(); err != nil {
		return err
	}
	return ctx.Err() // stopped by ctx: some tasks may not have run
}

// Go spawns a task that calls f; its error stops the scope (see ScopeErr).
// It panics if f is nil, or if the ScopeErr that made s has returned.
func (s *ErrSpawner) Go(f func() error) {
	if f == nil {
		panic("par: ErrSpawner.Go called with a nil function")
	}
	spawn[struct{}](&s.scope, nil, f, nil, struct{}{})
}

// SpawnerOf spawns the tasks of a ScopeOf: each calls the scope's task
// function on the argument given to Go.
type SpawnerOf[A any] struct {
	scope
	task func(s *SpawnerOf[A], arg A)
}

// ScopeOf is Scope for tasks that all call one function, task, on an
// argument: s.Go(arg) spawns task(s, arg). A task keeps arg in place of the
// closure that Scope's Go would take, so that spawning allocates nothing
// once the pool's tasks have their boxes (as ForOf's do), where a closure
// per task is an allocation that also brings the collector round sooner.
// It is the form for a worklist: a crawl spawning each node it finds, a
// walk spawning each child. Except for how tasks are given, ScopeOf is
// Scope, with the same guarantees and options; with Blocking, or without a
// seat on the pool, each task is queued as a closure.
func ScopeOf[A any](body func(s *SpawnerOf[A]), task func(s *SpawnerOf[A], arg A), opts ...Option) {
	mustBody("ScopeOf", "body", body == nil)
	mustBody("ScopeOf", "task", task == nil)
	sp, _ := makeSpec("ScopeOf", scopeOptions, opts, 0)
	s := &SpawnerOf[A]{task: task}
	runScope(&sp, &s.scope, func() { body(s) }, nil)
}

// Go spawns a task that calls the scope's task function on arg. It panics
// if the ScopeOf that made s has returned.
func (s *SpawnerOf[A]) Go(arg A) {
	spawn(&s.scope, nil, nil, s, arg)
}

// spawnOfBox is the box of a ScopeOf's task (see runSpawned), kept by the task
// for the next spawn of its type (of.go's takeBox).
type spawnOfBox[A any] struct {
	s   *SpawnerOf[A]
	arg A
}

// spawnOfRunner runs a *spawnOfBox[A].
type spawnOfRunner[A any] struct{}

func (spawnOfRunner[A]) Run(p unsafe.Pointer) {
	b := (*spawnOfBox[A])(p)
	b.s.task(b.s, b.arg)
}

func (spawnOfRunner[A]) Clear(p unsafe.Pointer) { *(*spawnOfBox[A])(p) = spawnOfBox[A]{} }

// scope is a Scope's state, shared by its owner and its tasks.
type scope struct {
	pending  atomic.Int64   // the body and the tasks not yet finished (see above)
	pool     *Pool          // nil: no seat, every task queued
	owner    *slot          // the owner's seat, or nil
	ownerKey uintptr        // the owner's goroutine key, if it has a seat: its Go finds the seat without a lookup
	blocking int            // Blocking's limit, or 0
	bud      *budget.Budget // Blocking: the goroutines the scope may start
	wake     atomic.Bool    // the owner has something to look at
	ch       chan struct{}
	thief    atomic.Int32 // id+1 of the last slot that stole a task

	failure // stop, the first panic and the first error (stop.go)

	// ScopeErr: the bodies' context's Done and cancel.
	done   <-chan struct{}
	cancel context.CancelFunc

	mu    sync.Mutex
	queue []queued // a stack: the newest task runs first, as from a deque
}

// queued is a task in the scope's queue: one of fn and efn.
type queued struct {
	fn  func()
	efn func() error
}

// runScope runs the scope's body (one of fn and efn) on the caller, then
// waits for its tasks; it re-raises the first panic or Goexit.
func runScope(sp *spec, sc *scope, fn func(), efn func() error) {
	var s *slot
	guest := false
	if sp.blocking > 0 {
		sc.blocking = sp.blocking
		if sc.bud = budget.Here(); sc.bud == nil {
			// The scope's own budget; the owner, which runs tasks too,
			// holds one token, and its nested blocking calls spend it.
			sc.bud = budget.New(sp.blocking - 1)
			sc.bud.Hold()
			defer budget.Release()
		}
	} else {
		s, guest, sc.pool = enter(sp.pool, seatOf(platform.GoroutineKey()))
	}
	sc.owner = s
	if s == nil {
		sc.ch = make(chan struct{}, 1)
	} else {
		sc.ownerKey = platform.GoroutineKey()
	}
	var tc traced
	tc.startTrace(sp.verb, 0, s, nil)
	defer tc.End()
	var t0 int64
	if guest {
		t0 = platform.Ticks()
	}
	sc.pending.Store(1)
	returned := false
	defer func() {
		if !returned { // a Goexit, in the body or in a task run while waiting
			if guest {
				defer releaseGuest(s, t0)
			}
			defer s.restore(s.unwinding())
			sc.fail(goexitError, sc.cancel)
			sc.wait(s)
		}
	}()
	if s != nil { // the body runs as a task of the seat's, counted in pending
		t := s.newTask()
		t.kind, t.scope, t.fn, t.efn, t.level = taskSpawn, sc, fn, efn, 0
		s.runSpawned(t)
	} else {
		sc.run(fn, efn) // the body, counted in pending from the start
	}
	sc.wait(s)
	returned = true
	if guest {
		releaseGuest(s, t0)
	}
	if pe, _ := sc.outcome(); pe != nil {
		raise(pe)
	}
}

// spawn queues a task (see above) for one of fn and efn or, if of is not
// nil, for of's task function on arg, which the task keeps in a box (see
// runSpawned); Spawner and ErrSpawner call it with A struct{}.
func spawn[A any](sc *scope, fn func(), efn func() error, of *SpawnerOf[A], arg A) {
	var s *slot  // the seat it goes on; nil: the queue
	var up *task // the running task it is counted in; nil: pending
	if sc.pool != nil {
		k := platform.GoroutineKey()
		if s = sc.owner; k != sc.ownerKey || s.visiting != nil {
			if s = seatOf(k); s != nil && s.pool != sc.pool {
				s = nil
			}
		}
		if s != nil {
			if r := s.spawning; r != nil && r.scope == sc && r.level < maxCountLevel {
				up = r
			}
		}
	}
	if up == nil && sc.pending.Add(1) == 1 {
		sc.pending.Add(-1)
		verb := "Spawner"
		if efn != nil {
			verb = "ErrSpawner"
		} else if of != nil {
			verb = "SpawnerOf"
		}
		panic("par: " + verb + ".Go called after its scope returned, or on a " + verb + " no scope made")
	}
	if sc.stopped(sc.done) {
		if up == nil {
			sc.finish(1)
		}
		return
	}
	if s != nil { // up, if any, runs on s
		var t *task
		if of == nil {
			t = s.newTask()
			t.fn, t.efn = fn, efn
		} else {
			var bx *spawnOfBox[A]
			t, bx = takeBox[spawnOfBox[A]](s, spawnOfRunner[A]{})
			bx.s, bx.arg = of, arg
		}
		t.kind, t.scope, t.up, t.level = taskSpawn, sc, up, 0
		if up != nil {
			t.level = up.level + 1
			up.spawned++ // up runs on this goroutine (see above)
		}
		s.stamp(t, platform.ProfLabel())
		if !s.tasks.Push(t, s.pool.solo.Load()) { // private, the fast path, if P2 allows
			s.pushFork(t)
		}
		return
	}
	if of != nil {
		fn = func() { of.task(of, arg) }
	}
	sc.mu.Lock()
	sc.queue = append(sc.queue, queued{fn, efn})
	sc.mu.Unlock()
	if sc.blocking > 0 && sc.bud.Take(1) == 1 {
		sc.bud.Go(sc.runQueue)
	} else {
		sc.wakeOwner()
	}
}

// runSpawned runs a spawned task taken from a deque, as s's spawning task
// while it runs, then counts it finished; then, while the newest task on
// s's private stack is a sibling of the one it ran (counted in the same
// count, under the same call tree and labels), it takes that and does the
// same. Siblings finished in such a run subtract from the count above them
// once, at the run's end (pay): a subtraction made later, never one made
// too early. The deferred function is that end whichever way a task's
// function left, returning, panicking or calling Goexit; like fork.go's
// unwind, it recovers itself, one deferred call for the run where a
// catcher would add two a task.
func (s *slot) runSpawned(t *task) {
	sc, up, below, labels := t.scope, t.up, s.spawning, t.labels
	var owed int64 // siblings done here, not yet subtracted from the count above
	defer func() {
		if t != nil { // t's function panicked or called Goexit: recorded, and t ends as any task
			sc.stop.Store(true) // before the stack is taken (catcher.catch)
			sc.fail(recovered(recover(), -1, -1), sc.cancel)
			owed += s.endTask(t)
		}
		s.spawning = below
		s.pay(sc, up, owed)
	}()
	for {
		s.unflushedPieces++
		s.spawning = t
		if !sc.stopped(sc.done) {
			switch {
			case t.fn != nil:
				t.fn()
			case t.efn != nil:
				if err := t.efn(); err != nil {
					sc.setErr(err, sc.cancel)
				}
			default:
				t.run.Run(t.box)
			}
		}
		owed += s.endTask(t) // t may be freed: not read again
		x := s.tasks.Newest()
		if x == nil || x.kind != taskSpawn || x.up != up || x.scope != sc || x.labels != labels ||
			x.tree.Load() != s.tree || !s.tasks.TakeNewest(x) {
			t = nil
			return
		}
		t = x
	}
}

// maxCountLevel bounds how many tasks counted each in the one before can
// be waiting for the last: a task at this level counts what it spawns in
// the scope's pending, and starts a new run of levels (see above).
const maxCountLevel = 63

// endTask counts t's own run finished. If t is done, it counted no task,
// or its open dropped to 0 (see above), endTask frees it and returns 1,
// the subtraction from the count above it that its caller owes; else 0.
func (s *slot) endTask(t *task) int64 {
	if t.spawned == 0 || t.open.Add(t.spawned) == 0 {
		s.freeSpawned(t)
		return 1
	}
	return 0
}

// freeSpawned frees a spawned task that is done.
func (s *slot) freeSpawned(t *task) {
	t.up, t.spawned = nil, 0
	s.freeTask(t)
}

// pay subtracts n finished tasks from the count they were counted in, up's
// open or (up nil) the scope's pending, going on up while that brings a
// count to 0: that task is done too, and is freed and subtracted from the
// count above it (see above).
func (s *slot) pay(sc *scope, up *task, n int64) {
	if n == 0 {
		return
	}
	for up != nil && up.open.Add(-n) == 0 {
		t := up
		up, n = t.up, 1
		s.freeSpawned(t)
	}
	if up == nil {
		sc.finish(n)
	}
}

// run runs a task (or the body) unless the scope has stopped, then counts
// it finished.
func (sc *scope) run(fn func(), efn func() error) {
	if !sc.stopped(sc.done) {
		sc.call(fn, efn, sc.failed)
	}
	sc.finish(1)
}

// call calls one of fn and efn, recording efn's error as the scope's
// failure; it hands a panic or Goexit to failed, which records it and, for
// a Goexit, which goes on past the caller, does what the caller would have
// done after the call.
func (sc *scope) call(fn func(), efn func() error, failed func(*PanicError)) {
	c := catcher{lo: -1, hi: -1}
	defer c.catch(&sc.stop, failed)
	if fn != nil {
		fn()
	} else if err := efn(); err != nil {
		sc.setErr(err, sc.cancel)
	}
	c.returned = true
}

// failed is call's failed for run: it records the panic or Goexit of a
// queued task (or the body); a Goexit also counts it finished, as run does
// not go on to.
func (sc *scope) failed(pe *PanicError) {
	sc.fail(pe, sc.cancel)
	if pe.goexit {
		sc.finish(1)
	}
}

// finish counts n tasks (or the body) finished; the last wakes the owner.
func (sc *scope) finish(n int64) {
	if sc.pending.Add(-n) == 0 {
		sc.wakeOwner()
	}
}

// wakeOwner tells the owner to look again (see above).
func (sc *scope) wakeOwner() {
	sc.wake.Store(true)
	if sc.owner != nil {
		sc.owner.sleeper.Signal()
	} else if sc.ch != nil {
		select {
		case sc.ch <- struct{}{}:
		default:
		}
	}
}

// wait runs or waits for the scope's tasks until none is unfinished. A
// task it runs may call Goexit, which must not end the wait (helpUntil):
// the deferred call goes on waiting.
func (sc *scope) wait(s *slot) {
	defer func() {
		if sc.pending.Load() != 0 {
			sc.wait(s)
		}
	}()
	for {
		sc.wake.Store(false)
		sc.runQueue()
		if sc.pending.Load() == 0 {
			return
		}
		if s != nil {
			s.helpUntil(&sc.wake, &sc.thief)
			continue
		}
		for !sc.wake.Load() {
			<-sc.ch
		}
	}
}

// pop takes the newest queued task; ok is false if there is none.
func (sc *scope) pop() (q queued, ok bool) {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	n := len(sc.queue) - 1
	if n < 0 {
		return q, false
	}
	q, sc.queue[n] = sc.queue[n], queued{}
	sc.queue = sc.queue[:n]
	return q, true
}

// runQueue runs queued tasks until the queue is empty: the owner while it
// waits, and the goroutines a Blocking scope starts, each of which then
// gives its token back (budget.Go). A task queued after such a goroutine
// looked wakes the owner, which runs it if no goroutine could be started.
func (sc *scope) runQueue() {
	for {
		q, ok := sc.pop()
		if !ok {
			return
		}
		sc.run(q.fn, q.efn)
	}
}
