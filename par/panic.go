package par

import "fmt"

// PanicError carries a panic raised by a body to the goroutine that called the
// verb. The verb panics again with a *PanicError once every running body has
// returned.
type PanicError struct {
	// Value is the value the body passed to panic.
	Value any
	// Stack is the stack of the goroutine where the panic happened, as
	// printed by runtime/debug.Stack.
	Stack []byte
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
