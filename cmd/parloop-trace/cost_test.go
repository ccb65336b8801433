package main

import (
	"testing"

	"github.com/parloop/parloop/par"
)

// The cost of the trace hooks with tracing off, on the paths that carry
// them: a range call and a fork from outside the pool (each reads
// trace.IsEnabled once), and forks nested in a call tree, which read
// nothing unless a fork is stolen. Compare a build of par with the hooks
// against one without (bench/ANALYSIS.md has the run).

var costSink int

// costPool is a pool of its own, closed by each benchmark (TestMain checks
// that no goroutine is left).
func costPool(b *testing.B) par.Option {
	p := par.NewPool()
	b.Cleanup(p.Close)
	return par.On(p)
}

func BenchmarkCostForRangeTiny(b *testing.B) {
	a := make([]int, 1000)
	body := func(lo, hi int) {
		for i := lo; i < hi; i++ {
			a[i] = 2 * i
		}
	}
	on := costPool(b)
	for b.Loop() {
		par.ForRange(len(a), body, on)
	}
	costSink = a[1]
}

func BenchmarkCostJoinFromOutside(b *testing.B) {
	x, y := 0, 0
	f, g := func() { x++ }, func() { y++ }
	on := costPool(b)
	for b.Loop() {
		par.Join(f, g, on)
	}
	costSink = x + y
}

func BenchmarkCostBothOfFromOutside(b *testing.B) {
	id := func(x int) int { return x }
	on := costPool(b)
	for b.Loop() {
		x, y := par.BothOf(id, 1, id, 2, on)
		costSink += x + y
	}
}

func costFib(n int) int {
	if n < 2 {
		return n
	}
	x, y := par.BothOf(costFib, n-1, costFib, n-2)
	return x + y
}

func BenchmarkCostFibBothOf20(b *testing.B) {
	on := costPool(b)
	for b.Loop() {
		x, y := par.Both(func() int { return costFib(19) }, func() int { return costFib(18) }, on)
		costSink = x + y
	}
}
