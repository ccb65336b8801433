package par_test

import (
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/parloop/parloop/par"
)

// The fork-join protocol is written out three times (join2 for Join and a
// two-way Invoke, bothOn for Both, BothOf by hand: fork.go says why). This
// one table runs every case through every form, on a caller from outside
// the pool and nested on a worker:
//
//   - g inline (not stolen) or stolen (f waits until g has started on
//     another goroutine);
//   - f or g panics, or both do (f's panic wins);
//   - f or g calls runtime.Goexit (the caller's goroutine must exit after
//     both have returned; nothing may run on after the fork).
//
// Catches: a copy of the protocol that leaves g's task behind on a panic,
// re-panics g's value over f's, loses a stolen g's result or panic, turns a
// Goexit into a panic, or lets the caller go on after a Goexit.

type forkForm struct {
	name string
	// fork runs f and g with the form and returns g's result (or 2 when
	// the form has none).
	fork func(f, g func() int, opts ...par.Option) int
}

var forkForms = []forkForm{
	{"Join", func(f, g func() int, opts ...par.Option) int {
		var b int
		par.Join(func() { f() }, func() { b = g() }, opts...)
		return b
	}},
	{"Invoke2", func(f, g func() int, opts ...par.Option) int {
		var b int
		par.Invoke([]func(){func() { f() }, func() { b = g() }}, opts...)
		return b
	}},
	{"Both", func(f, g func() int, opts ...par.Option) int {
		_, b := par.Both(f, g, opts...)
		return b
	}},
	{"BothOf", func(f, g func() int, opts ...par.Option) int {
		_, b := par.BothOf(func(h func() int) int { return h() }, f, func(h func() int) int { return h() }, g, opts...)
		return b
	}},
}

type forkCase struct {
	name           string
	stolen         bool
	fDoes, gDoes   string // "", "panic", "goexit"
	wantPanic      any    // the value the caller must see, or nil
	wantGoexit     bool
	wantG          int
	gMustHaveStart bool
}

var forkCases = []forkCase{
	{name: "inline", wantG: 2},
	{name: "stolen", stolen: true, wantG: 2, gMustHaveStart: true},
	{name: "panic-f", fDoes: "panic", wantPanic: "f"},
	{name: "panic-g", gDoes: "panic", wantPanic: "g"},
	{name: "panic-g-stolen", stolen: true, gDoes: "panic", wantPanic: "g"},
	{name: "panic-both", fDoes: "panic", gDoes: "panic", wantPanic: "f"},
	{name: "panic-both-stolen", stolen: true, fDoes: "panic", gDoes: "panic", wantPanic: "f"},
	{name: "goexit-f", fDoes: "goexit", wantGoexit: true},
	{name: "goexit-g", gDoes: "goexit", wantGoexit: true},
	{name: "goexit-g-stolen", stolen: true, gDoes: "goexit", wantGoexit: true},
	{name: "goexit-f-g-stolen", stolen: true, fDoes: "goexit", wantGoexit: true, gMustHaveStart: true},
}

func TestForkProtocolTable(t *testing.T) {
	p := newPool(t, par.Workers(3))
	for _, form := range forkForms {
		for _, c := range forkCases {
			for _, where := range []string{"caller", "worker"} {
				what := fmt.Sprintf("%s/%s/%s", form.name, c.name, where)
				var gStarted, gDone atomic.Bool
				f := func() int {
					if c.stolen {
						deadline := time.Now().Add(hangLimit / 4)
						for !gStarted.Load() && time.Now().Before(deadline) {
							spin(100)
						}
					}
					switch c.fDoes {
					case "panic":
						panic("f")
					case "goexit":
						runtime.Goexit()
					}
					return 1
				}
				g := func() int {
					gStarted.Store(true)
					defer gDone.Store(true)
					switch c.gDoes {
					case "panic":
						panic("g")
					case "goexit":
						runtime.Goexit()
					}
					return 2
				}
				var got int
				var after atomic.Bool
				var recovered any
				done := make(chan struct{})
				go func() {
					defer close(done)
					defer func() { recovered = recover() }()
					if where == "caller" {
						got = form.fork(f, g, par.On(p))
					} else {
						par.For(1, func(int) { got = form.fork(f, g) }, par.On(p))
					}
					after.Store(true)
				}()
				select {
				case <-done:
				case <-time.After(hangLimit):
					panic(what + ": the fork hung")
				}
				if !gDone.Load() && (c.fDoes == "" || c.stolen) {
					t.Errorf("%s: returned before g had returned", what)
				}
				if c.gMustHaveStart && !gStarted.Load() {
					t.Errorf("%s: g never ran", what)
				}
				switch {
				case c.wantGoexit:
					if after.Load() || recovered != nil {
						t.Errorf("%s: after a Goexit the caller went on (after=%v, panic=%v)", what, after.Load(), recovered)
					}
				case c.wantPanic != nil:
					pe, ok := recovered.(*par.PanicError)
					if !ok {
						t.Errorf("%s: recovered %v (%T), want a *par.PanicError", what, recovered, recovered)
					} else if v := rootValue(pe); v != c.wantPanic {
						t.Errorf("%s: panic value %v, want %v", what, v, c.wantPanic)
					}
				default:
					if recovered != nil || !after.Load() || got != c.wantG {
						t.Errorf("%s: got g=%d, panic %v, returned %v; want g=%d and a normal return", what, got, recovered, after.Load(), c.wantG)
					}
				}
			}
		}
	}
}
