package par

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

// PanicError carries a panic raised by a body to the goroutine that called the
// verb. The verb panics again with a *PanicError once every running body has
// returned.
type PanicError struct {
	// Value is the value the body passed to panic.
	Value any
	// Stack is the stack of the goroutine where the panic happened, as
	// printed by runtime/debug.Stack.
	Stack []byte

	// goexit marks a body that called runtime.Goexit (t.Fatal does): the
	// caller's goroutine then exits the same way instead of panicking. Such
	// a PanicError is never panicked, so no user code ever sees one.
	goexit bool
}

// Error returns the panic value and the stack where it was raised.
func (e *PanicError) Error() string {
	return fmt.Sprintf("parloop: panic in parallel body: %v\n\n%s", e.Value, e.Stack)
}

// Unwrap returns Value if it is an error, so errors.Is and errors.As see
// through a PanicError.
func (e *PanicError) Unwrap() error {
	if err, ok := e.Value.(error); ok {
		return err
	}
	return nil
}

// Catching panics and Goexit.
//
// Every place that runs a user's function on behalf of a call (a range
// piece, a forked task, a blocking body) catches what ends it abnormally
// and hands it to the call, whose caller re-raises it once every running
// body has returned:
//
//   - a panic: recover returns its value (never nil since Go 1.21, which
//     turns panic(nil) into *runtime.PanicNilError), wrapped once in a
//     *PanicError with the stack where it happened; a *PanicError from a
//     nested call is kept as it is, so the original stack survives;
//   - runtime.Goexit (t.Fatal, t.Skip): the deferred function runs with
//     recover returning nil and the function not having returned. Goexit
//     cannot be stopped, so the goroutine that ran the body dies: whatever
//     must still happen for the call (arriving at a join, setting done)
//     happens inside that deferred function, and a worker that dies this
//     way is replaced (workerMain). The call records goexitError, and its
//     caller, after the call is complete, calls runtime.Goexit itself
//     (raise): the goroutine that called the verb exits as the body did,
//     which is what t.Fatal expects.
//
// The pattern at each site is a flag set after the function returns and a
// deferred check of it; a site on the fork fast path keeps the check in its
// one deferred function.

// goexitError is what a call records when a body called runtime.Goexit.
var goexitError = &PanicError{Value: "runtime.Goexit called in a parallel body", goexit: true}

// recovered turns what a deferred function saw after fn ended without
// returning into the call's failure: a panic's value r, or Goexit (r == nil).
func recovered(r any) *PanicError {
	if r == nil {
		return goexitError
	}
	if pe, ok := r.(*PanicError); ok {
		return pe
	}
	return &PanicError{Value: r, Stack: debug.Stack()}
}

// catch runs fn and returns its panic, if any. If fn calls runtime.Goexit,
// catch does not return: the goroutine exits, and onGoexit, if not nil, runs
// first (in the deferred function), for what the caller must still do.
func catch(fn func(), onGoexit func()) (pe *PanicError) {
	returned := false
	defer func() {
		if returned {
			return
		}
		r := recover()
		if r == nil && onGoexit != nil {
			onGoexit()
		}
		if r != nil {
			pe = recovered(r)
		}
	}()
	fn()
	returned = true
	return nil
}

// raise re-raises a call's failure in its caller: a panic with the
// *PanicError, or runtime.Goexit for a body that called it.
func raise(pe *PanicError) {
	if pe.goexit {
		runtime.Goexit()
	}
	panic(pe)
}
