package par

import "unsafe"

// The fork-join protocol: Invoke and Join here, Both and BothOf, the forks
// with results, in both.go.
//
// The fork fast path, on a slot s: push a task for g, run f inline, pop. If
// the pop returns g's task, nobody stole it: run g inline too. The push goes
// to s's private stack when thieves can see a task of s's already, else to
// its deque (share.go); either way no allocation (tasks come from s's free
// list) and no shared write beyond s's own deque. If g's task was stolen, s runs
// other work until the thief sets done (helpUntil: own deque, then steals,
// trying the thief first), and its thread parks only when there is no work
// anywhere.
//
// Why "pop after f" finds g's task or nothing: everything f pushed above it
// was taken back (or completed) before f returned, and thieves take from
// the other end, so when g's task is gone every older task is gone too. f
// may also have run g's task itself while helping inside a nested wait;
// done tells that case apart, and is checked first.
//
// The protocol is written out three times: join2 (Join, two-way Invoke),
// bothOn (Both) and BothOf. Each differs only in how f and g are called
// and where g's result goes, and writing BothOf out rather than calling
// bothOn with closures was measured at 28.1 -> 23.6 ns per empty fork. The
// three share take, unwindJoin, joinTask and stolenResult, and one test
// table (fork_test.go) runs every case (inline, stolen, panics in f, g or
// both, Goexit in f or g, on a worker and on a guest) through all of them.
//
// Panics and Goexit (panic.go). Each copy has one deferred function, which
// does nothing on the fast path (phase == joinDone). If f or g panics or
// calls Goexit, it joins g's task if it is still out (running it inline or
// waiting for its thief), so that no task is left behind that refers to
// this frame; then it re-panics with the first panic (g's loses to f's), or
// lets a Goexit go on unwinding.

// runFunc runs an Invoke task taken from a deque (by its pusher or a thief).
// After done is set the task belongs to its waiter again: nothing here
// touches it afterwards. A panic or a Goexit in the function is recorded in
// t.pe by the deferred function, which also sets done: on Goexit, that is
// the last thing this goroutine does for the task before it dies.
func (s *slot) runFunc(t *task) {
	s.unflushedPieces++
	w := t.waiter
	if w != s {
		defer endRegion(stolenFork(s))
	}
	returned := false
	defer func() {
		if !returned {
			t.pe = recovered(recover())
		}
		t.done.Store(true)
		if w != s {
			w.signal()
		}
	}()
	if t.kind == taskValue {
		t.value.run(t)
	} else {
		t.fn()
	}
	returned = true
}

// forkTask pushes a task for fn on s and returns it (see newForkTask and
// pushForkTask).
func (s *slot) forkTask(fn func(), value valueRunner, public bool) *task {
	t := s.newForkTask(fn, value)
	s.pushForkTask(t, public)
	return t
}

// newForkTask returns a task for fn, not yet pushed: a Both task when value
// is not nil (fn is then a func() B or a func(Y) B, see both.go), else an
// Invoke task.
func (s *slot) newForkTask(fn func(), value valueRunner) *task {
	var t *task
	if k := s.nFreeTasks - 1; k >= 0 { // newTask's fast path, by hand
		s.nFreeTasks = k
		t = s.freeTasks[k]
	} else {
		t = s.newTask()
	}
	t.kind = taskFunc
	if value != nil {
		t.kind = taskValue
		// The same Both call site forks the same type each time: skip
		// the store (two words, a write barrier) when nothing changes.
		if old, nw := (*[2]unsafe.Pointer)(unsafe.Pointer(&t.value)), (*[2]unsafe.Pointer)(unsafe.Pointer(&value)); old[0] != nw[0] || old[1] != nw[1] {
			t.value = value
		}
	}
	t.fn = fn
	if t.waiter != s { // a recycled task usually has it already: no write barrier
		t.waiter = s
	}
	return t
}

// joinTask completes the fork of t after the inline work: run t inline if
// it was not stolen, else wait for its thief. It frees t and returns t's
// panic (a Both result is dropped: joinTask serves Invoke and panic paths).
func (s *slot) joinTask(t *task) *PanicError {
	if s.take(t) {
		if t.kind == taskValue {
			pe := catch(func() { t.value.run(t) }, func() { s.freeFuncTask(t) })
			s.freeFuncTask(t)
			return pe
		}
		fn := t.fn
		s.recycleTask(t) // before fn runs: see join2
		return catch(fn, nil)
	}
	pe := t.pe
	s.freeFuncTask(t)
	return pe
}

