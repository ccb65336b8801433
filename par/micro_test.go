package par

import (
	"fmt"
	"testing"
	"time"

	"github.com/parloop/parloop/par/internal/platform"
)

// Micro-benchmarks of the per-call paths, for profiling. The scoreboard
// against the peers and the goals is in bench/.

var microSink []int

func BenchmarkMicroForRangeTiny(b *testing.B) {
	a := make([]int, 1000)
	body := func(lo, hi int) {
		for i := lo; i < hi; i++ {
			a[i] = 2 * i
		}
	}
	for b.Loop() {
		ForRange(len(a), body)
	}
	microSink = a
}

func BenchmarkMicroForTiny(b *testing.B) {
	a := make([]int, 1000)
	body := func(i int) { a[i] = 2 * i }
	for b.Loop() {
		For(len(a), body)
	}
	microSink = a
}

func BenchmarkMicroJoinInBody(b *testing.B) {
	f := func() {}
	For(1, func(int) {
		for b.Loop() {
			Join(f, f)
		}
	})
}

func BenchmarkMicroInvokeInBody(b *testing.B) {
	f := func() {}
	For(1, func(int) {
		for b.Loop() {
			Invoke([]func(){f, f})
		}
	})
}

//go:noinline
func microSeqFunc(n int, body func(int)) {
	for i := 0; i < n; i++ {
		body(i)
	}
}

//go:noinline
func microSeqRange(n int, body func(lo, hi int)) { body(0, n) }

func BenchmarkMicroSeqFuncTiny(b *testing.B) {
	a := make([]int, 1000)
	body := func(i int) { a[i] = 2 * i }
	for b.Loop() {
		microSeqFunc(len(a), body)
	}
	microSink = a
}

func BenchmarkMicroSeqRangeTiny(b *testing.B) {
	a := make([]int, 1000)
	body := func(lo, hi int) {
		for i := lo; i < hi; i++ {
			a[i] = 2 * i
		}
	}
	for b.Loop() {
		microSeqRange(len(a), body)
	}
	microSink = a
}

func BenchmarkMicroReduceSum(b *testing.B) {
	xs := make([]float64, 1<<20)
	for i := range xs {
		xs[i] = float64(i)
	}
	add := func(a, b float64) float64 { return a + b }
	for b.Loop() {
		Reduce(xs, 0, add)
	}
}

func BenchmarkMicroSeqReduceFunc(b *testing.B) {
	xs := make([]float64, 1<<20)
	for i := range xs {
		xs[i] = float64(i)
	}
	add := func(a, b float64) float64 { return a + b }
	for b.Loop() {
		acc := 0.0
		for _, x := range xs {
			acc = add(acc, x)
		}
		microFloat = acc
	}
}

var microFloat float64

// fib(25) forking at every call, against the sequential recursion and
// against a recursion that allocates what a Join's closures allocate (the
// escaping g closure and the variable it writes) and nothing else: the
// floor that allocation sets under any closure-based fork.

func microFibSeq(n int) int {
	if n < 2 {
		return n
	}
	return microFibSeq(n-1) + microFibSeq(n-2)
}

func microFibJoin(n int) int {
	if n < 2 {
		return n
	}
	var x, y int
	Join(func() { x = microFibJoin(n - 1) }, func() { y = microFibJoin(n - 2) })
	return x + y
}

// benchFib25 times fib(25) computed by fib.
func benchFib25(b *testing.B, fib func(int) int) {
	for b.Loop() {
		microSink = []int{fib(25)}
	}
}

var microEscape func()

//go:noinline
func microRun(f, g func()) {
	microEscape = g
	f()
	g()
}

func microFibAlloc(n int) int {
	if n < 2 {
		return n
	}
	var x, y int
	microRun(func() { x = microFibAlloc(n - 1) }, func() { y = microFibAlloc(n - 2) })
	return x + y
}

func BenchmarkMicroFibSeq(b *testing.B) { benchFib25(b, microFibSeq) }

func BenchmarkMicroFibAllocOnly(b *testing.B) { benchFib25(b, microFibAlloc) }

func BenchmarkMicroFibJoin(b *testing.B) { benchFib25(b, microFibJoin) }

func microFibBoth(n int) int {
	if n < 2 {
		return n
	}
	x, y := Both(func() int { return microFibBoth(n - 1) }, func() int { return microFibBoth(n - 2) })
	return x + y
}

func BenchmarkMicroFibBoth(b *testing.B) { benchFib25(b, microFibBoth) }

func BenchmarkMicroBothInBody(b *testing.B) {
	f := func() int { return 1 }
	For(1, func(int) {
		for b.Loop() {
			Both(f, f)
		}
	})
}

func microFibBothOf(n int) int {
	if n < 2 {
		return n
	}
	x, y := BothOf(microFibBothOf, n-1, microFibBothOf, n-2)
	return x + y
}

func BenchmarkMicroFibBothOf(b *testing.B) { benchFib25(b, microFibBothOf) }

func BenchmarkMicroBothOfInBody(b *testing.B) {
	id := func(x int) int { return x }
	For(1, func(int) {
		for b.Loop() {
			BothOf(id, 1, id, 2)
		}
	})
}

// BenchmarkMicroNested8 is a nested call over 8 trivial items inside a
// body: the per-call cost of parallel recursion written with loops.
func BenchmarkMicroNested8(b *testing.B) {
	var sink [8]int
	f := func(i int) { sink[i]++ }
	For(1, func(int) {
		for b.Loop() {
			For(8, f)
		}
	})
	microSink = sink[:]
}

// microNode is an argument the shape of the published trees' nodes.
type microNode struct {
	State [20]byte
	Depth int32
	Bin   bool
}

func microKids(n microNode, lo, hi int) int {
	s := 0
	for i := lo; i < hi; i++ {
		s += i + int(n.State[i])
	}
	return s
}

func microAdd(a, b int) int { return a + b }

// BenchmarkMicroNestedOf8 is a ReduceRangeOf of 8 trivial items nested in
// a body, the call a recursion makes at every node: at parallelism 1
// (whole), and at 2 on a seat whose deque offers a task that no thief takes
// (the pool's worker parked), so that the call runs in chunks, looking at
// the deque after each (route.go, direct). Instructions by callgrind.
func BenchmarkMicroNestedOf8(b *testing.B) {
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			p := NewPool(Workers(workers))
			defer p.Close()
			var node microNode
			sum := 0
			For(1, func(int) {
				s := seatOf(platform.GoroutineKey())
				if s == nil {
					b.Fatal("no seat inside a call on the pool")
				}
				var offered task
				if workers > 1 {
					for ParkedWorkersForTest(p) != workers-1 {
						time.Sleep(time.Millisecond)
					}
					s.tasks.PushPublic(&offered)
				}
				for b.Loop() {
					sum += ReduceRangeOf(8, node, 0, microKids, microAdd)
				}
				if workers > 1 && s.tasks.Public().Pop() != &offered {
					b.Fatal("a thief took the offered task")
				}
			}, On(p))
			microSink = []int{sum}
		})
	}
}
