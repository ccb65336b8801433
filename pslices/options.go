package pslices

import (
	"runtime/debug"

	"github.com/parloop/parloop/par"
)

// config is what a call's options say: the pool options to pass to every par
// verb the call makes (On options only, so that any verb takes them), and
// whether Deterministic was given.
type config struct {
	pool          []par.Option
	deterministic bool
}

// options checks opts for the function named fn and returns them as a
// config. A call without options costs a length test. pslices takes On and
// Deterministic; any other par option panics, naming the function.
func options(fn string, opts []par.Option) config {
	if len(opts) == 0 {
		return config{}
	}
	return checkOptions(fn, opts)
}

func checkOptions(fn string, opts []par.Option) config {
	var c config
	for _, o := range opts {
		switch {
		case o == par.Deterministic():
			c.deterministic = true
		case isOn(o):
			if c.pool == nil {
				c.pool = make([]par.Option, 0, 1)
			}
			c.pool = append(c.pool[:0], o)
		default:
			panic("pslices: " + fn + " takes the On and Deterministic options only (Grain, Track, Weighted and Blocking do not apply to it)")
		}
	}
	return c
}

// isOn reports whether o is an On option: par.Invoke takes On and no other
// option, and checks its options before it looks at its functions.
func isOn(o par.Option) (on bool) {
	defer func() {
		if recover() != nil {
			on = false
		}
	}()
	par.Invoke(nil, o)
	return true
}

// wrapPanic turns a panic raised on the calling goroutine, outside any par
// verb (in a sequential path: a short slice, a prefix scanned before the
// pool is woken), into the *par.PanicError a parallel path would have
// raised, so that callers see one kind of panic whatever the length. A
// *par.PanicError from a par verb passes through as it is. It must be
// deferred directly.
func wrapPanic() {
	r := recover()
	if r == nil {
		return // no panic, or runtime.Goexit, which goes on unwinding
	}
	if pe, ok := r.(*par.PanicError); ok {
		panic(pe)
	}
	panic(&par.PanicError{Value: r, Stack: debug.Stack()})
}
