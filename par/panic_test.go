package par_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/parloop/parloop/par"
)

// panicVerbs calls each verb so that exactly one body (or combine, or
// function) panics with v via panicSite, on the options' pool.
func panicVerbs(pc poolCase, v any) []struct {
	name string
	call func()
} {
	const n = 1000
	trigger := func(i int) {
		spin(100)
		if i == n/2 {
			panicSite(v)
		}
	}
	in := make([]int, n)
	for i := range in {
		in[i] = i
	}
	return []struct {
		name string
		call func()
	}{
		{"For", func() { par.For(n, trigger, pc.opts...) }},
		{"ForRange", func() {
			par.ForRange(n, func(lo, hi int) {
				for i := lo; i < hi; i++ {
					trigger(i)
				}
			}, pc.opts...)
		}},
		{"Map", func() { par.Map(in, func(x int) int { trigger(x); return x }, pc.opts...) }},
		// combine sees partial results, not elements: count its calls.
		{"Reduce/combine", func() {
			var calls atomic.Int64
			par.Reduce(in, 0, func(a, b int) int { trigger(int(calls.Add(1))); return a + b }, pc.opts...)
		}},
		{"Reduce/deterministic", func() {
			var calls atomic.Int64
			par.Reduce(in, 0, func(a, b int) int { trigger(int(calls.Add(1))); return a + b }, pc.with(par.Deterministic())...)
		}},
		// combine panics where partial results meet (a+b first reaches
		// 2048 in a fold of 5000 ones, whatever the split), and where the
		// identity is applied on the left.
		{"Reduce/partials", func() { reduceOnes(pc.opts, 2048, v) }},
		{"Reduce/deterministic/partials", func() { reduceOnes(pc.with(par.Deterministic()), 2048, v) }},
		{"Reduce/identity", func() { reduceOnes(pc.opts, 0, v) }},
		{"Reduce/deterministic/identity", func() { reduceOnes(pc.with(par.Deterministic()), 0, v) }},
		{"Invoke/first", func() { pc.invoke(func() { panicSite(v) }, func() {}, func() {}, func() {}, func() {}) }},
		{"Invoke/last", func() { pc.invoke(func() {}, func() {}, func() {}, func() {}, func() { panicSite(v) }) }},
		{"Join/f", func() { pc.join(func() { panicSite(v) }, func() { spin(1000) }) }},
		{"Join/g", func() { pc.join(func() { spin(1000) }, func() { panicSite(v) }) }},
		{"ForErr", func() {
			_ = par.ForErr(context.Background(), n, func(_ context.Context, i int) error { trigger(i); return nil }, pc.opts...)
		}},
		{"nested For in For", func() {
			par.For(8, func(i int) {
				par.For(n, func(j int) {
					if i == 5 {
						trigger(j)
					}
				})
			}, pc.opts...)
		}},
		{"nested Join in Map in Invoke", func() {
			pc.invoke(func() {}, func() {
				par.Map(in[:64], func(x int) int {
					par.Join(func() {}, func() {
						if x == 33 {
							panicSite(v)
						}
					})
					return x
				})
			})
		}},
	}
}

// reduceOnes reduces 5000 ones with identity -1; combine panics with v via
// panicSite the first time a+b >= at, or, with at == 0, when it is applied to
// the identity.
func reduceOnes(opts []par.Option, at int, v any) {
	in := make([]int, 5000)
	for i := range in {
		in[i] = 1
	}
	var fired atomic.Bool
	par.Reduce(in, -1, func(a, b int) int {
		if (at == 0 && a == -1 || at > 0 && a+b >= at) && !fired.Swap(true) {
			panicSite(v)
		}
		return a + b
	}, opts...)
}

type panicValue struct{ s string }

func (p panicValue) String() string { return "panicValue(" + p.s + ")" }

