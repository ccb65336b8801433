package bench

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/parloop/parloop/bench/workloads"
	"github.com/parloop/parloop/par"
)

// BenchmarkPublishedTrees counts the nodes of UTS's published trees, T1
// (geometric, bushy, depth 10) and T3 (binomial, deep and narrow), 4.1M
// SHA-1 nodes each, written as a Go programmer writes a recursive walk:
//
//   - seq: the plain recursive function;
//   - seq-x2: the machine's ceiling, not an implementation: two walks by
//     seq at once on two goroutines (ns/op per pair); at 2 workers,
//     2 × seq / seq-x2 is the best speedup a scheduler could show;
//   - seq-closures, seq-closures-x2: the closure form's own cost and
//     ceiling, with no scheduler: the sequential walk making, at every
//     node, the closure par.ReduceRange is given, allocated as a closure
//     handed to par is; alone, and two at once (the closure form's best at
//     2 workers is 2 × seq / seq-closures-x2);
//   - par.ReduceRange: count(n) = 1 + ReduceRange over n's children of the
//     children's counts, the leaf a closure over n;
//   - par.ReduceRangeOf: the same with the node passed to a top-level leaf;
//   - par.Scope: a task per subtree, each spawning all but its first child;
//   - par.BothOf: a node's children split in halves by BothOf down to one;
//   - par.For: a nested For over the children, adding into an atomic;
//   - wg-cutoff: a goroutine per child above depth 4 (T1) or per child of
//     the root (T3), then sequential, counts summed through a WaitGroup and
//     an atomic.
func BenchmarkPublishedTrees(b *testing.B) {
	for _, tc := range publishedTrees {
		if testing.Short() && tc.name == "T1" {
			continue // one tree under -short
		}
		for _, impl := range treeImpls(tc.cut) {
			b.Run(fmt.Sprintf("tree=%s/impl=%s", tc.name, impl.name), func(b *testing.B) {
				var pool *par.Pool
				if impl.name[:3] == "par" {
					pool = par.Default()
				}
				m := start(b, pool)
				for range b.N {
					if got := impl.count(tc.root); got != tc.nodes {
						b.Fatalf("%s %s: %d nodes, want %d", tc.name, impl.name, got, tc.nodes)
					}
				}
				m.stop()
			})
		}
	}
}

// publishedTrees are the trees of BenchmarkPublishedTrees and
// BenchmarkBracketed; cut is wg-cutoff's depth.
var publishedTrees = []struct {
	name  string
	root  workloads.SHA1Node
	nodes int
	cut   int32
}{
	{"T1", workloads.UTST1(), workloads.UTST1Nodes, 4},
	{"T3", workloads.UTST3(), workloads.UTST3Nodes, 1},
}

// treeImpl is one way to count a tree's nodes.
type treeImpl struct {
	name  string
	count func(n workloads.SHA1Node) int
}

// treeImpls are BenchmarkPublishedTrees's rows; cut is wg-cutoff's depth.
func treeImpls(cut int32) []treeImpl {
	return []treeImpl{
		{"seq", func(n workloads.SHA1Node) int { return n.Count() }},
		{"seq-x2", func(n workloads.SHA1Node) int { return bothSeq(n.Count) }},
		{"seq-closures", treeSeqClosures},
		{"seq-closures-x2", func(n workloads.SHA1Node) int { return bothSeq(func() int { return treeSeqClosures(n) }) }},
		{"par.ReduceRange", treeReduceRange},
		{"par.ReduceRangeOf", treeReduceRangeOf},
		{"par.BothOf", func(n workloads.SHA1Node) int { return treeBothOf(kidSpan{n, 0, n.Kids()}) + 1 }},
		{"par.Scope", treeScope},
		{"par.For", func(n workloads.SHA1Node) int {
			var c atomic.Int64
			treeFor(n, &c)
			return int(c.Load())
		}},
		{"wg-cutoff", func(n workloads.SHA1Node) int { return treeGoCutoff(n, cut) }},
	}
}

func treeReduceRange(n workloads.SHA1Node) int {
	return 1 + par.ReduceRange(n.Kids(), 0, func(lo, hi int) int {
		s := 0
		for i := lo; i < hi; i++ {
			s += treeReduceRange(n.Child(i))
		}
		return s
	}, func(a, b int) int { return a + b })
}

// treeSeqClosures is treeReduceRange with the call replaced by runLeaf,
// which keeps the closure beyond the call (in the walk's own sink), so that
// it is allocated at every node as par's is.
func treeSeqClosures(n workloads.SHA1Node) int {
	var sink func(lo, hi int) int
	return seqClosures(n, &sink)
}

func seqClosures(n workloads.SHA1Node, sink *func(lo, hi int) int) int {
	return 1 + runLeaf(n.Kids(), func(lo, hi int) int {
		s := 0
		for i := lo; i < hi; i++ {
			s += seqClosures(n.Child(i), sink)
		}
		return s
	}, sink)
}

//go:noinline
func runLeaf(n int, leaf func(lo, hi int) int, sink *func(lo, hi int) int) int {
	*sink = leaf
	return leaf(0, n)
}

// treeReduceRangeOf is treeReduceRange with the node passed, not captured:
// the form the documentation recommends for recursion.
func treeReduceRangeOf(n workloads.SHA1Node) int {
	return 1 + par.ReduceRangeOf(n.Kids(), n, 0, treeKidsOf, addInt)
}

func treeKidsOf(n workloads.SHA1Node, lo, hi int) int {
	s := 0
	for i := lo; i < hi; i++ {
		s += treeReduceRangeOf(n.Child(i))
	}
	return s
}

func addInt(a, b int) int { return a + b }

// kidSpan is the children [lo, hi) of a node.
type kidSpan struct {
	n      workloads.SHA1Node
	lo, hi int
}

// treeBothOf counts the subtrees of sp's children, splitting the children
// in halves with BothOf down to one child, whose count is 1 plus its own
// children's.
func treeBothOf(sp kidSpan) int {
	switch sp.hi - sp.lo {
	case 0:
		return 0
	case 1:
		c := sp.n.Child(sp.lo)
		return 1 + treeBothOf(kidSpan{c, 0, c.Kids()})
	}
	mid := sp.lo + (sp.hi-sp.lo)/2
	a, b := par.BothOf(treeBothOf, kidSpan{sp.n, sp.lo, mid}, treeBothOf, kidSpan{sp.n, mid, sp.hi})
	return a + b
}

func treeFor(n workloads.SHA1Node, c *atomic.Int64) {
	c.Add(1)
	par.For(n.Kids(), func(i int) { treeFor(n.Child(i), c) })
}

func treeGoCutoff(n workloads.SHA1Node, cut int32) int {
	if n.Depth >= cut {
		return n.Count()
	}
	var wg sync.WaitGroup
	var c atomic.Int64
	c.Add(1)
	for i := range n.Kids() {
		wg.Go(func() { c.Add(int64(treeGoCutoff(n.Child(i), cut))) })
	}
	wg.Wait()
	return int(c.Load())
}
