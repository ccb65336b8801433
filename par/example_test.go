package par_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/parloop/parloop/par"
)

func ExampleFor() {
	squares := make([]int, 8)
	par.For(len(squares), func(i int) {
		squares[i] = i * i // each body writes only its own element
	})
	fmt.Println(squares)
	// Output: [0 1 4 9 16 25 36 49]
}

func ExampleForRange() {
	data := make([]int, 10_000)
	for i := range data {
		data[i] = i
	}
	var total atomic.Int64
	par.ForRange(len(data), func(lo, hi int) {
		sum := 0 // a local sum per piece, one shared update per piece
		for _, x := range data[lo:hi] {
			sum += x
		}
		total.Add(int64(sum))
	})
	fmt.Println(total.Load())
	// Output: 49995000
}

func ExampleMap() {
	words := []string{"work", "stealing", "runtime"}
	lengths := par.Map(words, func(w string) int { return len(w) })
	fmt.Println(lengths)
	// Output: [4 8 7]
}

func ExampleReduce() {
	// combine must be associative but need not be commutative: the result
	// is the left fold, in index order.
	letters := strings.Split("parallel", "")
	word := par.Reduce(letters, ">", func(a, b string) string { return a + b })
	fmt.Println(word)
	// Output: >parallel
}

func ExampleDeterministic() {
	xs := make([]float64, 100_000)
	for i := range xs {
		xs[i] = 1 / float64(i+1)
	}
	add := func(a, b float64) float64 { return a + b }
	one := par.NewPool(par.Workers(1))
	defer one.Close()
	three := par.NewPool(par.Workers(3))
	defer three.Close()
	a := par.Reduce(xs, 0, add, par.Deterministic(), par.On(one))
	b := par.Reduce(xs, 0, add, par.Deterministic(), par.On(three))
	fmt.Printf("%.6f, bitwise equal on 1 and 3 workers: %v\n", a, a == b)
	// Output: 12.090146, bitwise equal on 1 and 3 workers: true
}

func ExampleInvoke() {
	var parsed, indexed, checked string
	par.Invoke([]func(){
		func() { parsed = "parsed" },
		func() { indexed = "indexed" },
		func() { checked = "checked" },
	})
	fmt.Println(parsed, indexed, checked)
	// Output: parsed indexed checked
}

func ExampleJoin() {
	var sum func(xs []int) int
	sum = func(xs []int) int {
		if len(xs) <= 1000 {
			s := 0
			for _, x := range xs {
				s += x
			}
			return s
		}
		var left, right int
		mid := len(xs) / 2
		par.Join(func() { left = sum(xs[:mid]) }, func() { right = sum(xs[mid:]) })
		return left + right
	}
	xs := make([]int, 100_000)
	for i := range xs {
		xs[i] = 2
	}
	fmt.Println(sum(xs))
	// Output: 200000
}

func ExampleForErr() {
	items := []string{"a", "b", "", "d"}
	err := par.ForErr(context.Background(), len(items), func(ctx context.Context, i int) error {
		if items[i] == "" {
			return fmt.Errorf("item %d is empty", i)
		}
		return ctx.Err() // stop early once another body has failed
	})
	fmt.Println(err)
	// Output: item 2 is empty
}

func ExamplePool() {
	p := par.NewPool(par.Workers(2))
	defer p.Close()
	out := make([]int, 5)
	par.For(len(out), func(i int) { out[i] = 10 * i }, par.On(p))
	fmt.Println(p.Workers(), out)
	// Output: 2 [0 10 20 30 40]
}

func ExamplePool_Stats() {
	p := par.NewPool(par.Workers(2))
	defer p.Close()
	p.ResetStats()
	par.For(1000, func(int) {}, par.On(p))
	fmt.Println("pieces counted:", p.Stats().Total().Pieces > 0)
	// Output: pieces counted: true
}

func ExamplePanicError() {
	defer func() {
		var pe *par.PanicError
		if err, ok := recover().(error); ok && errors.As(err, &pe) {
			fmt.Println("recovered:", pe.Value)
		}
	}()
	par.For(10, func(i int) {
		if i == 7 {
			panic("bad input 7")
		}
	})
	// Output: recovered: bad input 7
}

func ExampleBoth() {
	var fib func(n int) int
	fib = func(n int) int {
		if n < 20 {
			a, b := 0, 1
			for range n {
				a, b = b, a+b
			}
			return a
		}
		x, y := par.Both(func() int { return fib(n - 1) }, func() int { return fib(n - 2) })
		return x + y
	}
	fmt.Println(fib(30))
	// Output: 832040
}

