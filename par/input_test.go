package par_test

// Tests for bad input and extreme input: programmer errors panic at the
// call with a message naming the argument, and index ranges near
// math.MaxInt are tiled exactly.

import (
	"context"
	"fmt"
	"math"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/parloop/parloop/par"
)

// Catches: programmer errors that panicked later, deep inside the library
// ("panic in parallel body: nil pointer dereference"), raw nil
// dereferences, or silently took a default. Each must panic at the call
// with a message naming the argument.
func TestBadInputPanicsAtTheCall(t *testing.T) {
	ctx := context.Background()
	add := func(a, b int) int { return a + b }
	cases := []struct {
		name, want string
		call       func()
	}{
		{"For(nil)", "For called with a nil body", func() { par.For(10, nil) }},
		{"For(0, nil)", "For called with a nil body", func() { par.For(0, nil) }},
		{"ForRange(nil)", "ForRange called with a nil body", func() { par.ForRange(10, nil) }},
		{"Map(nil)", "Map called with a nil function", func() { par.Map[int, int]([]int{1}, nil) }},
		{"Reduce(nil)", "Reduce called with a nil combine", func() { par.Reduce([]int{1}, 0, nil) }},
		{"ReduceRange(nil leaf)", "ReduceRange called with a nil leaf", func() { par.ReduceRange(3, 0, nil, add) }},
		{"ReduceRange(nil combine)", "ReduceRange called with a nil combine", func() { par.ReduceRange(3, 0, func(lo, hi int) int { return 0 }, nil) }},
		{"Join(nil, nil)", "Join called with a nil function", func() { par.Join(nil, nil) }},
		{"Invoke(nil)", "Invoke called with a nil function", func() { par.Invoke([]func(){nil}) }},
		{"Both(nil)", "Both called with a nil function", func() { par.Both[int, int](nil, nil) }},
		{"BothOf(nil)", "BothOf called with a nil function", func() { par.BothOf[int, int, int, int](nil, 0, nil, 0) }},
		{"ForErr(nil ctx)", "ForErr called with a nil context", func() {
			var nilCtx context.Context // the point of the test
			_ = par.ForErr(nilCtx, 1, func(context.Context, int) error { return nil })
		}},
		{"MapErr(nil ctx)", "MapErr called with a nil context", func() {
			var nilCtx context.Context
			_, _ = par.MapErr(nilCtx, []int{1}, func(context.Context, int) (int, error) { return 0, nil })
		}},
		{"ForErr(nil body)", "ForErr called with a nil body", func() { _ = par.ForErr(ctx, 1, nil) }},
		{"Grain(0)", "Grain(0)", func() { par.Grain(0) }},
		{"Grain(-1)", "Grain(-1)", func() { par.Grain(-1) }},
		{"Blocking(0)", "Blocking(0)", func() { par.Blocking(0) }},
		{"Workers(0)", "Workers(0)", func() { par.Workers(0) }},
		{"Workers(-1)", "Workers(-1)", func() { par.Workers(-1) }},
		{"Workers(12000)", "Workers(12000)", func() { par.Workers(12000) }},
		{"On(nil)", "On(nil)", func() { par.On(nil) }},
		{"OnMachine(nil)", "OnMachine(nil)", func() { par.OnMachine(nil) }},
		{"NewPool(nil)", "nil PoolOption", func() { par.NewPool(nil) }},
		{"For+Deterministic", "For does not take the Deterministic option", func() { par.For(3, func(int) {}, par.Deterministic()) }},
		{"Map+Deterministic", "Map does not take the Deterministic option", func() { par.Map([]int{1}, func(x int) int { return x }, par.Deterministic()) }},
		{"Reduce+Blocking", "Reduce does not take the Blocking option", func() { par.Reduce([]int{1}, 0, add, par.Blocking(2)) }},
		{"Join+Grain", "Join does not take the Grain option", func() { par.Join(func() {}, func() {}, par.Grain(4)) }},
		{"Both+Deterministic", "Both does not take the Deterministic option", func() {
			par.Both(func() int { return 0 }, func() int { return 0 }, par.Deterministic())
		}},
		{"BothOf+Blocking", "BothOf does not take the Blocking option", func() {
			par.BothOf(func(int) int { return 0 }, 0, func(int) int { return 0 }, 0, par.Blocking(1))
		}},
		{"Invoke+Grain", "Invoke does not take the Grain option", func() { par.Invoke([]func(){func() {}, func() {}}, par.Grain(2)) }},
		{"ForOf+Deterministic", "ForOf does not take the Deterministic option", func() { par.ForOf(3, 0, func(int, int) {}, par.Deterministic()) }},
		{"ReduceRangeOf+Blocking", "ReduceRangeOf does not take the Blocking option", func() {
			par.ReduceRangeOf(3, 0, 0, func(int, int, int) int { return 0 }, add, par.Blocking(2))
		}},
		{"JoinOf+Track", "JoinOf does not take the Track option", func() {
			par.JoinOf(func(int) {}, 0, func(int) {}, 0, par.Track(new(par.Progress)))
		}},
		{"Scope+Grain", "Scope does not take the Grain option", func() { par.Scope(func(*par.Spawner) {}, par.Grain(2)) }},
		{"zero Option", "the zero Option is not an option", func() { par.For(3, func(int) {}, par.Option{}) }},
	}
	for _, c := range cases {
		v, panicked := catch(c.call)
		if !panicked {
			t.Errorf("%s did not panic", c.name)
			continue
		}
		if _, isBody := v.(*par.PanicError); isBody {
			t.Errorf("%s panicked as a body's panic (%v); want a panic at the call", c.name, v)
			continue
		}
		msg := fmt.Sprint(v)
		if !strings.HasPrefix(msg, "par: ") || !strings.Contains(msg, c.want) {
			t.Errorf("%s panicked with %q; want a message starting with \"par: \" containing %q", c.name, msg, c.want)
		}
	}
	// The zero Pool is a working pool.
	var zero par.Pool
	defer zero.Close()
	var n atomic.Int32
	par.For(100, func(int) { n.Add(1) }, par.On(&zero))
	if n.Load() != 100 || zero.Workers() < 1 {
		t.Errorf("the zero Pool ran %d of 100 bodies, parallelism %d", n.Load(), zero.Workers())
	}
	_ = zero.Stats().String()
}

