package bench

import (
	"fmt"
	"sync"
	"testing"

	"github.com/parloop/parloop/bench/workloads"
	"github.com/parloop/parloop/par"
)

// Hand-tuned cutoffs of the wg-cutoff peer: below them it recurses serially.
const (
	fib30HandCutoff = 20      // 143 goroutines, leaves of ~60 µs
	fib35HandCutoff = 25      // 143 goroutines
	qsortHandCutoff = 1 << 16 // partitions of 64Ki elements or fewer run serially
)

// fibParJoin forks every call above cutoff with par.Join, called directly (no
// func value in between, as a user would write it).
func fibParJoin(n, cutoff int) int {
	if n <= cutoff || n < 2 {
		return workloads.FibSeq(n)
	}
	var x, y int
	par.Join(func() { x = fibParJoin(n-1, cutoff) }, func() { y = fibParJoin(n-2, cutoff) })
	return x + y
}

// fibParBoth is fibParJoin with par.Both: g returns its result, so its
// closure captures only n and the fork allocates that closure alone.
func fibParBoth(n, cutoff int) int {
	if n <= cutoff || n < 2 {
		return workloads.FibSeq(n)
	}
	x, y := par.Both(func() int { return fibParBoth(n-1, cutoff) }, func() int { return fibParBoth(n-2, cutoff) })
	return x + y
}

// fibParBothOf is fibParJoin with par.BothOf: no closures, so with a plain
// int argument the fork allocates nothing.
func fibParBothOf(n, cutoff int) int {
	if n <= cutoff || n < 2 {
		return workloads.FibSeq(n)
	}
	fibCutoff = cutoff
	return fibBothOfStep(n)
}

// fibCutoff is the cutoff fibBothOfStep uses; BothOf passes a single
// argument, so the cutoff is a package variable set before each run.
var fibCutoff = 1

func fibBothOfStep(n int) int {
	if n <= fibCutoff || n < 2 {
		return workloads.FibSeq(n)
	}
	x, y := par.BothOf(fibBothOfStep, n-1, fibBothOfStep, n-2)
	return x + y
}

// fibParInvoke is fibParJoin with par.Invoke.
func fibParInvoke(n, cutoff int) int {
	if n <= cutoff || n < 2 {
		return workloads.FibSeq(n)
	}
	var x, y int
	par.Invoke([]func(){func() { x = fibParInvoke(n-1, cutoff) }, func() { y = fibParInvoke(n-2, cutoff) }})
	return x + y
}

func fibWork(n, cutoff, handCutoff int, skip ...string) *forkWork {
	want := workloads.FibValue(n)
	var got int
	return &forkWork{
		plain: func() { got = workloads.FibSeq(n) },
		joined: func(join workloads.Joiner, hand bool) {
			c := cutoff
			if hand {
				c = max(c, handCutoff)
			}
			got = workloads.FibJoin(n, c, join)
		},
		verify: func() error {
			if got != want {
				return fmt.Errorf("fib(%d) = %d, want %d", n, got, want)
			}
			got = -1
			return nil
		},
		skip: skip,
		extra: []namedFunc{
			{"par.Join-direct", func() { got = fibParJoin(n, cutoff) }},
			{"par.Both-direct", func() { got = fibParBoth(n, cutoff) }},
			{"par.BothOf-direct", func() { got = fibParBothOf(n, cutoff) }},
			{"par.Invoke-direct", func() { got = fibParInvoke(n, cutoff) }},
		},
	}
}

// BenchmarkFib30 is fib(30) forking at every call that recurses: 1,346,268
// forks. conc's per-fork pool is left out here: it takes about 10 s per call
// on 2 cores, which the time budget of the full run cannot afford at every
// GOMAXPROCS and count. It is measured on fib(35), quicksort and the tree.
func BenchmarkFib30(b *testing.B) {
	skip := []string{"conc"}
	if testing.Short() {
		skip = append(skip, "wg") // BenchmarkGoal_Fib30 still measures it
	}
	benchFork(b, fibWork(workloads.FibEvery, 1, fib30HandCutoff, skip...))
}

// BenchmarkFib35 is fib(35) forking only above n = 15 (17,710 forks).
func BenchmarkFib35(b *testing.B) {
	benchFork(b, fibWork(workloads.FibCutN, workloads.FibCutCutoff, fib35HandCutoff))
}

