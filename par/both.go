package par

import (
	"reflect"
	"runtime/trace"
	"unsafe"
)

// Both and BothOf: two-way forks with results.
//
// g travels in its task as a func() (a func value is one pointer whatever
// its signature), and t.value, a zero-size generic valueRunner, remembers
// g's real type, so that a thief can call it and store the result. Plain
// values (numbers, bools: no pointers, at most 16 bytes) travel in the
// task's words, single pointers (pointers, maps, chans, funcs) in its box
// field; anything else is boxed, which costs an allocation on that path
// only: g's argument at the fork, g's result when g is stolen.

// Both runs f and g, in parallel, and returns f's result and g's. It is Join
// for functions with results, and as cheap: f runs on the calling goroutine
// and does not escape, and g's result needs no variable of its own, so a
// fork whose g captures only values (n in a recursive fib) allocates just
// g's closure. Panics are handled as in Join. It takes the On option only.
func Both[A, B any](f func() A, g func() B, opts ...Option) (A, B) {
	mustBody("Both", "function", f == nil || g == nil)
	s, guest := enterFork("Both", opts)
	if s == nil {
		return bothSerial(f, g)
	}
	if guest {
		defer releaseGuest(s, cputicks()) // runs after the join's own deferred function
		if trace.IsEnabled() {
			return tracedBoth(s, f, g)
		}
	}
	t := s.newForkTask(*(*func())(unsafe.Pointer(&g)), callResult[B]{})
	s.pushForkTask(t, false)
	return bothOn(s, t, f, g)
}

// BothOf runs f(x) and g(y), in parallel, and returns their results: Both
// without closures. When f and g are functions rather than closures and y
// is a number, a bool or a single pointer (a pointer, map, chan or func), a
// fork allocates nothing, so a recursive fib or tree walk written as
//
//	a, b := par.BothOf(fib, n-1, fib, n-2)
//	l, r := par.BothOf(walk, node.Left, walk, node.Right)
//
// costs its forks and no garbage. Another y (a string, a slice, a struct)
// is copied into a box, one allocation per fork. It takes the On option
// only.
func BothOf[X, Y, A, B any](f func(X) A, x X, g func(Y) B, y Y, opts ...Option) (A, B) {
	mustBody("BothOf", "function", f == nil || g == nil)
	s, guest := enterFork("BothOf", opts)
	if s == nil {
		return bothSerial(func() A { return f(x) }, func() B { return g(y) })
	}
	if guest {
		defer releaseGuest(s, cputicks())
		if trace.IsEnabled() {
			return tracedBothOf(s, f, x, g, y)
		}
	}
	t := s.newForkTask(*(*func())(unsafe.Pointer(&g)), callArgResult[Y, B]{})
	putWords(&t.argWords, &t.argp, y)
	s.pushForkTask(t, false)
	// bothOn, written out: calling f and g directly rather than through
	// closures saves about 2 ns a fork.
	phase := joinForked
	defer func() {
		if phase != joinDone {
			s.unwindJoin(t, phase, recover())
		}
	}()
	a := f(x)
	if s.take(t) {
		s.recycleTask(t)
		phase = joinInline
		b := g(y)
		phase = joinDone
		return a, b
	}
	phase = joinDone
	return a, stolenResult[B](s, t)
}

// enterFork is enter for the forks, whose only option is On.
func enterFork(verb string, opts []Option) (s *slot, guest bool) {
	var p *Pool
	if len(opts) != 0 {
		p = mergeOptions(verb, forkOptions, opts).pool
	}
	s, guest, _ = enter(p)
	return s, guest
}

// bothOn is join2 with results: t, g's task, is pushed; run f, then take t
// back and run g inline, or wait for the thief and read its result.
func bothOn[A, B any](s *slot, t *task, f func() A, g func() B) (A, B) {
	phase := joinForked
	defer func() {
		if phase != joinDone {
			s.unwindJoin(t, phase, recover())
		}
	}()
	a := f()
	if s.take(t) {
		s.recycleTask(t)
		phase = joinInline
		b := g()
		phase = joinDone
		return a, b
	}
	phase = joinDone
	return a, stolenResult[B](s, t)
}

// stolenResult reads the result of g's task t after its thief ran it, frees
// t, and re-panics g's panic if it had one.
func stolenResult[B any](s *slot, t *task) B {
	pe := t.pe
	var b B
	if pe == nil {
		b = getWords[B](&t.resWords, t.resp)
	}
	s.freeFuncTask(t)
	if pe != nil {
		raise(pe)
	}
	return b
}

// bothSerial runs f and then g on the caller, g even if f panics, and
// re-panics the first panic.
func bothSerial[A, B any](f func() A, g func() B) (a A, b B) {
	runSerial(func() { a = f() }, func() { b = g() })
	return a, b
}

// A valueRunner runs the g of a Both or BothOf task, whose types only it
// knows, leaving the result in the task. Its caller catches panics.
type valueRunner interface {
	run(t *task)
}

// callResult[B] runs the g of a Both task. It has no fields, so storing it
// in an interface allocates nothing.
type callResult[B any] struct{}

func (callResult[B]) run(t *task) {
	g := *(*func() B)(unsafe.Pointer(&t.fn))
	putWords(&t.resWords, &t.resp, g())
}

// callArgResult[Y, B] runs the g of a BothOf task.
type callArgResult[Y, B any] struct{}

func (callArgResult[Y, B]) run(t *task) {
	g := *(*func(Y) B)(unsafe.Pointer(&t.fn))
	y := getWords[Y](&t.argWords, t.argp)
	putWords(&t.resWords, &t.resp, g(y))
}

// plain reports whether a T is one of the plain types that travel in a
// task's words (no pointers, at most 16 bytes). A type switch: about 1 ns.
func plain[T any]() bool {
	switch any((*T)(nil)).(type) {
	case *int, *int8, *int16, *int32, *int64, *uint, *uint8, *uint16, *uint32, *uint64, *uintptr,
		*float32, *float64, *complex64, *complex128, *bool:
		return true
	}
	return false
}

// pointerShaped reports whether a T is a single pointer (a pointer, map,
// chan or func), which travels in a task's box field itself. It asks
// reflect, so plain is tried first.
func pointerShaped[T any]() bool {
	switch reflect.TypeFor[T]().Kind() {
	case reflect.Pointer, reflect.UnsafePointer, reflect.Map, reflect.Chan, reflect.Func:
		return true
	}
	return false
}

// putWords stores v in words (plain), in *box (pointer-shaped), or in a
// new box at *box. The caller owns the task; whoever reads it next is
// ordered after this by the deque's Push (the argument) or by done (the
// result). Storing through *T keeps the write barrier that a
// pointer-shaped T needs.
func putWords[T any](words *[2]uint64, box *unsafe.Pointer, v T) {
	if plain[T]() {
		*(*T)(unsafe.Pointer(words)) = v
		return
	}
	if pointerShaped[T]() {
		*(*T)(unsafe.Pointer(box)) = v
		return
	}
	p := new(T)
	*p = v
	*box = unsafe.Pointer(p)
}

// getWords reads what putWords stored.
func getWords[T any](words *[2]uint64, box unsafe.Pointer) T {
	if plain[T]() {
		return *(*T)(unsafe.Pointer(words))
	}
	if pointerShaped[T]() {
		return *(*T)(unsafe.Pointer(&box))
	}
	return *(*T)(box)
}
