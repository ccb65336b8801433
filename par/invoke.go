package par

import "runtime/debug"

// Invoke and Join.
//
// The fork fast path, on a slot s: push a task for g, run f inline, pop. If
// the pop returns g's task, nobody stole it: run g inline too. That costs a
// push and a pop on s's own deque (no shared write beyond it) and no
// allocation: tasks come from s's free list. If g's task was stolen, s runs
// other work until the thief sets done (helpUntil: own deque, then steals,
// trying the thief first), and its thread parks only when there is no work
// anywhere.
//
// Why "pop after f" finds g's task or nothing: everything f pushed above it
// was taken back (or completed) before f returned, and thieves take from
// the other end, so when g's task is gone every older task is gone too. f
// may also have run g's task itself while helping inside a nested wait;
// done tells that case apart, and is checked first.

// newPanicError wraps a recovered value, keeping a *PanicError from a
// nested call as it is so the original stack survives.
func newPanicError(r any) *PanicError {
	if pe, ok := r.(*PanicError); ok {
		return pe
	}
	return &PanicError{Value: r, Stack: debug.Stack()}
}

// catch runs fn and returns its panic, if any.
func catch(fn func()) (pe *PanicError) {
	defer func() {
		if r := recover(); r != nil {
			pe = newPanicError(r)
		}
	}()
	fn()
	return nil
}

// runFunc runs an Invoke task taken from a deque (by its pusher or a thief).
// After done is set the task belongs to its waiter again: nothing here
// touches it afterwards.
func (s *slot) runFunc(t *task) {
	s.unflushedPieces++
	w := t.waiter
	t.pe = catch(t.fn)
	t.done.Store(true)
	if w != s {
		w.signal()
	}
}

// forkTask pushes a task for fn on s and returns it.
func (s *slot) forkTask(fn func()) *task {
	t := s.newTask()
	t.kind = taskFunc
	t.fn = fn
	if t.waiter != s { // a recycled task usually has it already: no write barrier
		t.waiter = s
	}
	s.dq.Push(t)
	s.pool.notify()
	return t
}

// joinTask completes the fork of t after the inline work: run t inline if
// it was not stolen, else wait for its thief. It frees t and returns t's
// panic.
func (s *slot) joinTask(t *task) *PanicError {
	if !t.done.Load() {
		if x := s.dq.Pop(); x == t {
			s.unflushedPieces++
			fn := t.fn
			s.freeFuncTask(t) // before fn runs: see join2
			return catch(fn)
		} else if x != nil {
			panic("parloop: deque order broken in join") // cannot happen; see above
		}
		s.helpUntil(&t.done, &t.thief)
	}
	pe := t.pe
	s.freeFuncTask(t)
	return pe
}

// freeFuncTask recycles an Invoke task. Only the fields that a run through
// a thief sets (done, thief, pe) and fn (so the closure can be collected)
// need clearing; the rest is overwritten by forkTask.
func (s *slot) freeFuncTask(t *task) {
	t.fn = nil
	if t.done.Load() {
		t.done.Store(false)
		t.thief.Store(0)
		t.pe = nil
	}
	s.recycleTask(t) // forkTask took t from s, so s is its home
}

// join2 runs f inline and g inline or on a thief. The fast path (g not
// stolen) has one deferred call and no recover: a panic is handled in the
// deferred function, which still joins g before re-panicking, so no task is
// left behind and the first panic wins.
func (s *slot) join2(f, g func()) {
	t := s.forkTask(g)
	phase := 0 // 0: f runs, t pushed; 1: g runs inline, t recycled; 2: done
	defer func() {
		if phase == 2 {
			return
		}
		pe := newPanicError(recover())
		if phase == 0 {
			s.joinTask(t) // g's own panic loses to f's
		}
		panic(pe)
	}()
	f()
	if !t.done.Load() {
		if x := s.dq.Pop(); x == t {
			// Recycle t before running g: g's own forks then reuse t at
			// the same deque index, and Push skips the slot store.
			phase = 1
			s.unflushedPieces++
			s.freeFuncTask(t)
			g()
			phase = 2
			return
		} else if x != nil {
			panic("parloop: deque order broken in join")
		}
		s.helpUntil(&t.done, &t.thief)
	}
	phase = 2
	pe := t.pe
	s.freeFuncTask(t)
	if pe != nil {
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
		ts = append(ts, s.forkTask(fns[i]))
	}
	pe := catch(fns[0])
	for i := len(ts) - 1; i >= 0; i-- {
		if pe2 := s.joinTask(ts[i]); pe == nil {
			pe = pe2
		}
	}
	if pe != nil {
		panic(pe)
	}
}

// runSerial runs fns one after another on the caller, finishing all of them
// even if some panic, and re-panics the first panic.
func runSerial(fns ...func()) {
	var pe *PanicError
	for _, fn := range fns {
		if pe2 := catch(fn); pe == nil {
			pe = pe2
		}
	}
	if pe != nil {
		panic(pe)
	}
}
