package par_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/parloop/parloop/par"
)

type ctxKey struct{}

// waitDone blocks until ctx is cancelled, or reports false after a long
// liveness bound (a body whose context is never cancelled).
func waitDone(ctx context.Context) bool {
	if ctx.Err() != nil {
		return true
	}
	timer := time.NewTimer(hangLimit / 3)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return true
	case <-timer.C:
		return false
	}
}

// stopBound is the most bodies a loop of n iterations may start once it has
// been told to stop (error, cancellation, panic): each running piece may
// finish its current grain, and an adaptive grain over near-empty bodies
// may be a few thousand iterations, but a loop that goes on with the rest
// of the range starts many more.
func stopBound(n int) int64 { return int64(n / 16) }

// stopN is the loop length used to check stopBound.
func stopN() int { return sized(1<<16, 1<<20) }

// Catches: ForErr skipping or repeating an index, returning an error when no
// body failed, cancelling the bodies' context without cause, or handing
// bodies a context that is not derived from the caller's (values lost).
func TestForErrAllNil(t *testing.T) {
	t.Parallel()
	parent := context.WithValue(t.Context(), ctxKey{}, "v")
	for _, pc := range poolCases(t) {
		for _, n := range sizes() {
			what := fmt.Sprintf("ForErr(%d) %s", n, pc.name)
			counts := make([]atomic.Int32, n)
			var badCtx atomic.Int64
			var err error
			noHang(t, what, func() {
				err = par.ForErr(parent, n, func(ctx context.Context, i int) error {
					if i%61 == 0 && (ctx.Err() != nil || ctx.Value(ctxKey{}) != "v") {
						badCtx.Add(1) // sampled: ctx.Err takes a lock
					}
					counts[i].Add(1)
					return nil
				}, pc.opts...)
			})
			if err != nil {
				t.Errorf("%s = %v; want nil", what, err)
			}
			if b := badCtx.Load(); b != 0 {
				t.Errorf("%s: %d bodies got a cancelled context or one without the caller's values", what, b)
			}
			checkOnce(t, what, counts)
		}
	}
}

var errBoom = errors.New("boom")

// Catches: an error from one body lost because it came from a stolen piece,
// the last piece, or the first index (error must win over nil results).
func TestForErrErrorWinsOverNil(t *testing.T) {
	t.Parallel()
	const n = 1000
	for _, pc := range poolCases(t) {
		for _, k := range []int{0, 1, n / 2, n - 1} {
			for _, g := range []int{1, 0} {
				opts := pc.opts
				if g > 0 {
					opts = pc.with(par.Grain(g))
				}
				var err error
				noHang(t, "ForErr", func() {
					err = par.ForErr(t.Context(), n, func(_ context.Context, i int) error {
						spin(200)
						if i == k {
							return errBoom
						}
						return nil
					}, opts...)
				})
				if err != errBoom {
					t.Errorf("ForErr %s, body %d fails, grain %d: returned %v; want errBoom itself", pc.name, k, g, err)
				}
			}
		}
	}
}

// failAt is the body (in start order) that fails or cancels in the
// stopping tests: late enough that the adaptive grain has settled and
// workers have taken pieces, so that other bodies run at the same time.
const failAt = 100

// Catches: an error that does not cancel the context passed to the other
// bodies (those running at the time wait for it, and would wait forever), a
// later error overwriting the first, the context's own error returned
// instead of the first, and a loop that goes on starting bodies after the
// first error.
func TestForErrFirstErrorCancelsRest(t *testing.T) {
	t.Parallel()
	n := stopN()
	for _, pc := range poolCases(t) {
		var started, neverCancelled, late atomic.Int64
		var failed atomic.Bool
		var err error
		noHang(t, "ForErr", func() {
			err = par.ForErr(t.Context(), n, func(ctx context.Context, i int) error {
				if started.Add(1) == failAt {
					failed.Store(true)
					return errBoom
				}
				spin(20000)
				if !failed.Load() {
					return nil
				}
				// Running when the first error was returned (or started
				// after it): the error must cancel ctx; then fail too.
				if !waitDone(ctx) {
					neverCancelled.Add(1)
				}
				late.Add(1)
				return fmt.Errorf("late error from body %d", i)
			}, pc.with(par.Grain(1))...)
		})
		if err != errBoom {
			t.Errorf("ForErr %s = %v; want the first error, errBoom (%d bodies failed later)", pc.name, err, late.Load())
		}
		if c := neverCancelled.Load(); c != 0 {
			t.Errorf("ForErr %s: %d bodies' context was not cancelled after the first error", pc.name, c)
		}
		if s := started.Load(); s > failAt+stopBound(n) {
			t.Errorf("ForErr %s: %d of %d bodies started, %d after the first error; want at most %d after it", pc.name, s, n, s-failAt, stopBound(n))
		}
		if t.Context().Err() != nil {
			t.Fatalf("ForErr cancelled the caller's own context")
		}
	}
}

