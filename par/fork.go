package par

// The fork-join protocol, written once: fork runs f on the calling
// goroutine's slot and g(y) there or on a thief. Join, Both, BothOf and
// Invoke (a binary recursion over its functions) all go through it.
//
// The fast path, on a slot s: push a task for g, run f, take the task
// back; if take returns it, nobody stole it: run g inline. The push goes to
// s's private stack when thieves can see a task of s's already, else to its
// deque (par/internal/splitdeque); it allocates nothing (tasks come from
// s's free list, and a task keeps its box, which holds g, y and g's
// result, for the next fork of the same types: par/internal/box) and
// writes nothing shared beyond s's own deque. If the task was stolen, s
// helps (worker.go) until the thief sets done.
//
// Why take finds g's task or something s pushed after it: everything f
// pushed was taken back or completed before f returned, and thieves take
// from the other end. But s may have helped while f waited, and pushed
// halves of pieces it stole and split, left in its deque if the task it
// waited for was done first: take runs those (of s's tree) until it
// reaches g's task or an empty deque; done tells if f ran g's task itself.
//
// Panics and Goexit: the one deferred function (forkState.unwind), idle on
// the fast path, joins g's task if it is still out (running it, or waiting
// for its thief), then re-panics with the first panic (f's over g's) or
// lets a Goexit go on: both functions run, and return before the caller.
// While it joins, the slot steals nothing (stop.go, unwinding), and a task
// it runs that calls Goexit cannot end the join (joinFork, helpUntil).

import (
	"unsafe"

	"github.com/parloop/parloop/par/internal/box"
	"github.com/parloop/parloop/par/internal/platform"
	"github.com/parloop/parloop/par/internal/tracing"
)

// The phases of a fork, for its deferred function.
const (
	forkForked = iota // f runs; g's task is in the deque or with a thief
	forkInline        // g runs inline, its task recycled
	forkDone          // returned normally
)

type forkState struct {
	s     *slot
	t     *task
	phase int
}

// fork runs f here and g(y) (or gv(y)) here or on a thief, and returns
// both results (see above); g and gv may be nil (box.Call). f takes no
// argument, so that what it captures does not escape.
func fork[Y, A, B any](s *slot, f func() A, g func(Y) B, gv func(Y), y Y) (A, B) {
	t := s.newTask()
	var r box.Runner = box.ForkRunner[Y, B]{}
	var bx *box.Fork[Y, B]
	if t.box != nil && box.Same(t.run, r) {
		bx = (*box.Fork[Y, B])(t.box)
	} else {
		bx = new(box.Fork[Y, B])
		t.box, t.run = unsafe.Pointer(bx), r
	}
	bx.G, bx.GV, bx.Arg = g, gv, y
	t.kind = taskFork
	if t.waiter != s { // a recycled task usually has it already: no write barrier
		t.waiter = s
	}
	if !s.tasks.Push(t, s.pool.solo.Load()) { // private, the fast path, if P2 allows
		s.pushFork(t)
	}
	fs := forkState{s: s, t: t}
	defer fs.unwind()
	a := f()
	if s.take(t) {
		s.recycleTask(t) // before g runs: g's forks reuse t at the same depth
		fs.phase = forkInline
		b := box.Call(g, gv, y)
		fs.phase = forkDone
		return a, b
	}
	fs.phase = forkDone
	pe := t.pe
	var b B
	if pe == nil {
		b = bx.Result
	}
	s.freeFork(t)
	if pe != nil {
		raise(pe)
	}
	return a, b
}

// unwind is a fork's abnormal path, after f (forkForked) or g
// (forkInline) panicked or called Goexit (see above).
func (fs *forkState) unwind() {
	if fs.phase == forkDone {
		return
	}
	pe := recovered(recover(), fs.phase, fs.phase+1) // f is function 0, g function 1
	if fs.phase == forkForked {
		s := fs.s
		defer s.restore(s.unwinding())
		s.joinFork(fs.t)
	}
	if !pe.goexit {
		panic(pe)
	}
}