// Catches: lo and hi overflowing near math.MaxInt (cur+grain wrapped and
// handed out negative lo). The leaf is O(1) per piece, so the whole range
// is covered quickly; the pieces must tile it exactly.
func TestRangesNearMaxInt(t *testing.T) {
	for _, pc := range poolCases(t) {
		for _, n := range []int{math.MaxInt, math.MaxInt - 1, math.MaxInt / 2} {
			var bad atomic.Value
			leaf := func(lo, hi int) int {
				if lo < 0 || hi <= lo || hi > n {
					bad.Store(fmt.Sprintf("[%d, %d)", lo, hi))
				}
				return hi - lo
			}
			got := par.ReduceRange(n, 0, leaf, func(a, b int) int { return a + b }, pc.opts...)
			if b := bad.Load(); b != nil {
				t.Errorf("ReduceRange(%d) %s: bad piece %v", n, pc.name, b)
			}
			if got != n {
				t.Errorf("ReduceRange(%d) %s: pieces cover %d", n, pc.name, got)
			}
			det := par.ReduceRange(n, 0, leaf, func(a, b int) int { return a + b }, pc.with(par.Deterministic())...)
			if det != n {
				t.Errorf("ReduceRange(%d, Deterministic) %s: pieces cover %d", n, pc.name, det)
			}
			// Nested in a body, where the call may run in chunks on its seat
			// (route.go, direct) before handing its rest over.
			var nested [2]int
			par.For(2, func(i int) {
				nested[i] = par.ReduceRange(n, 0, leaf, func(a, b int) int { return a + b })
			}, pc.opts...)
			if b := bad.Load(); b != nil || nested != [2]int{n, n} {
				t.Errorf("ReduceRange(%d) nested %s: pieces cover %v, bad piece %v", n, pc.name, nested, b)
			}
		}
	}
}