// Catches: a panic in a body that kills the process (raised on a worker),
// is swallowed (the call returns normally), reaches the caller as a bare
// value or with the wrong stack, or loses errors.Is/As, for every verb, nested
// calls included, on every pool; and a pool left unusable by a panic.
func TestPanicReachesCaller(t *testing.T) {
	t.Parallel()
	values := []any{"a string", errBoom, fmt.Errorf("wrapped: %w", errBoom), panicValue{"struct"}, 42}
	for _, pc := range poolCases(t) {
		for vi, v := range values {
			for _, vb := range panicVerbs(pc, v) {
				if vi > 1 && !strings.HasPrefix(vb.name, "For") && vb.name != "nested For in For" {
					continue // every value through For; the two main ones through every verb
				}
				what := fmt.Sprintf("%s %s panic(%v)", vb.name, pc.name, v)
				t.Run(fmt.Sprintf("%s/%s/%d", pc.name, vb.name, vi), func(t *testing.T) {
					pe := wantPanicError(t, what, func() { noHang(t, what, vb.call) })
					checkPanicError(t, what, pe, v)
				})
			}
			checkPoolUsable(t, pc)
		}
	}
}

// checkPoolUsable runs an exactly-once loop and a nested join on the case's
// pool.
func checkPoolUsable(t *testing.T, pc poolCase) {
	t.Helper()
	n := sized(1000, 5000)
	counts := make([]atomic.Int32, n)
	noHang(t, "For after panic", func() {
		par.For(n, func(i int) {
			pc.join(func() { counts[i].Add(1) }, func() {})
		}, pc.opts...)
	})
	checkOnce(t, "pool "+pc.name+" after a panic", counts)
}

// Catches: a runtime that re-raises before every running body has returned
// (bodies then run on after the caller recovered, racing with it), and one
// that keeps starting iterations after the panic.
func TestPanicWaitsForRunningBodiesAndStopsNewOnes(t *testing.T) {
	t.Parallel()
	n := stopN()
	for _, pc := range poolCases(t) {
		// The late starts are counted in the fewest of three tries: on a
		// loaded machine the OS can deschedule the panicking thread between
		// the panic and the stop flag's store while the others run on.
		least := int64(n)
		for range 3 {
			if least = min(least, startedAfterAPanic(t, pc, n)); least <= stopBound(n) {
				break
			}
		}
		if least > stopBound(n) {
			t.Errorf("For %s: %d of %d bodies started after a panic (the fewest of 3 tries); want at most %d", pc.name, least, n, stopBound(n))
		}
	}
}

// startedAfterAPanic runs the test's For once on pc, reports its other
// failures, and returns how many bodies started after the panic.
func startedAfterAPanic(t *testing.T, pc poolCase, n int) int64 {
	{
		var started, running, afterReturn atomic.Int64
		var panicked, returned atomic.Bool
		pe := wantPanicError(t, "For", func() {
			noHang(t, "For", func() {
				par.For(n, func(i int) {
					if returned.Load() {
						afterReturn.Add(1)
					}
					running.Add(1)
					defer running.Add(-1)
					late := panicked.Load()
					if started.Add(1) == 3 {
						panicked.Store(true)
						panicSite(errBoom)
					}
					spin(300)
					if !late && panicked.Load() {
						// Running when the panic happened: take long enough
						// that an early re-raise is seen.
						time.Sleep(2 * time.Millisecond)
					}
				}, pc.with(par.Grain(1))...)
			})
		})
		returned.Store(true)
		if r := running.Load(); r != 0 {
			t.Errorf("For %s: re-panicked while %d bodies were still running", pc.name, r)
		}
		checkPanicError(t, "For "+pc.name, pe, errBoom)
		checkPoolUsable(t, pc) // gives stray bodies time to show up
		if a := afterReturn.Load(); a != 0 {
			t.Errorf("For %s: %d bodies started after the call had panicked in the caller", pc.name, a)
		}
		return started.Load()
	}
}