// take takes back g's task t after f has returned (see above), reporting
// true when t was not stolen: the caller runs g inline. Else it helps until
// the thief has run g; t, with g's result and panic, is then the caller's.
func (s *slot) take(t *task) bool {
	if s.tasks.TakeNewest(t) {
		// The fast path: t is on top of the private stack (so not done:
		// only a pop takes it off) and no thief asks for work.
		s.unflushedPieces++
		return true
	}
	for !t.done.Load() {
		x := s.popLocal()
		if x == t {
			s.unflushedPieces++
			return true
		}
		if x == nil {
			s.helpUntil(&t.done, &t.thief)
			break
		}
		s.execute(x) // pushed by s above t while it helped
	}
	return false
}

// joinFork completes the fork of t on the abnormal path, as take does, and
// frees t; g's panic is dropped (the first one is already unwinding). A
// task it runs may call Goexit, which would end this deferred call: so it
// runs each with the rest of the join deferred (a Goexit in g itself needs
// nothing more than the catcher's handler).
func (s *slot) joinFork(t *task) {
	if t.done.Load() {
		s.freeFork(t)
		return
	}
	switch x := s.popLocal(); x {
	case t:
		s.unflushedPieces++
		c := catcher{lo: 1, hi: 2}
		defer c.catch(nil, func(*PanicError) { s.recycleTask(t) })
		t.run.Run(t.box)
		c.returned = true
		s.recycleTask(t)
	case nil: // stolen
		defer s.freeFork(t)
		s.helpUntil(&t.done, &t.thief)
	default: // pushed by s above t while it helped
		defer s.joinFork(t)
		s.execute(x)
	}
}

// runFork runs a fork's task taken from a deque by a thief (or by its
// forker while it helped). Once done is set the task is its waiter's again,
// and nothing here touches it. A panic or Goexit in g is recorded in t.pe,
// and done set, by the deferred function.
func (s *slot) runFork(t *task) {
	s.unflushedPieces++
	w := t.waiter
	if w != s {
		defer tracing.EndRegion(tracing.StolenFork(s.tree))
	}
	c := catcher{lo: 1, hi: 2}
	defer c.catch(nil, func(pe *PanicError) {
		t.pe = pe
		finishFork(s, t, w)
	})
	t.run.Run(t.box)
	c.returned = true
	finishFork(s, t, w)
}

func finishFork(s *slot, t *task, w *slot) {
	t.done.Store(true)
	if w != s {
		w.sleeper.Signal()
	}
}

// freeFork recycles a fork's task after its thief ran it, clearing only
// what a thief sets; the box stays (clearBoxes).
func (s *slot) freeFork(t *task) {
	t.done.Store(false)
	t.thief.Store(0)
	t.pe = nil
	s.recycleTask(t)
}

// serialFork is fork without a seat: f, then g(y) (or gv(y)), on the
// caller, with the same rules for panics and Goexit.
func serialFork[Y, A, B any](f func() A, g func(Y) B, gv func(Y), y Y) (a A, b B) {
	c := catcher{lo: 0, hi: 1}
	defer c.catch(nil, func(pe *PanicError) {
		callCaught(g, gv, y, 1) // g still runs; f's panic wins
		if !pe.goexit {
			panic(pe)
		}
	})
	a = f()
	c.returned = true
	b, pe := callCaught(g, gv, y, 1)
	if pe != nil {
		panic(pe)
	}
	return a, b
}

// callCaught returns box.Call(g, gv, y), or the panic it raised as
// function i.
func callCaught[Y, B any](g func(Y) B, gv func(Y), y Y, i int) (B, *PanicError) {
	return caught(func() B { return box.Call(g, gv, y) }, i, i+1)
}

// callFunc is Join's functions as fork calls them.
func callFunc(f func()) none {
	f()
	return none{}
}

// fnSpan is a run of Invoke's functions, off the index of the first.
type fnSpan struct {
	fns []func()
	off int
}

// invokeSpan runs sp's functions: one directly, more by forking the two
// halves on the goroutine's seat, or serially without one.
func invokeSpan(sp fnSpan) none {
	if len(sp.fns) == 1 {
		if _, pe := callCaught(callFunc, nil, sp.fns[0], sp.off); pe != nil {
			panic(pe)
		}
		return none{}
	}
	mid := len(sp.fns) / 2
	left := func() none { return invokeSpan(fnSpan{sp.fns[:mid], sp.off}) }
	right := fnSpan{sp.fns[mid:], sp.off + mid}
	if s := seatOf(platform.GoroutineKey()); s != nil {
		fork(s, left, invokeSpan, nil, right)
	} else {
		serialFork(left, invokeSpan, nil, right)
	}
	return none{}
}
