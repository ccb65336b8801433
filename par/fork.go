package par

// The fork-join protocol, written once: fork runs f on the calling
// goroutine's slot and g(y) there or on a thief. Join, Both, BothOf and
// Invoke (a binary recursion over its functions) all go through it.
//
// The fast path, on a slot s: push a task for g, run f, take the task
// back; if take returns it, nobody stole it: run g inline. The push goes to
// s's private stack when thieves can see a task of s's already, else to its
// deque (share.go); it allocates nothing (tasks come from s's free list,
// and a task keeps its box, which holds g, y and g's result, for the next
// fork of the same types) and writes nothing shared beyond s's own deque.
// If the task was stolen, s helps (worker.go) until the thief sets done.
//
// Why take finds g's task or something s pushed after it: everything f
// pushed was taken back or completed before f returned, and thieves take
// from the other end. But s may have helped while f waited, and pushed the
// halves of pieces it stole and split, which stay in its deque if the task
// it waited for was done first: take runs those (they are of s's tree)
// until it reaches g's task or an empty deque. f may also have run g's task
// itself while helping; done tells that case apart.
//
// Panics and Goexit: the one deferred function (forkState.unwind) does
// nothing on the fast path. Otherwise it joins g's task if it is still out
// (running it, or waiting for its thief), then re-panics with the first
// panic (f's wins over g's) or lets a Goexit go on. So both functions
// always run, and the caller goes on only after both have returned.

import (
	"unsafe"

	"github.com/parloop/parloop/par/internal/platform"
)

// forkRunner runs the g of a fork's task with its argument, both in the
// task's box, leaving the result there. Its one implementation is
// callBox[Y, B], a zero-size type, so storing it allocates nothing and its
// dynamic type says the box's type.
type forkRunner interface{ run(t *task) }

// forkBox is a fork task's box: g, its argument, and its result.
type forkBox[Y, B any] struct {
	g func(Y) B
	y Y
	b B
}

type callBox[Y, B any] struct{}

func (callBox[Y, B]) run(t *task) {
	bx := (*forkBox[Y, B])(t.box)
	bx.b = call(bx.g, bx.y)
}

// call returns g(y), or y() when g is nil and y is a func() B: Both's
// functions, which fork calls so because a generic function value made in
// Both (a thunk for B) is a closure over its dictionary, allocated once
// it is stored in a box.
func call[Y, B any](g func(Y) B, y Y) B {
	if g != nil {
		return g(y)
	}
	return any(y).(func() B)()
}

// sameRunner reports whether a and b have the same dynamic type (all
// forkRunners are zero-size, so that is equality): the first word of an
// interface value, compared without a call.
func sameRunner(a, b forkRunner) bool {
	return *(*unsafe.Pointer)(unsafe.Pointer(&a)) == *(*unsafe.Pointer)(unsafe.Pointer(&b))
}

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

// fork runs f here and g(y) here or on a thief, and returns both results
// (see above). g may be nil where y is a function to call with no argument
// (call). f is a function of no argument, so that what it captures does not
// escape: fork only calls it.
func fork[Y, A, B any](s *slot, f func() A, g func(Y) B, y Y) (A, B) {
	t := s.newTask()
	var r forkRunner = callBox[Y, B]{}
	var bx *forkBox[Y, B]
	if t.box != nil && sameRunner(t.run, r) {
		bx = (*forkBox[Y, B])(t.box)
	} else {
		bx = new(forkBox[Y, B])
		t.box, t.run = unsafe.Pointer(bx), r
	}
	bx.g, bx.y = g, y
	t.kind = taskFork
	if t.waiter != s { // a recycled task usually has it already: no write barrier
		t.waiter = s
	}
	s.pushForkTask(t)
	fs := forkState{s: s, t: t}
	defer fs.unwind()
	a := f()
	if s.take(t) {
		s.recycleTask(t) // before g runs: g's forks reuse t at the same depth
		fs.phase = forkInline
		b := call(g, y)
		fs.phase = forkDone
		return a, b
	}
	fs.phase = forkDone
	pe := t.pe
	var b B
	if pe == nil {
		b = bx.b
	}
	s.freeFork(t)
	if pe != nil {
		raise(pe)
	}
	return a, b
}

