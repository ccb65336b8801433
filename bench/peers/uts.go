package peers

import (
	"sync"
	"sync/atomic"

	"github.com/parloop/parloop/bench/workloads"
	"github.com/parloop/parloop/par"
)

// UTSWalk is one way of counting the nodes of the unbalanced tree: a
// recursive walk with a parallel loop (or fork) over every node's children,
// nested as deep as the tree. A leaf calls no verb, as a walk written by
// hand would not.
type UTSWalk struct {
	Name    string
	Parloop bool
	Count   func(t *workloads.UTS) workloads.UTSCount
}

// UTSWalks returns the walks: seq first, parloop's last.
func UTSWalks() []UTSWalk {
	return []UTSWalk{
		{Name: "seq", Count: func(t *workloads.UTS) workloads.UTSCount { return t.Seq(t.Root(), 0) }},
		{Name: "seq-for-body", Count: func(t *workloads.UTS) workloads.UTSCount { return UTSForBody(t, t.Root(), 0) }},
		{Name: "wg-cutoff", Count: func(t *workloads.UTS) workloads.UTSCount {
			return UTSGoroutines(t, t.Root(), 0, workloads.UTSCutDepth)
		}},
		{Name: "par.ReduceRange", Parloop: true, Count: func(t *workloads.UTS) workloads.UTSCount { return UTSReduceRange(t, t.Root(), 0) }},
		{Name: "par.For", Parloop: true, Count: func(t *workloads.UTS) workloads.UTSCount { return UTSFor(t, t.Root(), 0) }},
		{Name: "par.BothOf", Parloop: true, Count: func(t *workloads.UTS) workloads.UTSCount { return UTSBothOf(t, t.Root(), 0) }},
	}
}

// UTSGoroutines starts a goroutine per child for the children of nodes at
// depths <= cut and walks the rest serially: the usual hand-written form.
func UTSGoroutines(t *workloads.UTS, id uint64, depth, cut int) workloads.UTSCount {
	if depth > cut {
		return t.Seq(id, depth)
	}
	k, v := t.Visit(id, depth)
	sub := make([]workloads.UTSCount, k)
	var wg sync.WaitGroup
	for i := range k {
		wg.Go(func() { sub[i] = UTSGoroutines(t, workloads.UTSChild(id, i), depth+1, cut) })
	}
	wg.Wait()
	c := workloads.UTSCount{N: 1, Sum: v}
	for _, s := range sub {
		c = c.Add(s)
	}
	return c
}

// UTSReduceRange sums the children's counts with a nested par.ReduceRange
// at every inner node.
func UTSReduceRange(t *workloads.UTS, id uint64, depth int) workloads.UTSCount {
	k, v := t.Visit(id, depth)
	c := workloads.UTSCount{N: 1, Sum: v}
	if k == 0 {
		return c
	}
	kids := par.ReduceRange(k, workloads.UTSCount{}, func(lo, hi int) workloads.UTSCount {
		var s workloads.UTSCount
		for i := lo; i < hi; i++ {
			s = s.Add(UTSReduceRange(t, workloads.UTSChild(id, i), depth+1))
		}
		return s
	}, workloads.UTSCount.Add)
	return c.Add(kids)
}

// UTSFor walks the children with a nested par.For at every inner node, each
// child adding its subtree's count to the node's atomic counters.
func UTSFor(t *workloads.UTS, id uint64, depth int) workloads.UTSCount {
	return utsLoopWalk(t, id, depth, parFor)
}

// UTSForBody is UTSFor with a plain loop in place of par.For: the same
// closure (allocated as UTSFor's is, since the loop is a func value) and two
// atomic adds per child, run on one goroutine. It is what the par.For walk
// costs before any scheduling: the sequential time its speedup could be
// measured against.
func UTSForBody(t *workloads.UTS, id uint64, depth int) workloads.UTSCount {
	return utsLoopWalk(t, id, depth, loopCalls)
}

// utsLoopWalk counts the subtree of node id with loop(k, f) over every
// inner node's k children.
func utsLoopWalk(t *workloads.UTS, id uint64, depth int, loop func(n int, f func(int))) workloads.UTSCount {
	k, v := t.Visit(id, depth)
	c := workloads.UTSCount{N: 1, Sum: v}
	if k == 0 {
		return c
	}
	var n, sum atomic.Uint64
	loop(k, func(i int) {
		s := utsLoopWalk(t, workloads.UTSChild(id, i), depth+1, loop)
		n.Add(s.N)
		sum.Add(s.Sum)
	})
	return c.Add(workloads.UTSCount{N: n.Load(), Sum: sum.Load()})
}

func parFor(n int, f func(int)) { par.For(n, f) }

// loopCalls calls f(i) for i in [0, n).
func loopCalls(n int, f func(int)) {
	for i := range n {
		f(i)
	}
}

// utsKids is the children [lo, hi) of node id at depth, the argument of
// par.BothOf.
type utsKids struct {
	t      *workloads.UTS
	id     uint64
	depth  int
	lo, hi int
}

// UTSBothOf forks every inner node's children in halves, recursively, with
// par.BothOf (no closures).
func UTSBothOf(t *workloads.UTS, id uint64, depth int) workloads.UTSCount {
	k, v := t.Visit(id, depth)
	c := workloads.UTSCount{N: 1, Sum: v}
	if k == 0 {
		return c
	}
	return c.Add(utsBothOfKids(utsKids{t, id, depth, 0, k}))
}

func utsBothOfKids(r utsKids) workloads.UTSCount {
	switch r.hi - r.lo {
	case 0:
		return workloads.UTSCount{}
	case 1:
		return UTSBothOf(r.t, workloads.UTSChild(r.id, r.lo), r.depth+1)
	}
	mid := int(uint(r.lo+r.hi) / 2)
	a, b := par.BothOf(utsBothOfKids, utsKids{r.t, r.id, r.depth, r.lo, mid}, utsBothOfKids, utsKids{r.t, r.id, r.depth, mid, r.hi})
	return a.Add(b)
}
