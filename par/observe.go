package par

import (
	"context"
	"runtime/trace"
	"strconv"
	"sync/atomic"
)

// Observing calls: progress counters and execution traces.
//
// Both cost a nil test per grain when unused. A Progress is a pair of
// counters that pieces add to after each grain (an atomic add per grain of
// about 2 µs, only when a Progress was given). Tracing follows
// runtime/trace: when a trace is being recorded at the start of a call
// (trace.IsEnabled, one atomic load), the call is a trace task named after
// the verb, and each piece a region on the goroutine that ran it, named
// "piece" on the caller's own seat and "stolen piece" elsewhere, with a log
// of its range, so `go tool trace` shows how a call spread over the
// workers.

// Progress counts the items of the calls it is given to (with Track) that
// are done, out of their total. Its methods may be called from any
// goroutine while the calls run. The zero value is ready to use; one
// Progress may follow several calls, one after another or at once.
type Progress struct {
	done, total atomic.Int64
}

// Done returns the number of items done so far: For, Map and ForErr
// bodies that returned, and for ForRange, Reduce, ReduceRange and Fold the
// items of the grains that finished.
func (p *Progress) Done() int64 { return p.done.Load() }

// Total returns the number of items of the tracked calls, counted when
// each call starts.
func (p *Progress) Total() int64 { return p.total.Load() }

// Track reports the call's progress to p: Total grows by n when the call
// starts, and Done as items finish (after each grain, which is about 2 µs
// of work; per item with Blocking). Reading p costs the call nothing; it
// panics if p is nil.
func Track(p *Progress) Option {
	if p == nil {
		panic("par: Track(nil): no Progress given")
	}
	return Option{progress: p}
}

// traced is the trace state of one call: nil ctx when no trace was being
// recorded when it started.
type traced struct {
	traceCtx  context.Context
	traceTask *trace.Task
}

// startTrace makes the call a trace task if a trace is being recorded.
//
// The check inlines into the caller and the rest is a call of its own: its
// frame, on a fresh goroutine calling a verb for the first time, made the
// runtime grow and copy the goroutine's 2 KB stack even with tracing off.
func (tc *traced) startTrace(verb string, n int) {
	if trace.IsEnabled() {
		tc.startTask(verb, n)
	}
}

// startTask is startTrace with tracing on.
//
//go:noinline
func (tc *traced) startTask(verb string, n int) {
	tc.traceCtx, tc.traceTask = trace.NewTask(context.Background(), "par."+verb)
	trace.Log(tc.traceCtx, "n", strconv.Itoa(n))
}

// endTrace ends the call's trace task.
func (tc *traced) endTrace() {
	if tc.traceTask != nil {
		tc.traceTask.End()
		tc.traceTask, tc.traceCtx = nil, nil
	}
}

// pieceRegion starts the trace region of a piece [lo, hi) running on s, or
// returns nil. The caller ends it.
func (c *core) pieceRegion(s *slot, lo, hi int) *trace.Region {
	name := "piece"
	if s != c.owner {
		name = "stolen piece"
	}
	r := trace.StartRegion(c.traceCtx, name)
	trace.Log(c.traceCtx, "range", strconv.Itoa(lo)+"-"+strconv.Itoa(hi))
	return r
}