// Catches: Join re-raising f's panic while g (possibly stolen by another
// worker) is still running.
func TestJoinPanicWaitsForOtherSide(t *testing.T) {
	t.Parallel()
	for _, pc := range poolCases(t) {
		for r := 0; r < 20; r++ {
			var gStarted, gDone atomic.Bool
			wantPanicError(t, "Join", func() {
				noHang(t, "Join", func() {
					// f runs long enough (tens of µs) for a worker to steal g.
					pc.join(func() { spin(20000 + r*2000); panicSite(errBoom) }, func() {
						gStarted.Store(true)
						time.Sleep(time.Millisecond)
						gDone.Store(true)
					})
				})
			})
			if gStarted.Load() && !gDone.Load() {
				t.Fatalf("Join %s: panicked while g was still running", pc.name)
			}
		}
	}
}

// Catches: panic(nil) treated as "no panic" (a recover() != nil test under
// GODEBUG=panicnil=1 habits): the call must still panic, carrying the
// *runtime.PanicNilError Go 1.21+ makes of it.
func TestPanicNil(t *testing.T) {
	t.Parallel()
	for _, pc := range poolCases(t) {
		pe := wantPanicError(t, "For panic(nil)", func() {
			noHang(t, "For", func() {
				par.For(100, func(i int) {
					if i == 50 {
						panic(nil)
					}
				}, pc.opts...)
			})
		})
		var pn *runtime.PanicNilError
		if !errors.As(pe, &pn) {
			t.Errorf("For %s panic(nil): PanicError.Value = %T; want *runtime.PanicNilError", pc.name, rootValue(pe))
		}
	}
}

// Catches: runtime errors (index out of range) in a body crashing the
// process instead of reaching the caller as a runtime.Error.
func TestRuntimeErrorInBody(t *testing.T) {
	t.Parallel()
	for _, pc := range poolCases(t) {
		small := make([]int, 10)
		pe := wantPanicError(t, "For out of range", func() {
			noHang(t, "For", func() {
				par.For(1000, func(i int) {
					if small[i] != 0 { // reads only: bodies must not race; i >= 10 is out of range
						t.Error("small changed")
					}
				}, pc.opts...)
			})
		})
		var re runtime.Error
		if !errors.As(pe, &re) || !strings.Contains(re.Error(), "index out of range") {
			t.Errorf("For %s: PanicError.Value = %v; want the index-out-of-range runtime.Error", pc.name, rootValue(pe))
		}
	}
}

// Catches: panics of different calls crossing over (one call's caller gets
// another call's panic value, from a shared "first panic" slot), lost under
// concurrency, or a pool wedged by many simultaneous panics.
func TestConcurrentPanics(t *testing.T) {
	t.Parallel()
	callers := sized(50, 200)
	for _, pc := range defaultAndFour(t) {
		var wg sync.WaitGroup
		errs := make(chan string, callers)
		for c := range callers {
			wg.Go(func() {
				prefix := fmt.Sprintf("caller %d:", c)
				v, panicked := catch(func() {
					par.For(300, func(i int) {
						spin(50)
						if i%37 == c%37 {
							panicSite(fmt.Sprintf("%s index %d", prefix, i))
						}
					}, pc.opts...)
				})
				pe, ok := v.(*par.PanicError)
				switch {
				case !panicked:
					errs <- prefix + " For returned normally; want a panic"
				case !ok:
					errs <- fmt.Sprintf("%s panicked with %T; want *par.PanicError", prefix, v)
				default:
					s, _ := rootValue(pe).(string)
					if !strings.HasPrefix(s, prefix) {
						errs <- fmt.Sprintf("%s got the panic %q of another call", prefix, s)
					}
				}
			})
		}
		noHang(t, "concurrent panicking calls", wg.Wait)
		close(errs)
		for e := range errs {
			t.Errorf("%s: %s", pc.name, e)
		}
		checkPoolUsable(t, pc)
	}
}
