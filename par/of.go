package par

// The Of forms: loops and reductions that pass an argument to their body
// instead of letting it capture one, for recursion.
//
// A body closure that captures the node it works on escapes with the call
// (a frame keeps it for thieves), so every node's closure is allocated,
// with every variable it captures. An Of form takes a function that
// captures nothing and the argument, and copies both into a box kept by a
// task from the seat's free list for the length of the call (a stack: a
// recursion takes the same task back at the same depth, box and all, as
// fork.go's forks do); the job holds the box as an ofRunner. So a nested
// Of call allocates nothing whatever the argument's type, once each depth
// has been reached once. A call from a goroutine without a seat allocates
// its box.
//
// A call its verb runs itself (parallelism 1, or nested on a slot that
// offers work, with no options) needs no box: route.go's direct.
//
// Leaves. ForOf and ReduceRangeOf test for a leaf (n <= 0, no options) in
// a body small enough for the compiler to inline into their callers, so
// that a recursion's leaves (seven nodes in eight of the deep published
// tree) cost no call, which would copy the argument and the functions
// once more. Go inlines a function whose cost is at most 80;
// ReduceRangeOf's test costs 80, and a look at the functions or at
// len(opts) would take it over (go build -gcflags=-m), so a call over no
// items does not look at its functions. .ci/run checks that the walks in
// of_test.go inline both; the figures are in docs/DESIGN.md, "How a call
// runs".

import (
	"sync/atomic"
	"unsafe"

	"github.com/parloop/parloop/par/internal/box"
)

// ofRunner runs an Of call's body over [lo, hi): the loop's indices, or the
// reduction's leaf.
type ofRunner[T any] interface {
	runRange(lo, hi int, stop *atomic.Bool) T
}

// forOfBox holds ForOf's body and argument.
type forOfBox[A any] struct {
	body func(A, int)
	arg  A
}

func (b *forOfBox[A]) runRange(lo, hi int, stop *atomic.Bool) none {
	for i := lo; i < hi; i++ {
		if stop != nil && stop.Load() {
			break
		}
		b.body(b.arg, i)
	}
	return none{}
}

// reduceOfBox holds ReduceRangeOf's leaf and argument, and keeps the frame
// of its last framed call for the next (frame.go).
type reduceOfBox[A, T any] struct {
	leaf  func(A, int, int) T
	arg   A
	frame *frame[T]
}

func (b *reduceOfBox[A, T]) runRange(lo, hi int, _ *atomic.Bool) T { return b.leaf(b.arg, lo, hi) }

// ofTag says which box type a task holds (compared as a fork compares its
// runners, box.Same); it is never run.
type ofTag[Box any] struct{}

func (ofTag[Box]) Run(unsafe.Pointer) { panic("par: an Of call's box run as a fork") }

func (ofTag[Box]) Clear(p unsafe.Pointer) { *(*Box)(p) = *new(Box) }

// takeBox returns a box of type Box, run by r, for a call or a spawn on
// the calling goroutine's seat s, and the task that keeps it (nil without a
// seat: a new box).
func takeBox[Box any](s *slot, r box.Runner) (*task, *Box) {
	if s == nil {
		return nil, new(Box)
	}
	t := s.newTask()
	if t.box != nil && box.Same(t.run, r) {
		return t, (*Box)(t.box)
	}
	bx := new(Box)
	t.box, t.run = unsafe.Pointer(bx), r
	return t, bx
}

// giveBox gives back the task that keeps a box, after its call, on the
// seat it was taken from: the goroutine's, which a call does not change.
func giveBox(t *task) {
	if t != nil {
		t.home.recycleTask(t)
	}
}

// ForOf calls body(arg, i) exactly once for each i in [0, n), in parallel:
// For for recursion. body should be a function that captures nothing (a
// top-level function), and arg what it works on, so that a recursive walk
//
//	func visit(n *Node, i int) { ...; par.ForOf(len(n.Kids[i].Kids), n.Kids[i], visit) }
//
// allocates nothing per node, where a closure over the node would be
// allocated at every call, with what it captures. A call over no items
// (n <= 0) with no options returns at once, in its caller: the compiler
// inlines that test, so a recursion's leaves cost no call, and body is not
// looked at, as slices.SortFunc does not look at cmp with fewer than two
// elements; with n > 0 a nil body panics. Otherwise as For.
func ForOf[A any](n int, arg A, body func(arg A, i int), opts ...Option) {
	if n > 0 || opts != nil { // a leaf returns here, inlined (the file's comment)
		forOf(n, arg, body, opts)
	}
}