var qsortInput = func() func() ([]int, workloads.Checksum) {
	var in []int
	var sum workloads.Checksum
	return func() ([]int, workloads.Checksum) {
		if in == nil {
			in = workloads.QsortInput(shortOr(workloads.QsortN, 1_000_000))
			sum = workloads.ChecksumOf(in)
		}
		return in, sum
	}
}()

// BenchmarkQuicksort sorts 5M random ints, forking at each partition longer
// than 32 elements. The copy of the input before every op is not timed.
func BenchmarkQuicksort(b *testing.B) {
	in, sum := qsortInput()
	a := make([]int, len(in))
	benchFork(b, &forkWork{
		prepare: func() { copy(a, in) },
		plain:   func() { workloads.QsortSeq(a) },
		joined: func(join workloads.Joiner, hand bool) {
			c := workloads.QsortLeaf
			if hand {
				c = qsortHandCutoff
			}
			workloads.QsortJoin(a, c, join)
		},
		verify: func() error {
			err := workloads.VerifySorted(a, sum)
			clear(a)
			return err
		},
		extra: []namedFunc{{"par.Join-direct", func() { qsortParJoin(a) }}},
	})
}

// qsortParJoin is workloads.QsortJoin at cutoff QsortLeaf with par.Join
// called directly, as a user would write it: f's closure then stays on the
// stack (Join does not keep f), and only g's escapes. Through the Joiner func
// value, escape analysis must assume both escape.
func qsortParJoin(a []int) {
	if len(a) <= workloads.QsortLeaf {
		workloads.QsortLeafSort(a)
		return
	}
	p := workloads.QsortPartition(a)
	lo, hi := a[:p], a[p:]
	par.Join(func() { qsortParJoin(lo) }, func() { qsortParJoin(hi) })
}

// treeCount is a subtree's node count and value sum, one value for par.Both.
type treeCount struct{ n, sum uint64 }

// treeParBoth is workloads.Tree.Join with no cutoff and par.Both called
// directly: g returns its half's counts, so its closure is the fork's only
// allocation (the Joiner version also allocates f's closure and the array
// both write into).
func treeParBoth(t *workloads.Tree, h uint64, depth int) treeCount {
	c := treeKidsParBoth(t, h, depth, 0, t.Kids(h, depth))
	return treeCount{c.n + 1, c.sum + t.Visit(h)}
}

func treeKidsParBoth(t *workloads.Tree, h uint64, depth, lo, hi int) treeCount {
	switch hi - lo {
	case 0:
		return treeCount{}
	case 1:
		return treeParBoth(t, workloads.Child(h, lo), depth+1)
	}
	mid := int(uint(lo+hi) / 2)
	x, y := par.Both(func() treeCount { return treeKidsParBoth(t, h, depth, lo, mid) },
		func() treeCount { return treeKidsParBoth(t, h, depth, mid, hi) })
	return treeCount{x.n + y.n, x.sum + y.sum}
}

var treeWant = sync.OnceValues(func() (uint64, uint64) { t := tree(); return t.Seq(t.Root(), 0) })

// BenchmarkTreeWalk walks a deep, narrow, randomly branching tree (a critical
// binomial tree of about 1.3M nodes and depth about 1,400), forking over the
// children of every node.
func BenchmarkTreeWalk(b *testing.B) {
	t := tree()
	wantN, wantSum := treeWant()
	var n, sum uint64
	benchFork(b, &forkWork{
		plain: func() { n, sum = t.Seq(t.Root(), 0) },
		joined: func(join workloads.Joiner, hand bool) {
			cut := int(^uint(0) >> 1)
			if hand {
				cut = workloads.TreeCutDepth
			}
			n, sum = t.Join(t.Root(), 0, cut, join)
		},
		extra: []namedFunc{{"par.Both-direct", func() { c := treeParBoth(t, t.Root(), 0); n, sum = c.n, c.sum }}},
		verify: func() error {
			if n != wantN || sum != wantSum {
				return fmt.Errorf("tree walk: %d nodes, sum %x; want %d, %x", n, sum, wantN, wantSum)
			}
			n, sum = 0, 0
			return nil
		},
	})
}
