package bench

import (
	"testing"

	"github.com/parloop/parloop/bench/workloads"
)

// BenchmarkFramesPerLevel is the sequential T1 walk with eight more
// frames on the stack at every level of the recursion, each a call that
// only calls the next: frames=8-ptr passes the node by pointer, frames=8
// by value (a SHA1Node is 32 bytes, copied at every call). It measures
// what the depth of the call chain a parallel verb puts between a node and
// its children costs by itself, apart from the verb's instructions: a
// ReduceRangeOf walk at parallelism 1 has about nine frames a level.
func BenchmarkFramesPerLevel(b *testing.B) {
	if testing.Short() {
		b.Skip("walks T1, 4.1M nodes")
	}
	root := workloads.UTST1()
	for _, impl := range []struct {
		name  string
		count func(workloads.SHA1Node) int
	}{
		{"frames=0", workloads.SHA1Node.Count},
		{"frames=8-ptr", countPtrFrames},
		{"frames=8", countValueFrames},
	} {
		b.Run(impl.name, func(b *testing.B) {
			for range b.N {
				if got := impl.count(root); got != workloads.UTST1Nodes {
					b.Fatalf("%d nodes, want %d", got, workloads.UTST1Nodes)
				}
			}
		})
	}
}

//go:noinline
func countValueFrames(n workloads.SHA1Node) int {
	c := 1
	for i := range n.Kids() {
		c += valueFrame(8, n.Child(i))
	}
	return c
}

// valueFrame calls itself k times, passing the node by value, then counts.
//
//go:noinline
func valueFrame(k int, n workloads.SHA1Node) int {
	if k == 0 {
		return countValueFrames(n)
	}
	return valueFrame(k-1, n) + 0
}

//go:noinline
func countPtrFrames(n workloads.SHA1Node) int {
	c := 1
	for i := range n.Kids() {
		kid := n.Child(i)
		c += ptrFrame(8, &kid)
	}
	return c
}

// ptrFrame calls itself k times, passing a pointer to the node, then counts.
//
//go:noinline
func ptrFrame(k int, n *workloads.SHA1Node) int {
	if k == 0 {
		return countPtrFrames(*n)
	}
	return ptrFrame(k-1, n) + 0
}