func fibonacci(n int) int {
	if n < 20 {
		a, b := 0, 1
		for range n {
			a, b = b, a+b
		}
		return a
	}
	x, y := par.BothOf(fibonacci, n-1, fibonacci, n-2) // no closures: a fork allocates nothing
	return x + y
}

func ExampleBothOf() {
	fmt.Println(fibonacci(30))
	// Output: 832040
}

func ExampleFold() {
	words := strings.Fields("the quick brown fox jumps over the lazy dog the end")
	counts := par.Fold(len(words),
		func() map[string]int { return map[string]int{} }, // one map per worker, not per piece
		func(m *map[string]int, lo, hi int) {
			for _, w := range words[lo:hi] {
				(*m)[w]++
			}
		},
		func(a, b map[string]int) map[string]int {
			for w, n := range b {
				a[w] += n
			}
			return a
		})
	fmt.Println(counts["the"], counts["fox"], len(counts))
	// Output: 3 1 9
}

// A tree walked by tasks that spawn a task per child: the tasks run on the
// pool, with no goroutine each, and Scope returns once all have.
func ExampleScope() {
	type node struct {
		size     int64
		children []*node
	}
	leaf := func(size int64) *node { return &node{size: size} }
	root := &node{size: 1, children: []*node{
		{size: 10, children: []*node{leaf(100), leaf(200)}},
		{size: 20, children: []*node{leaf(300), {size: 30, children: []*node{leaf(400)}}}},
	}}

	var total atomic.Int64
	par.Scope(func(s *par.Spawner) {
		var visit func(n *node)
		visit = func(n *node) {
			total.Add(n.size)
			for _, c := range n.children {
				s.Go(func() { visit(c) })
			}
		}
		visit(root)
	})
	fmt.Println(total.Load())
	// Output: 1061
}

// A graph searched from node 0 with ScopeOf: each task visits a node and
// spawns a task for each neighbour it is the first to see, passing the node
// to the one task function instead of a closure per task.
func ExampleScopeOf() {
	edges := [][]int{0: {1, 2}, 1: {3}, 2: {3, 4}, 3: {0, 5}, 4: {5}, 5: {}}
	seen := make([]atomic.Bool, len(edges))
	var reached atomic.Int64
	seen[0].Store(true)
	par.ScopeOf(func(s *par.SpawnerOf[int]) { s.Go(0) }, func(s *par.SpawnerOf[int], v int) {
		reached.Add(1)
		for _, w := range edges[v] {
			if seen[w].CompareAndSwap(false, true) {
				s.Go(w)
			}
		}
	})
	fmt.Println(reached.Load())
	// Output: 6
}

// ScopeErr stops at the first error: tasks not yet started do not start,
// and the error is returned once the running ones have returned.
func ExampleScopeErr() {
	jobs := make(chan int)
	go func() {
		defer close(jobs)
		for i := range 5 {
			jobs <- i
		}
	}()
	err := par.ScopeErr(context.Background(), func(ctx context.Context, s *par.ErrSpawner) error {
		for j := range jobs { // a task per job, as it arrives
			s.Go(func() error {
				if j == 3 {
					return fmt.Errorf("job %d failed", j)
				}
				return nil
			})
		}
		return nil
	})
	fmt.Println(err)
	// Output: job 3 failed
}

// exNode is a node of a tree whose children are found from the node, as
// in a search: a walk passes nodes by value.
type exNode struct{ id, depth int }

func (n exNode) kids() int          { return max(0, 3-n.depth) }
func (n exNode) child(i int) exNode { return exNode{n.id*4 + i + 1, n.depth + 1} }

func countNodes(n exNode) int { return 1 + par.ReduceRangeOf(n.kids(), n, 0, countChildren, add) }

func countChildren(n exNode, lo, hi int) int {
	s := 0
	for i := lo; i < hi; i++ {
		s += countNodes(n.child(i))
	}
	return s
}

func add(a, b int) int { return a + b }

// A recursive count with the node passed to top-level functions, not
// captured by a closure: nothing is allocated per node.
func ExampleReduceRangeOf() {
	fmt.Println(countNodes(exNode{}))
	// Output: 16
}

func sumHalves(xs []int) {
	if len(xs) <= 2 {
		if len(xs) == 2 {
			xs[0] += xs[1]
		}
		return
	}
	mid := len(xs) / 2
	par.JoinOf(sumHalves, xs[:mid], sumHalves, xs[mid:])
	xs[0] += xs[mid]
}

// A divide and conquer over a slice with no results: JoinOf passes each
// half to the function, and allocates nothing.
func ExampleJoinOf() {
	xs := []int{1, 2, 3, 4, 5, 6, 7, 8}
	sumHalves(xs) // leaves the sum in xs[0]
	fmt.Println(xs[0])
	// Output: 36
}