// unwind is a fork's abnormal path: f (forkForked) or g (forkInline)
// panicked or called Goexit. It joins g's task if it is still out, then
// re-panics with the first panic, or lets the Goexit go on.
func (fs *forkState) unwind() {
	if fs.phase == forkDone {
		return
	}
	pe := recovered(recover(), fs.phase, fs.phase+1) // f is function 0, g function 1
	if fs.phase == forkForked {
		fs.s.joinFork(fs.t)
	}
	if !pe.goexit {
		panic(pe)
	}
}

// take takes back g's task t after f has returned (see above). It reports
// true when t was not stolen: t is the caller's again, to run g inline.
// Else it waits, running other work, until the thief has run g, and t,
// holding g's result and panic, is the caller's to read and free.
func (s *slot) take(t *task) bool {
	if n := s.nPriv - 1; n >= 0 && s.priv[n] == t && !s.want.Load() {
		// The fast path: t is on top of the private stack (so not done:
		// only a pop takes it off) and no thief asks for work.
		s.nPriv = n
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

// joinFork completes the fork of t on the abnormal path: run g inline if it
// was not stolen, else wait for its thief; g's panic is dropped (the first
// one is already unwinding). It frees t.
func (s *slot) joinFork(t *task) {
	if s.take(t) {
		c := catcher{lo: 1, hi: 2}
		defer c.catch(nil, func(*PanicError) { s.recycleTask(t) })
		t.run.run(t)
		c.returned = true
		s.recycleTask(t)
		return
	}
	s.freeFork(t)
}

// runFork runs a fork's task taken from a deque by a thief (or by its
// forker while it helped). After done is set the task belongs to its
// waiter again: nothing here touches it afterwards. A panic or a Goexit in
// g is recorded in t.pe, and done set, by the deferred function: on Goexit
// that is the last thing this goroutine does for the task.
func (s *slot) runFork(t *task) {
	s.unflushedPieces++
	w := t.waiter
	if w != s {
		defer endRegion(stolenFork(s))
	}
	c := catcher{lo: 1, hi: 2}
	defer c.catch(nil, func(pe *PanicError) {
		t.pe = pe
		finishFork(s, t, w)
	})
	t.run.run(t)
	c.returned = true
	finishFork(s, t, w)
}

func finishFork(s *slot, t *task, w *slot) {
	t.done.Store(true)
	if w != s {
		w.signal()
	}
}

// freeFork recycles a fork's task after its thief ran it. Only the fields
// a thief sets need clearing; the box stays for the next fork of its
// types (dropBoxes clears it when the slot goes idle).
func (s *slot) freeFork(t *task) {
	t.done.Store(false)
	t.thief.Store(0)
	t.pe = nil
	s.recycleTask(t)
}

// serialFork is fork without a seat (a closed pool, or every guest seat
// held): f, then g(y), on the caller, with the same rules for panics and
// Goexit.
func serialFork[Y, A, B any](f func() A, g func(Y) B, y Y) (a A, b B) {
	c := catcher{lo: 0, hi: 1}
	defer c.catch(nil, func(pe *PanicError) {
		callCaught(g, y, 1) // g still runs; f's panic wins
		if !pe.goexit {
			panic(pe)
		}
	})
	a = f()
	c.returned = true
	b, pe := callCaught(g, y, 1)
	if pe != nil {
		panic(pe)
	}
	return a, b
}

// callCaught returns g(y), or the panic it raised as function i.
func callCaught[Y, B any](g func(Y) B, y Y, i int) (B, *PanicError) {
	return caught(func() B { return call(g, y) }, i, i+1)
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
// halves on the slot the running goroutine holds (a thief runs the upper
// half on its own), or one after the other without a seat.
func invokeSpan(sp fnSpan) none {
	if len(sp.fns) == 1 {
		if _, pe := callCaught(callFunc, sp.fns[0], sp.off); pe != nil {
			panic(pe)
		}
		return none{}
	}
	mid := len(sp.fns) / 2
	left := func() none { return invokeSpan(fnSpan{sp.fns[:mid], sp.off}) }
	right := fnSpan{sp.fns[mid:], sp.off + mid}
	if s := seatOf(platform.GoroutineKey()); s != nil {
		fork(s, left, invokeSpan, right)
	} else {
		serialFork(left, invokeSpan, right)
	}
	return none{}
}
