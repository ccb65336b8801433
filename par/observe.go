package par

import (
	"context"
	"runtime/trace"
	"strconv"
	"sync"
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
// workers. A fork from outside the pool is a task too, for its whole call
// tree, and each of the tree's functions that a thief ran a "stolen fork"
// region. A call nested in a traced tree is a subtask of the tree's root;
// ForErr's and MapErr's tasks are subtasks of their context's task.

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
	traceTree uint64 // the call tree whose root task this is (treeTasks), or 0
}

// startTrace makes the call a trace task if a trace is being recorded: on
// slot s (nil: no seat) and under parent, the verb's context (nil if it
// has none).
//
// The check inlines into the caller and the rest is a call of its own: its
// frame, on a fresh goroutine calling a verb for the first time, made the
// runtime grow and copy the goroutine's 2 KB stack even with tracing off.
func (tc *traced) startTrace(verb string, n int, s *slot, parent context.Context) {
	if trace.IsEnabled() {
		tc.startTask(verb, n, s, parent)
	}
}

// startTask is startTrace with tracing on. The task's parent is the task of
// the root of s's call tree if the call is nested in one (so a call tree
// reads as one task with subtasks), else parent, the verb's context (so a
// request's trace.NewTask holds the calls made with its context). The first
// traced call of a tree registers its task as the tree's.
//
//go:noinline
func (tc *traced) startTask(verb string, n int, s *slot, parent context.Context) {
	var tree uint64
	if s != nil {
		tree = s.tree
	}
	if root := treeTask(tree); root != nil {
		parent = root
	} else if parent == nil {
		parent = context.Background()
	}
	tc.traceCtx, tc.traceTask = trace.NewTask(parent, "par."+verb)
	trace.Log(tc.traceCtx, "n", strconv.Itoa(n))
	if tree != 0 {
		if _, loaded := treeTasks.LoadOrStore(tree, tc.traceCtx); !loaded {
			tc.traceTree = tree
		}
	}
}

// endTrace ends the call's trace task.
func (tc *traced) endTrace() {
	if tc.traceTask != nil {
		if tc.traceTree != 0 {
			treeTasks.Delete(tc.traceTree)
		}
		tc.traceTask.End()
		*tc = traced{}
	}
}

// treeTasks maps a call tree (slot.tree) to the trace context of its root
// call, while tracing: written by the root call's startTask and endTrace,
// read by the calls nested in the tree and by thieves running its forks.
// Tree ids are unique among live trees (seats.go), and a root ends after
// every task of its tree has run.
var treeTasks sync.Map

// treeTask returns the trace context of tree's root call, or nil.
func treeTask(tree uint64) context.Context {
	if tree == 0 {
		return nil
	}
	if ctx, ok := treeTasks.Load(tree); ok {
		return ctx.(context.Context)
	}
	return nil
}

// tracedFork runs fork, a fork from outside the pool (Join, Both, BothOf,
// Invoke on the guest seat s: the root of a call tree), as a trace task,
// with n its number of functions. The forks nested in it make no task of
// their own: a recursion of a million forks is one task. Called with
// tracing on only, so that the verbs pay a load and a branch when it is
// off.
func tracedFork(s *slot, verb string, n int, fork func()) {
	var tc traced
	tc.startTask(verb, n, s, nil)
	defer tc.endTrace()
	fork()
}

// stolenFork starts the region of a fork's function run by a thief, s, in
// the task of its call tree: "stolen fork". It returns nil when tracing is
// off or the tree has no task (it began before the trace did).
func stolenFork(s *slot) *trace.Region {
	if !trace.IsEnabled() {
		return nil
	}
	ctx := treeTask(s.tree)
	if ctx == nil {
		return nil
	}
	return trace.StartRegion(ctx, "stolen fork")
}

// endRegion ends r, if not nil.
func endRegion(r *trace.Region) {
	if r != nil {
		r.End()
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