// forOf is ForOf past its leaves: there is something to do, or options to
// check. A call that runs whole on its seat runs here; any other, boxed.
func forOf[A any](n int, arg A, body func(arg A, i int), opts []Option) {
	mustBody("ForOf", "body", body == nil)
	s, d := callerSeat(opts)
	from := 0
	if d && n > 0 { // n <= 0 gets here only with opts empty but not nil
		if _, from = direct(s, n, forOfBox[A]{body: body, arg: arg}, forOfWhole[A], none{}, nil); from == n {
			return
		}
	}
	forOfBoxed(s, from, n, arg, body, opts)
}

// forOfBoxed is ForOf over [from, n) through the scheduler, its body and
// argument in a box on seat s (the caller's, or nil).
func forOfBoxed[A any](s *slot, from, n int, arg A, body func(arg A, i int), opts []Option) {
	sp, _ := makeSpec("ForOf", loopOptions, opts, n)
	if n <= 0 {
		return
	}
	sp.seat, sp.looked, sp.from = s, true, from
	t, bx := takeBox[forOfBox[A]](s, ofTag[forOfBox[A]]{})
	defer giveBox(t)
	bx.body, bx.arg = body, arg
	run(&sp, &job[none]{of: bx}, n)
	*bx = forOfBox[A]{}
}

// ReduceRangeOf is ReduceRange for recursion: leaf(arg, lo, hi) folds the
// piece [lo, hi) of what arg holds, as ForOf passes its argument. A walk
// that counts a tree's nodes,
//
//	func count(n Node) int { return 1 + par.ReduceRangeOf(n.Kids(), n, 0, countKids, add) }
//	func countKids(n Node, lo, hi int) int {
//		s := 0
//		for i := lo; i < hi; i++ {
//			s += count(n.Child(i))
//		}
//		return s
//	}
//
// allocates nothing per node. A call over no items (n <= 0) with no
// options returns identity at once, in its caller, as ForOf returns;
// with n > 0 a nil leaf or combine panics. Otherwise as ReduceRange.
func ReduceRangeOf[A, T any](n int, arg A, identity T, leaf func(arg A, lo, hi int) T, combine func(a, b T) T, opts ...Option) T {
	if n > 0 || opts != nil { // a leaf returns here, inlined (the file's comment)
		return reduceRangeOf(n, arg, identity, leaf, combine, opts)
	}
	return identity
}

// reduceRangeOf is ReduceRangeOf past its leaves: there is something to do,
// or options to check. A call that runs whole on its seat runs here; any
// other, boxed.
func reduceRangeOf[A, T any](n int, arg A, identity T, leaf func(arg A, lo, hi int) T, combine func(a, b T) T, opts []Option) T {
	mustBody("ReduceRangeOf", "leaf function", leaf == nil)
	mustBody("ReduceRangeOf", "combine function", combine == nil)
	s, d := callerSeat(opts)
	var head T
	from := 0
	if d && n > 0 { // as in forOf
		if head, from = direct(s, n, arg, leaf, identity, combine); from == n {
			return head
		}
	}
	return reduceRangeOfBoxed(s, from, n, arg, head, identity, leaf, combine, opts)
}

// reduceRangeOfBoxed is ReduceRangeOf over [from, n) through the scheduler,
// head on its left, its leaf and argument in a box on seat s (the caller's,
// or nil).
func reduceRangeOfBoxed[A, T any](s *slot, from, n int, arg A, head, identity T, leaf func(arg A, lo, hi int) T, combine func(a, b T) T, opts []Option) T {
	sp, deterministic := makeSpec("ReduceRangeOf", reduceOptions, opts, n)
	if n <= 0 {
		return identity
	}
	sp.seat, sp.looked, sp.from = s, true, from
	t, bx := takeBox[reduceOfBox[A, T]](s, ofTag[reduceOfBox[A, T]]{})
	defer giveBox(t)
	bx.leaf, bx.arg = leaf, arg
	var out T
	if deterministic {
		out = reduceOfDeterministic(sp, n, identity, bx, combine)
	} else {
		out = reduceJob(&sp, n, head, identity, &job[T]{of: bx, combine: combine, frames: &bx.frame})
	}
	bx.leaf, bx.arg = nil, *new(A)
	return out
}

// reduceOfDeterministic is ReduceRangeOf with Deterministic: a call of its
// own, with its own copy of sp, so that ReduceRangeOf's stays on the stack.
func reduceOfDeterministic[A, T any](sp spec, n int, identity T, bx *reduceOfBox[A, T], combine func(a, b T) T) T {
	return reduceDeterministic(&sp, n, identity, func(lo, hi int) T { return bx.leaf(bx.arg, lo, hi) }, combine)
}
