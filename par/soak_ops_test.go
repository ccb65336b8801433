package par_test

// The chaos soak's verbs (soak_test.go has the soak and what it checks):
// op picks one at random, runs it with its fault and checks its outcome.

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/parloop/parloop/par"
)

// op runs one random verb at nesting depth depth on pool (nil: without On)
// with fault f, checks its outcome, and recurses into its bodies.
func (sk *soak) op(r *rand.Rand, depth int, pool *par.Pool, f fault) (desc string) {
	var opts []par.Option
	if pool != nil {
		opts = append(opts, par.On(pool))
	}
	n := 1 + r.IntN(sk.sizes[min(depth, 2)])
	if f.kind != faultNone {
		f.at = r.IntN(n)
	}
	seed := r.Uint64()
	nest := depth < 3 && r.IntN(3) == 0
	kind := r.IntN(18)
	if kind >= 16 {
		kind = 7 // Invoke, three times as often as each other verb
	}
	if kind >= 7 { // forks and scopes: their functions nest more often, as recursive code's do
		nest = depth < 3 && r.IntN(3) != 0
	}
	ran := make([]atomic.Int32, n)
	var running atomic.Int32
	body := func(i int) {
		running.Add(1)
		defer running.Add(-1)
		ran[i].Add(1)
		sk.bodies.Add(1)
		if f.kind != faultNone && (i == f.at || f.every && i > f.at) {
			switch f.kind {
			case faultPanic:
				panic(i)
			case faultGoexit:
				runtime.Goexit()
			case faultSleep:
				time.Sleep(50 * time.Microsecond)
			}
		}
		if nest && (i%7 == 0 || n <= 12) {
			rr := rand.New(rand.NewPCG(seed, uint64(i)))
			var nf fault
			if rr.IntN(8) == 0 {
				nf.kind = []int{faultPanic, faultSleep, faultNone}[rr.IntN(3)]
			}
			func() {
				defer func() {
					if v := recover(); v != nil && nf.kind != faultPanic {
						panic(v)
					}
				}()
				sk.op(rr, depth+1, nil, nf)
			}()
		} else {
			soakSpin(i % 64)
		}
	}
	// check verifies a call that returned (or panicked with pv) or failed
	// with err; complete says whether every index must have run.
	check := func(verb string, pv any, err error) {
		if running.Load() != 0 {
			sk.fail("%s returned while %d bodies still ran", verb, running.Load())
		}
		wantPanic := f.kind == faultPanic
		var pe *par.PanicError
		switch {
		case wantPanic && pv == nil:
			sk.fail("%s: the body at %d panicked and the call did not", verb, f.at)
		case !wantPanic && pv != nil:
			sk.fail("%s panicked unexpectedly: %v", verb, pv)
		case pv != nil:
			if e, ok := pv.(error); !ok || !errors.As(e, &pe) {
				sk.fail("%s panicked with %T, want a *par.PanicError", verb, pv)
			}
			sk.panics.Add(1)
		}
		complete := pv == nil && err == nil
		if err != nil {
			sk.errs.Add(1)
		}
		for i := range ran {
			c := ran[i].Load()
			if c > 1 || (complete && c != 1) {
				sk.fail("%s over %d: index %d ran %d times (fault %+v, err %v)", verb, n, i, c, f, err)
				return
			}
		}
	}
	run := func(verb string, call func() error) {
		desc = fmt.Sprintf("%s n=%d nest=%v fault=%d opts=%d", verb, n, nest, f.kind, len(opts))
		var pv any
		var err error
		func() {
			defer func() { pv = recover() }()
			err = call()
		}()
		check(verb, pv, err)
		sk.calls.Add(1)
		sk.lastDone.Store(time.Now().UnixNano())
	}
	ctxFor := func() (context.Context, context.CancelFunc) {
		ctx, cancel := context.WithCancel(context.Background())
		return ctx, cancel
	}
	everyFunction := false // Invoke and Join: every function runs, whatever the others did
	returned := false
	defer func() { // after a panic or a Goexit too: no body may still run
		if running.Load() != 0 {
			sk.fail("a call ended while %d of its bodies still ran", running.Load())
		}
		if !returned && everyFunction { // a Goexit unwinds the call
			for i := range ran {
				if c := ran[i].Load(); c != 1 {
					sk.fail("%s: a body called Goexit, and function %d of %d had run %d times when the call ended (fault %+v)", desc, i, len(ran), c, f)
					return
				}
			}
		}
	}()
	switch kind {
	case 0:
		run("For", func() error { par.For(n, body, opts...); return nil })
	case 1:
		var pr *par.Progress
		if r.IntN(2) == 0 {
			w := make([]int64, n)
			for i := range w {
				w[i] = int64(i % 64)
			}
			pr = new(par.Progress)
			opts = append(opts, par.Weighted(w), par.Track(pr))
		}
		run("ForRange", func() error {
			par.ForRange(n, func(lo, hi int) {
				for i := lo; i < hi; i++ {
					body(i)
				}
			}, opts...)
			// Only after a normal return: a Goexit of an outer call's body,
			// run by this goroutine while it waited in this call, unwinds
			// this call too, and a deferred check would then count a call
			// that never finished.
			if pr != nil && pr.Done() != int64(n) {
				sk.fail("ForRange+Weighted+Track over %d: Progress says %d done", n, pr.Done())
			}
			return nil
		})
	case 2:
		opts = []par.Option{par.Blocking(1 + r.IntN(8))} // no On: it means nothing beside Blocking
		run("For+Blocking", func() error { par.For(n, body, opts...); return nil })
	case 3:
		run("ForErr", func() error {
			ctx, cancel := ctxFor()
			defer cancel()
			err := par.ForErr(ctx, n, func(ctx context.Context, i int) error {
				body(i)
				return f.act(i, cancel)
			}, opts...)
			sk.checkErr("ForErr", f, err)
			return err
		})
	case 4:
		run("ReduceRange", func() error {
			got := par.ReduceRange(n, 0, func(lo, hi int) int { return soakRange(body, lo, hi) },
				func(a, b int) int { return a + b }, opts...)
			if want := n * (n - 1) / 2; got != want {
				sk.fail("ReduceRange over %d: got %d, want %d", n, got, want)
			}
			return nil
		})
	case 5:
		run("Map+Reduce", func() error {
			in := make([]int, n)
			for i := range in {
				in[i] = i
			}
			out := par.Map(in, func(x int) []int { body(x); return []int{x} }, opts...)
			got := par.Reduce(out, []int(nil), func(a, b []int) []int {
				return append(a[:len(a):len(a)], b...)
			}, opts...)
			for i := range n { // the left fold, in order
				if i >= len(got) || got[i] != i {
					sk.fail("Reduce (concatenation) over %d: element %d wrong", n, i)
					break
				}
			}
			return nil
		})
	case 6:
		run("Fold", func() error {
			var added atomic.Int64 // what the bodies added, to tell a lost update from a late one
			got := par.Fold(n, func() int { return 0 }, func(acc *int, lo, hi int) {
				for i := lo; i < hi; i++ {
					body(i)
					*acc += i
					added.Add(int64(i))
				}
			}, func(a, b int) int { return a + b }, opts...)
			if want := n * (n - 1) / 2; got != want {
				sk.fail("Fold over %d (depth %d, %d options): got %d, want %d; the bodies had added %d when it returned", n, depth, len(opts), got, want, added.Load())
			}
			return nil
		})
	case 7:
		k := min(n, 2+r.IntN(11))
		ran = ran[:k]
		fns := make([]func(), k)
		for j := range fns {
			fns[j] = func() { body(j) }
		}
		if f.at >= k {
			f.at = k - 1
		}
		everyFunction = true
		run("Invoke", func() error { par.Invoke(fns, opts...); return nil })
	case 8:
		run("BothOf", func() error {
			sum := func(sp soakSpan) int { return soakSum(body, sp) }
			a, b := par.BothOf(sum, soakSpan{0, n / 2}, sum, soakSpan{n / 2, n}, opts...)
			got := a + b
			if want := n * (n - 1) / 2; got != want {
				sk.fail("BothOf over %d: got %d, want %d", n, got, want)
			}
			return nil
		})
	case 10:
		if r.IntN(4) == 0 {
			opts = []par.Option{par.Blocking(1 + r.IntN(8))}
		}
		run("Scope", func() error {
			par.Scope(func(s *par.Spawner) {
				// Each task spawns the upper halves of its range, then runs
				// what is left: tasks spawned by tasks, on every seat.
				var spawn func(lo, hi int)
				spawn = func(lo, hi int) {
					for hi-lo > 4 {
						mid, end := lo+(hi-lo)/2, hi
						s.Go(func() { spawn(mid, end) })
						hi = mid
					}
					for i := lo; i < hi; i++ {
						body(i)
					}
				}
				spawn(0, n)
			}, opts...)
			return nil
		})
	case 11:
		if r.IntN(4) == 0 {
			opts = []par.Option{par.Blocking(1 + r.IntN(8))}
		}
		run("ScopeErr", func() error {
			ctx, cancel := ctxFor()
			defer cancel()
			err := par.ScopeErr(ctx, func(ctx context.Context, s *par.ErrSpawner) error {
				for i := range n {
					s.Go(func() error {
						body(i)
						return f.act(i, cancel)
					})
				}
				return nil
			}, opts...)
			sk.checkErr("ScopeErr", f, err)
			return err
		})
	case 12:
		run("ReduceRangeOf", func() error {
			got := par.ReduceRangeOf(n, body, 0, soakRange, func(a, b int) int { return a + b }, opts...)
			if want := n * (n - 1) / 2; got != want {
				sk.fail("ReduceRangeOf over %d: got %d, want %d", n, got, want)
			}
			return nil
		})
	case 13:
		run("ForOf", func() error {
			par.ForOf(n, body, func(body func(int), i int) { body(i) }, opts...)
			return nil
		})
	case 14:
		run("JoinOf", func() error {
			var a, b int
			par.JoinOf(func(sp soakSpan) { a = soakSum(body, sp) }, soakSpan{0, n / 2},
				func(sp soakSpan) { b = soakSum(body, sp) }, soakSpan{n / 2, n}, opts...)
			if want := n * (n - 1) / 2; a+b != want {
				sk.fail("JoinOf over %d: got %d, want %d", n, a+b, want)
			}
			return nil
		})
	case 15:
		if r.IntN(4) == 0 {
			opts = []par.Option{par.Blocking(1 + r.IntN(8))}
		}
		run("ScopeOf", func() error {
			// Case 10's tasks, each given its range instead of capturing it.
			par.ScopeOf(func(s *par.SpawnerOf[soakSpan]) { s.Go(soakSpan{0, n}) },
				func(s *par.SpawnerOf[soakSpan], sp soakSpan) {
					for sp.hi-sp.lo > 4 {
						mid := sp.lo + (sp.hi-sp.lo)/2
						s.Go(soakSpan{mid, sp.hi})
						sp.hi = mid
					}
					soakRange(body, sp.lo, sp.hi)
				}, opts...)
			return nil
		})
	default:
		ran = ran[:min(n, 2)]
		if f.at >= len(ran) {
			f.at = len(ran) - 1
		}
		everyFunction = true
		if len(ran) < 2 {
			run("Join", func() error { par.Join(func() { body(0) }, func() {}, opts...); return nil })
			break
		}
		run("Join", func() error { par.Join(func() { body(0) }, func() { body(1) }, opts...); return nil })
	}
	returned = true
	return desc
}

type soakSpan struct{ lo, hi int }

// soakRange runs body on each index of [lo, hi) and returns their sum.
func soakRange(body func(int), lo, hi int) int {
	s := 0
	for i := lo; i < hi; i++ {
		body(i)
		s += i
	}
	return s
}

// soakSum sums the indices of sp, running body on each, by recursive forks.
func soakSum(body func(int), sp soakSpan) int {
	if sp.hi-sp.lo <= 8 {
		return soakRange(body, sp.lo, sp.hi)
	}
	mid := sp.lo + (sp.hi-sp.lo)/2
	sum := func(sp soakSpan) int { return soakSum(body, sp) }
	a, b := par.BothOf(sum, soakSpan{sp.lo, mid}, sum, soakSpan{mid, sp.hi})
	return a + b
}

func soakSpin(n int) {
	x := 0
	for i := range n * 16 {
		x += i * i
	}
	if x < 0 {
		fmt.Print(x)
	}
}
