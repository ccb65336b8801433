package par

import (
	"context"
	"runtime/trace"
	"sync/atomic"

	"github.com/parloop/parloop/par/internal/tracing"
)

// Observing calls, at a nil test per grain when unused: Progress counters,
// added to after each grain, and runtime/trace's tasks and regions
// (internal/tracing says which).

// Progress counts the done items of the calls given it with Track, out of
// their total, for any goroutine to read while they run. The zero value is
// ready to use; one Progress may follow several calls, even at once.
type Progress struct {
	done, total atomic.Int64
}

// Done returns the number of items done so far: For, Map and ForErr
// bodies that returned, and for ForRange, Reduce, ReduceRange and Fold the
// items of the grains that finished.
func (p *Progress) Done() int64 { return p.done.Load() }

// Total returns the number of items of the tracked calls, counted as each
// starts.
func (p *Progress) Total() int64 { return p.total.Load() }

// Track reports the call's progress to p: Total grows by n when the call
// starts, and Done as items finish (after each grain of about 2 µs; per
// item with Blocking). It panics if p is nil.
func Track(p *Progress) Option {
	if p == nil {
		panic("par: Track(nil): no Progress given")
	}
	return Option{progress: p}
}

// traced is a call's trace state: nil Ctx if it started untraced.
type traced struct{ tracing.Call }

// startTrace makes the call on slot s (nil: none) a trace task, under the
// verb's context parent (or nil), if tracing (tc.Ctx is then set).
// The check inlines; the rest's frame would grow a fresh goroutine's stack
// even with tracing off.
func (tc *traced) startTrace(verb string, n int, s *slot, parent context.Context) {
	if trace.IsEnabled() {
		tc.startTask(verb, n, s, parent)
	}
}

// startTask is startTrace with tracing on, in s's call tree.
//
//go:noinline
func (tc *traced) startTask(verb string, n int, s *slot, parent context.Context) {
	var tree uint64
	if s != nil {
		tree = s.tree
	}
	tc.Start(verb, n, tree, parent)
}
