package par_test

import (
	"sync/atomic"
	"testing"

	"github.com/parloop/parloop/par"
)

// ofNode is a node of an implicit tree: its children are derived from it,
// as in a search, so a walk passes nodes by value.
type ofNode struct {
	id    uint64
	depth int32
	_     [2]uint64 // a node of several words, as a hash state is
}

func (n ofNode) kids() int {
	if n.depth >= 8 {
		return 0
	}
	return int(n.id%5) + 1
}

func (n ofNode) child(i int) ofNode {
	x := n.id*0x9e3779b97f4a7c15 + uint64(i+1)
	x ^= x >> 31
	return ofNode{id: x, depth: n.depth + 1}
}

func countSeq(n ofNode) int {
	c := 1
	for i := range n.kids() {
		c += countSeq(n.child(i))
	}
	return c
}

func countOf(n ofNode) int { return 1 + par.ReduceRangeOf(n.kids(), n, 0, countKids, addInts) }

func countKids(n ofNode, lo, hi int) int {
	s := 0
	for i := lo; i < hi; i++ {
		s += countOf(n.child(i))
	}
	return s
}

func addInts(a, b int) int { return a + b }

var visited atomic.Int64

func visitOf(n ofNode, i int) {
	visited.Add(1)
	c := n.child(i)
	par.ForOf(c.kids(), c, visitOf)
}

// Catches: Of forms that lose or repeat work, or fold out of order, on
// pools of every size and nested to every depth.
func TestOfFormsMatchSequential(t *testing.T) {
	root := ofNode{id: 12345}
	want := countSeq(root)
	for _, workers := range []int{1, 2, 4} {
		p := newPool(t, par.Workers(workers))
		par.For(1, func(int) {
			if got := countOf(root); got != want {
				t.Errorf("workers=%d: ReduceRangeOf counted %d nodes, want %d", workers, got, want)
			}
			visited.Store(0)
			par.ForOf(root.kids(), root, visitOf)
			if got := int(visited.Load()) + 1; got != want {
				t.Errorf("workers=%d: ForOf visited %d nodes, want %d", workers, got, want)
			}
		}, par.On(p))
	}
	if got := countOf(root); got != want { // from outside any pool
		t.Errorf("from outside: ReduceRangeOf counted %d nodes, want %d", got, want)
	}
	concat := par.ReduceRangeOf(100, "x", "", func(s string, lo, hi int) string {
		out := ""
		for i := lo; i < hi; i++ {
			out += string(rune('a' + i%26))
		}
		return out
	}, func(a, b string) string { return a + b }, par.Deterministic())
	if len(concat) != 100 || concat[:3] != "abc" || concat[26:29] != "abc" {
		t.Errorf("ReduceRangeOf with Deterministic folded out of order: %q", concat)
	}
}

// Catches: a recursion through the Of forms allocating per node (a box, a
// closure, the argument moved to the heap, a frame per framed call). At
// parallelism 1 a walk allocates nothing; at 2, only the joins of its
// reductions' splits, far fewer than its nodes.
func TestOfFormsAllocateNothingPerNode(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	root := ofNode{id: 12345}
	nodes := float64(countSeq(root))
	for _, workers := range []int{1, 2} {
		p := newPool(t, par.Workers(workers))
		par.For(1, func(int) {
			countOf(root) // every depth reached once
			want := 0.0
			if workers > 1 {
				want = nodes / 50
			}
			if a := testing.AllocsPerRun(20, func() { countOf(root) }); a > want {
				t.Errorf("workers=%d: ReduceRangeOf walk of %.0f nodes made %.0f allocations, want at most %.0f", workers, nodes, a, want)
			}
			if a := testing.AllocsPerRun(20, func() { par.ForOf(root.kids(), root, visitOf) }); a > want {
				t.Errorf("workers=%d: ForOf walk of %.0f nodes made %.0f allocations, want at most %.0f", workers, nodes, a, want)
			}
		}, par.On(p))
	}
}

// Catches: a panic in an Of body not reaching the caller as a *PanicError,
// and nil functions accepted.
func TestOfFormsPanics(t *testing.T) {
	p := newPool(t, par.Workers(2))
	pe := wantPanicError(t, "ForOf", func() {
		par.ForOf(100, 7, func(a, i int) {
			if i == 42 {
				panic(a)
			}
		}, par.On(p))
	})
	if pe.Value != 7 || pe.Lo > 42 || pe.Hi <= 42 {
		t.Errorf("ForOf panicked with %v over [%d, %d), want 7 over a piece holding index 42", pe.Value, pe.Lo, pe.Hi)
	}
	for name, f := range map[string]func(){
		"ForOf":                 func() { par.ForOf[int](1, 0, nil) },
		"ReduceRangeOf leaf":    func() { par.ReduceRangeOf[int, int](1, 0, 0, nil, addInts) },
		"ReduceRangeOf combine": func() { par.ReduceRangeOf(1, 0, 0, func(int, int, int) int { return 0 }, nil) },
	} {
		if _, panicked := catch(f); !panicked {
			t.Errorf("%s with a nil function: no panic", name)
		}
	}
}

// Catches: a leaf (n <= 0, no options) that calls a function, sets up a
// call, or is not told from a call with options, which looks at them.
func TestOfFormsLeavesReturnAtOnce(t *testing.T) {
	var calls atomic.Int64
	leaf := func(int, int, int) int { calls.Add(1); return 1 }
	body := func(int, int) { calls.Add(1) }
	leaves := func(n int) {
		if got := par.ReduceRangeOf(n, 0, 7, leaf, addInts); got != 7 {
			t.Errorf("ReduceRangeOf(%d, ...) = %d, want the identity 7", n, got)
		}
		if got := par.ReduceRangeOf(n, 0, 7, leaf, addInts, []par.Option{}...); got != 7 {
			t.Errorf("ReduceRangeOf(%d, ..., no options but a slice) = %d, want 7", n, got)
		}
		par.ForOf(n, 0, body)
		par.ForOf(n, 0, body, []par.Option{}...)
		// A leaf does not look at its functions (the package's comment in
		// of.go says why): nil ones return as the others do.
		if got := par.ReduceRangeOf[int, int](n, 0, 7, nil, nil); got != 7 {
			t.Errorf("ReduceRangeOf(%d, ..., nil, nil) = %d, want 7", n, got)
		}
		par.ForOf[int](n, 0, nil)
	}
	// From outside a pool, and inside a body at parallelism 1, where a call
	// runs by its verb on its seat.
	p := newPool(t, par.Workers(1))
	for _, n := range []int{0, -3} {
		leaves(n)
		par.For(1, func(int) { leaves(n) }, par.On(p))
	}
	if c := calls.Load(); c != 0 {
		t.Errorf("calls over no items ran their functions %d times", c)
	}
	// With options the call looks at its arguments, as every verb does.
	if _, panicked := catch(func() { par.ReduceRangeOf[int, int](0, 0, 7, nil, addInts, par.Grain(1)) }); !panicked {
		t.Error("ReduceRangeOf over no items with an option and a nil leaf: no panic")
	}
	if _, panicked := catch(func() { par.ForOf(0, 0, body, par.Deterministic()) }); !panicked {
		t.Error("ForOf over no items with an option it does not take: no panic")
	}
}
