package par

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"sync/atomic"
)

// PanicError carries a body's panic to the goroutine that called the verb,
// which panics with it once every running body has returned.
type PanicError struct {
	// Value is the value the body passed to panic.
	Value any
	// Stack is the stack of the goroutine where the panic happened, as
	// printed by runtime/debug.Stack.
	Stack []byte
	// Lo and Hi are the indices whose body was running: Hi == Lo+1 where
	// the index is known (one index at a time, Blocking, and the forks:
	// Invoke's index in fns; 0 or 1 for Join, Both and BothOf), else the
	// piece or grain [Lo, Hi). Both are -1 for a panic outside the bodies
	// (a reduction's combine function).
	Lo, Hi int

	// goexit marks a body that called runtime.Goexit: the caller's
	// goroutine then exits too. Such a PanicError is never panicked.
	goexit bool
}

// Error returns the panic value, where it was raised, and its stack.
func (e *PanicError) Error() string {
	where := ""
	switch {
	case e.Hi == e.Lo+1:
		where = fmt.Sprintf(" at index %d", e.Lo)
	case e.Hi > e.Lo:
		where = fmt.Sprintf(" over [%d, %d)", e.Lo, e.Hi)
	}
	return fmt.Sprintf("par: panic in a body%s: %v\n\n%s", where, e.Value, e.Stack)
}

// Unwrap returns Value if it is an error, so errors.Is and errors.As see
// through a PanicError.
func (e *PanicError) Unwrap() error {
	if err, ok := e.Value.(error); ok {
		return err
	}
	return nil
}

// Catching panics and Goexit. Every place that runs a user's function
// defers a catcher's catch (the only recover, but for fork.go's unwind and
// scope.go's runSpawned, whose deferred ends recover themselves), and
// the call's caller re-raises what it caught once every running body has
// returned (raise): a panic's value wrapped once in a *PanicError, or
// runtime.Goexit, which cannot be stopped: the deferred function does what
// the call still needs (arrive at a join, set done, give back a seat)
// before the goroutine dies, a worker that dies so is replaced (pool.go),
// and the caller then calls Goexit itself, as t.Fatal expects.

// catcher is deferred (catch) by a function that runs user code, which
// sets returned when the code returned, and lo and hi to its indices.
type catcher struct {
	returned bool
	lo, hi   int
}

// catch does nothing if the function returned. Otherwise it stores stop
// (if not nil) before the stack is taken, then hands then the *PanicError.
func (c *catcher) catch(stop *atomic.Bool, then func(*PanicError)) {
	if c.returned {
		return
	}
	r := recover()
	if stop != nil {
		stop.Store(true)
	}
	then(recovered(r, c.lo, c.hi))
}

// goexitError is what a call records when a body called runtime.Goexit.
var goexitError = &PanicError{Value: "runtime.Goexit called in a body", Lo: -1, Hi: -1, goexit: true}

// recovered turns what a function ended with into the call's failure: a
// panic's value r raised while [lo, hi) ran, or Goexit (r == nil).
func recovered(r any, lo, hi int) *PanicError {
	if r == nil {
		return goexitError
	}
	if pe, ok := r.(*PanicError); ok {
		return pe
	}
	return &PanicError{Value: r, Stack: debug.Stack(), Lo: lo, Hi: hi}
}

// caught returns f(), or its panic as raised while [lo, hi) ran; a Goexit
// goes on.
func caught[R any](f func() R, lo, hi int) (out R, pe *PanicError) {
	c := catcher{lo: lo, hi: hi}
	defer c.catch(nil, func(p *PanicError) {
		if !p.goexit {
			pe = p
		}
	})
	out = f()
	c.returned = true
	return out, nil
}

// catchCombine returns combine(a, b), or its panic.
func catchCombine[T any](combine func(a, b T) T, a, b T) (T, *PanicError) {
	return caught(func() T { return combine(a, b) }, -1, -1)
}

// reraise panics with pe unless it is a Goexit, which goes on: the catch
// of a call run on its caller, with nothing else in flight.
func reraise(pe *PanicError) {
	if !pe.goexit {
		panic(pe)
	}
}

// raise re-raises a call's failure: a panic with pe, or runtime.Goexit.
func raise(pe *PanicError) {
	if pe.goexit {
		runtime.Goexit()
	}
	panic(pe)
}
