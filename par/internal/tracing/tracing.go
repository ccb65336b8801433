// Package tracing makes par's calls visible in runtime/trace. A call that
// starts while a trace is recorded is a task named after the verb, and
// each piece a region on the goroutine that ran it, "piece" on the
// caller's seat and "stolen piece" elsewhere, with a log of its range. A
// fork from outside the pool is a task for its whole call tree, and each
// function a thief ran a "stolen fork" region. A call nested in a traced
// tree is a subtask of the tree's root; ForErr's and MapErr's tasks are
// subtasks of their context's.
//
// A call tree is named by its id (par's slot.tree: a root call's, unique
// among live trees; 0 for none). The first traced call of a tree registers
// its task as the tree's root (TreeTask), until it ends; a root ends after
// its tree's tasks.
package tracing

import (
	"context"
	"runtime/trace"
	"strconv"
	"sync"
)

// Call is a call's trace state: nil Ctx if it started untraced.
type Call struct {
	Ctx  context.Context // the call's task, while it runs traced
	task *trace.Task
	tree uint64 // the call tree whose root task this is (trees), or 0
}

// Start makes the call a trace task, under the task of the root of its
// call tree (tree, 0 for none) if any, else parent (so a request's
// trace.NewTask holds its calls), else none; it logs n, the call's items.
// The first traced call of a tree registers its task as the tree's. Called
// only with tracing on (trace.IsEnabled).
func (tc *Call) Start(verb string, n int, tree uint64, parent context.Context) {
	if root := TreeTask(tree); root != nil {
		parent = root
	} else if parent == nil {
		parent = context.Background()
	}
	tc.Ctx, tc.task = trace.NewTask(parent, "par."+verb)
	trace.Log(tc.Ctx, "n", strconv.Itoa(n))
	if tree != 0 {
		if _, loaded := trees.LoadOrStore(tree, tc.Ctx); !loaded {
			tc.tree = tree
		}
	}
}

// End ends the call's trace task, if it has one.
func (tc *Call) End() {
	if tc.task != nil {
		if tc.tree != 0 {
			trees.Delete(tc.tree)
		}
		tc.task.End()
		*tc = Call{}
	}
}

// trees maps a call tree to its root call's trace context, while tracing:
// written by the root's Start and End, read by the calls nested in the
// tree and by thieves running its forks. Tree ids are unique among live
// trees, and a root ends after its tasks.
var trees sync.Map

// TreeTask returns the trace context of tree's root call, or nil.
func TreeTask(tree uint64) context.Context {
	if tree == 0 {
		return nil
	}
	if ctx, ok := trees.Load(tree); ok {
		return ctx.(context.Context)
	}
	return nil
}

// Fork runs fork, a fork of n functions from outside the pool (the root of
// call tree tree), as a trace task; its nested forks make none. Called
// only with tracing on.
func Fork(tree uint64, verb string, n int, fork func()) {
	var tc Call
	tc.Start(verb, n, tree, nil)
	defer tc.End()
	fork()
}

// StolenFork starts the "stolen fork" region of a fork's function that a
// thief runs in call tree tree, in the tree's task; nil if tracing is off
// or the tree has none.
func StolenFork(tree uint64) *trace.Region {
	if !trace.IsEnabled() {
		return nil
	}
	ctx := TreeTask(tree)
	if ctx == nil {
		return nil
	}
	return trace.StartRegion(ctx, "stolen fork")
}

// EndRegion ends r, if not nil.
func EndRegion(r *trace.Region) {
	if r != nil {
		r.End()
	}
}

// Piece starts the region of piece [lo, hi) of the call whose task is ctx,
// "stolen piece" if a thief runs it, and logs the range; the caller ends it.
func Piece(ctx context.Context, stolen bool, lo, hi int) *trace.Region {
	name := "piece"
	if stolen {
		name = "stolen piece"
	}
	r := trace.StartRegion(ctx, name)
	trace.Log(ctx, "range", strconv.Itoa(lo)+"-"+strconv.Itoa(hi))
	return r
}
