// Races in the functions of iter's stages and terminals, and in par.Fold.
package iterraces

import (
	"strings"
	"sync"

	"github.com/parloop/parloop/iter"
	"github.com/parloop/parloop/par"
	"github.com/parloop/parloop/pslices"
)

func positives(xs []int, words []string) {
	n := 0
	iter.Slice(xs).ForEach(func(x int) {
		n += x // want `iter.Pipe.ForEach function updates captured variable n with \+= \(data race\); use a terminal that combines per-worker results \(Reduce, Sum, Count, Fold\), or sync/atomic`
	})

	seen := map[string]int{}
	lower := iter.Map(iter.Slice(words), func(w string) string {
		seen[w]++ // want `iter.Map function writes captured map seen \(data race\); maps are not safe for concurrent writes: count with iter.Fold \(a map per worker, merged at the end\), or hold a sync.Mutex around the write`
		return strings.ToLower(w)
	})
	_, _ = lower.Collect()

	var kept []int
	_, _ = iter.Slice(xs).Filter(func(x int) bool {
		if x > 0 {
			kept = append(kept, x) // want `iter.Pipe.Filter function appends to captured slice kept \(data race\); collect the results with the pipeline's Collect`
		}
		return x > 0
	}).Collect()

	last := 0
	_, _, _ = iter.Slice(xs).Find(func(x int) bool {
		last = x // want `iter.Pipe.Find function assigns captured variable last`
		return x == 3
	})
	_ = last

	calls := 0
	_, _ = iter.Fold(iter.Slice(xs), func() map[int]int {
		calls++ // want `iter.Fold function calls\+\+ updates captured variable calls`
		return map[int]int{}
	}, func(acc *map[int]int, x int) { (*acc)[x]++ }, func(a, b map[int]int) map[int]int { return a })

	total := 0
	par.Fold(len(xs), func() int { return 0 }, func(acc *int, lo, hi int) {
		for _, x := range xs[lo:hi] {
			*acc += x
			total += x // want `par.Fold body updates captured variable total with \+= \(data race\); add to the worker's accumulator \(acc\) instead: par.Fold merges the accumulators at the end`
		}
	}, func(a, b int) int { return a + b })
}

func sortCmp(xs []int) int {
	calls := 0
	pslices.SortFunc(xs, func(a, b int) int {
		calls++ // want `pslices.SortFunc body calls\+\+ updates captured variable calls`
		return a - b
	})
	return calls
}

func negatives(xs []int, words []string) {
	// Per-worker accumulators, returned values and locked writes are fine.
	counts, _ := iter.Fold(iter.Slice(words), func() map[string]int { return map[string]int{} },
		func(acc *map[string]int, w string) { (*acc)[w]++ },
		func(a, b map[string]int) map[string]int {
			for k, v := range b {
				a[k] += v
			}
			return a
		})
	_ = counts

	var mu sync.Mutex
	seen := map[string]bool{}
	_ = iter.Slice(words).ForEach(func(w string) {
		mu.Lock()
		seen[w] = true
		mu.Unlock()
	})

	merged := 0
	sum := par.Fold(len(xs), func() int { return 0 }, func(acc *int, lo, hi int) {
		for _, x := range xs[lo:hi] {
			*acc += x
		}
	}, func(a, b int) int {
		merged++ // merge runs on the caller, one pair at a time
		return a + b
	})
	_ = sum

	out := make([]int, len(xs))
	par.Fold(len(xs), func() int { return 0 }, func(acc *int, lo, hi int) {
		for i := lo; i < hi; i++ {
			out[i] = xs[i] * 2
		}
	}, func(a, b int) int { return a + b })

	doubled := iter.Map(iter.Slice(xs), func(x int) int { return 2 * x })
	_, _ = doubled.Reduce(0, func(a, b int) int { return a + b })
}