// Catches: a body's panic not cancelling the context of the bodies still
// running, in every kind of call (framed, plain, Blocking), as an error
// does.
func TestForErrPanicCancelsRest(t *testing.T) {
	t.Parallel()
	n := stopN()
	for _, pc := range poolCases(t) {
		var started, neverCancelled atomic.Int64
		var failed atomic.Bool
		var got any
		noHang(t, "ForErr", func() {
			defer func() { got = recover() }()
			par.ForErr(t.Context(), n, func(ctx context.Context, i int) error {
				if started.Add(1) == failAt {
					failed.Store(true)
					panic(errBoom)
				}
				spin(20000)
				if failed.Load() && !waitDone(ctx) {
					neverCancelled.Add(1)
				}
				return nil
			}, pc.with(par.Grain(1))...)
		})
		if pe, ok := got.(*par.PanicError); !ok || pe.Value != errBoom {
			t.Errorf("ForErr %s panicked with %v; want a *PanicError of errBoom", pc.name, got)
		}
		if c := neverCancelled.Load(); c != 0 {
			t.Errorf("ForErr %s: %d bodies' context was not cancelled after a body panicked", pc.name, c)
		}
	}
}

// Catches: cancellation of the caller's context (from inside a body, or by a
// deadline while the loop runs) not stopping new work, not reaching the
// bodies' context, or reported as nil or as another error.
func TestForErrContextCancelledDuringLoop(t *testing.T) {
	t.Parallel()
	n := stopN()
	for _, pc := range poolCases(t) {
		for _, how := range []string{"cancel in body", "deadline"} {
			var ctx context.Context
			var cancel context.CancelFunc
			want := context.Canceled
			if how == "deadline" {
				ctx, cancel = context.WithTimeout(t.Context(), 20*time.Millisecond)
				want = context.DeadlineExceeded
			} else {
				ctx, cancel = context.WithCancel(t.Context())
			}
			var started, neverCancelled atomic.Int64
			var err error
			noHang(t, "ForErr", func() {
				err = par.ForErr(ctx, n, func(bctx context.Context, i int) error {
					k := started.Add(1)
					if how == "cancel in body" {
						if k == failAt {
							cancel()
							return nil
						}
						if k < failAt {
							spin(20000)
							return nil
						}
					}
					// Every body once the deadline is near (all of them with
					// a 20 ms deadline), or after the cancelling one, waits
					// for the cancellation to reach its context.
					if !waitDone(bctx) {
						neverCancelled.Add(1)
					}
					return nil
				}, pc.with(par.Grain(1))...)
			})
			cancel()
			if !errors.Is(err, want) {
				t.Errorf("ForErr %s %s = %v; want %v", pc.name, how, err, want)
			}
			if c := neverCancelled.Load(); c != 0 {
				t.Errorf("ForErr %s %s: %d bodies' context was never cancelled", pc.name, how, c)
			}
			if s := started.Load(); s > failAt+stopBound(n) {
				t.Errorf("ForErr %s %s: %d of %d bodies started; want at most %d after cancellation", pc.name, how, s, n, stopBound(n))
			}
		}
	}
}

// Catches: a cancelled or expired context not checked before the loop
// starts. ctx.Err() is readable synchronously at the call, so the bound is
// zero bodies: a runtime that only notices cancellation asynchronously (a
// context.AfterFunc setting a flag) still owes this check at entry.
func TestForErrAlreadyCancelled(t *testing.T) {
	t.Parallel()
	cancelled, cancel := context.WithCancel(t.Context())
	cancel()
	expired, cancel2 := context.WithDeadline(t.Context(), time.Now().Add(-time.Second))
	defer cancel2()
	for _, pc := range poolCases(t) {
		for _, c := range []struct {
			ctx  context.Context
			want error
		}{{cancelled, context.Canceled}, {expired, context.DeadlineExceeded}} {
			for _, n := range []int{1, 1000, 1 << 16} {
				var ran atomic.Int64
				err := par.ForErr(c.ctx, n, func(context.Context, int) error { ran.Add(1); return nil }, pc.opts...)
				if !errors.Is(err, c.want) {
					t.Errorf("ForErr(%d) %s on a done context = %v; want %v", n, pc.name, err, c.want)
				}
				if r := ran.Load(); r != 0 {
					t.Errorf("ForErr(%d) %s on a done context ran %d bodies; want none", n, pc.name, r)
				}
			}
		}
	}
}
