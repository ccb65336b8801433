package par

import (
	"context"
	"runtime/trace"
	"strconv"
	"sync"
	"sync/atomic"
)

// Observing calls, at a nil test per grain when unused: Progress counters,
// added to after each grain, and runtime/trace. A call that starts while a
// trace is recorded is a task named after the verb, and each piece a
// region on the goroutine that ran it, "piece" on the caller's seat and
// "stolen piece" elsewhere, with a log of its range. A fork from outside
// the pool is a task for its whole call tree, and each function a thief ran
// a "stolen fork" region. A call nested in a traced tree is a subtask of
// the tree's root; ForErr's and MapErr's tasks are subtasks of their
// context's.

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

// traced is a call's trace state: nil traceCtx if it started untraced.
type traced struct {
	traceCtx  context.Context
	traceTask *trace.Task
	traceTree uint64 // the call tree whose root task this is (treeTasks), or 0
}

// startTrace makes the call on slot s (nil: none) a trace task, under the
// verb's context parent (or nil), if tracing (tc.traceCtx is then set).
// The check inlines; the rest's frame would grow a fresh goroutine's stack
// even with tracing off.
func (tc *traced) startTrace(verb string, n int, s *slot, parent context.Context) {
	if trace.IsEnabled() {
		tc.startTask(verb, n, s, parent)
	}
}

// startTask is startTrace with tracing on, under the task of the root of
// s's call tree if any, else parent (so a request's trace.NewTask holds its
// calls). The first traced call of a tree registers its task as the tree's.
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

// treeTasks maps a call tree (slot.tree) to its root call's trace context,
// while tracing: written by the root's startTask and endTrace, read by the
// calls nested in the tree and by thieves running its forks. Tree ids are
// unique among live trees (seats.go), and a root ends after its tasks.
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

// tracedFork runs fork, a fork of n functions from outside the pool (on
// guest seat s, the root of a call tree), as a trace task; its nested
// forks make none. Called only with tracing on.
func tracedFork(s *slot, verb string, n int, fork func()) {
	var tc traced
	tc.startTask(verb, n, s, nil)
	defer tc.endTrace()
	fork()
}

// stolenFork starts the "stolen fork" region of a fork's function run by
// thief s, in its tree's task; nil if tracing is off or the tree has none.
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

// pieceRegion starts the region of piece [lo, hi) on s; the caller ends it.
func (c *core) pieceRegion(s *slot, lo, hi int) *trace.Region {
	name := "piece"
	if s != c.owner {
		name = "stolen piece"
	}
	r := trace.StartRegion(c.traceCtx, name)
	trace.Log(c.traceCtx, "range", strconv.Itoa(lo)+"-"+strconv.Itoa(hi))
	return r
}