// freeFuncTask recycles an Invoke, Both or BothOf task. Only the fields
// that a run through a thief sets (done, thief, pe, resp) need clearing; the rest is
// overwritten by forkTask. fn is left in place: clearing it would be a
// second pointer write per fork, each one a GC write barrier while the
// collector marks (which, for a program that forks a lot, is much of the
// time). The closure stays reachable until the task is reused or the slot
// goes idle (dropClosures), and a slot keeps at most maxFree tasks.
func (s *slot) freeFuncTask(t *task) {
	if t.done.Load() {
		t.done.Store(false)
		t.thief.Store(0)
		t.pe = nil
		t.resp = nil
	}
	s.recycleTask(t) // forkTask took t from s, so s is its home
}

// join2 runs f inline and g inline or on a thief. The fast path (g not
// stolen) has one deferred call and no recover: a panic is handled in the
// deferred function, which still joins g before re-panicking, so no task is
// left behind and the first panic wins.
func (s *slot) join2(f, g func()) {
	t := s.forkTask(g, nil, false)
	phase := joinForked
	defer func() {
		if phase != joinDone {
			s.unwindJoin(t, phase, recover())
		}
	}()
	f()
	if s.take(t) {
		s.recycleTask(t) // before g runs: g's forks reuse t at the same index, and Push skips the slot store
		phase = joinInline
		g()
		phase = joinDone
		return
	}
	phase = joinDone
	pe := t.pe
	s.freeFuncTask(t)
	if pe != nil {
		raise(pe)
	}
}

// The phases of a join, for its deferred panic handler.
const (
	joinForked = iota // f runs, g's task is in the deque or with a thief
	joinInline        // g runs inline, its task recycled
	joinDone          // returned normally
)

// take takes back g's task t after f has returned. It reports true when
// t was not stolen: t is the caller's again, to run g inline and recycle t.
// Else it waits (running other work) until the thief has run g, and t,
// holding g's result and panic, is the caller's to read and free.
func (s *slot) take(t *task) bool {
	var x *task
	if n := s.nPriv - 1; n >= 0 && s.priv[n] == t && !s.want.Load() {
		// The fast path: t is on top of the private stack (so not done:
		// only a pop takes it off) and no thief asks for work.
		s.nPriv = n
		x = t
	} else if t.done.Load() {
		return false // s ran t itself, while f waited for something
	} else {
		x = s.popLocal()
	}
	if x == t {
		s.unflushedPieces++
		return true
	}
	if x != nil {
		panic("parloop: deque order broken in join")
	}
	s.helpUntil(&t.done, &t.thief)
	return false
}

// unwindJoin is a join's abnormal path: f (phase joinForked) or g (phase
// joinInline) panicked with r, or called Goexit (r == nil). It joins g's
// task if it is still out, then re-panics with the first panic (g's own
// panic loses to f's), or returns so that the Goexit goes on.
func (s *slot) unwindJoin(t *task, phase int, r any) {
	pe := recovered(r)
	if phase == joinForked {
		s.joinTask(t)
	}
	if !pe.goexit {
		panic(pe)
	}
}

// invokeN runs fns[0] inline and forks the others, fns[1] last so it is
// popped first.
func (s *slot) invokeN(fns []func()) {
	const stackTasks = 8
	var buf [stackTasks]*task
	ts := buf[:0]
	if len(fns)-1 > stackTasks {
		ts = make([]*task, 0, len(fns)-1)
	}
	for i := len(fns) - 1; i >= 1; i-- {
		ts = append(ts, s.forkTask(fns[i], nil, true))
	}
	joinAll := func() (pe *PanicError) {
		for i := len(ts) - 1; i >= 0; i-- {
			if pe2 := s.joinTask(ts[i]); pe == nil {
				pe = pe2
			}
		}
		return pe
	}
	pe := catch(fns[0], func() { s.joinEach(ts) })
	if pe2 := joinAll(); pe == nil {
		pe = pe2
	}
	if pe != nil {
		raise(pe)
	}
}

// joinEach joins every task of ts, last first, as invokeN's joinAll does,
// on the abnormal path: each next join runs from a deferred call, so that a
// Goexit in a task run inline (every function of the Invoke may call it)
// does not leave the rest unjoined, and the caller still exits only after
// all have returned. Their panics are dropped: the first one is already
// unwinding.
func (s *slot) joinEach(ts []*task) {
	n := len(ts)
	if n == 0 {
		return
	}
	defer s.joinEach(ts[:n-1])
	s.joinTask(ts[n-1])
}

// runSerial runs fns one after another on the caller, finishing all of them
// even if some panic, and re-panics the first panic. A Goexit in one ends
// the caller's goroutine there, as it would in a plain loop.
func runSerial(fns ...func()) {
	var pe *PanicError
	for _, fn := range fns {
		if pe2 := catch(fn, nil); pe == nil {
			pe = pe2
		}
	}
	if pe != nil {
		panic(pe)
	}
}
