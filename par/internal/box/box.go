// Package box holds the boxes a fork's task carries (par's fork.go): g,
// its argument and its result, in a Fork[Y, B], run through a zero-size
// Runner that says the box's type.
//
// A task keeps its box for the next fork of the same types: a recursion
// forks at every level with the same Y and B, so its forks allocate no
// box once each depth has one. The task stores the box as an
// unsafe.Pointer beside its Runner; a Runner is zero-size, so storing it
// in the interface allocates nothing, and two Runners are of the same type
// exactly when their interfaces' first words are equal (Same), which a
// fork checks without a call before it reuses the box.
package box

import "unsafe"

// A Runner runs the function in the box p points to, leaving its result
// there, and clears a box of its type for the GC (a task keeps its box
// while idle, cleared). Its implementations are zero-size, and each runs
// one type of box.
type Runner interface {
	Run(p unsafe.Pointer)
	Clear(p unsafe.Pointer)
}

// Fork is a fork task's box: G (or GV, for a g with no result), its
// argument and G's result.
type Fork[Y, B any] struct {
	G      func(Y) B
	GV     func(Y)
	Arg    Y
	Result B
}

// ForkRunner is the Runner of a *Fork[Y, B].
type ForkRunner[Y, B any] struct{}

// Run sets the box's Result to Call(G, GV, Arg).
func (ForkRunner[Y, B]) Run(p unsafe.Pointer) {
	bx := (*Fork[Y, B])(p)
	bx.Result = Call(bx.G, bx.GV, bx.Arg)
}

// Clear zeroes the box: its functions, argument and result.
func (ForkRunner[Y, B]) Clear(p unsafe.Pointer) { *(*Fork[Y, B])(p) = Fork[Y, B]{} }

// Call returns g(y); or calls gv(y), a g with no result; or returns y()
// when both are nil and y is a func() B (par.Both's g: a thunk made in Both
// would be a closure over its dictionary, allocated once stored in a box).
func Call[Y, B any](g func(Y) B, gv func(Y), y Y) (b B) {
	switch {
	case g != nil:
		return g(y)
	case gv != nil:
		gv(y)
		return b
	}
	return any(y).(func() B)()
}

// Same reports whether a and b have the same dynamic type (for zero-size
// Runners, equality), comparing first words without a call.
func Same(a, b Runner) bool {
	return *(*unsafe.Pointer)(unsafe.Pointer(&a)) == *(*unsafe.Pointer)(unsafe.Pointer(&b))
}
