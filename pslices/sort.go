package pslices

import (
	"cmp"
	"slices"

	"github.com/parloop/parloop/par"
)

// The unstable sorts: a parallel quicksort whose leaves are sequential sorts.
//
// A range longer than leafLen is split around a pivot (the median of a
// spread sample) and its two sides sorted in parallel with par.Join; a
// range of leafLen or fewer is sorted on the worker that holds it by the
// sequential sort (leafsort.go), on the element kernel (kernel.go) that the
// parallel splits use too. The split of a range of partitionParLen or more
// is itself parallel (partition.go), so the first levels, where there are
// fewer ranges than workers, do not run on one core. Everything moves
// within x, in place: the extra memory is the stack of the recursion,
// O(log n) frames, and a small table per parallel split.
//
// As in pdqsort, a range whose lower bound (the previous pivot on its
// left) equals its new pivot holds nothing smaller than the pivot: it is
// split into the elements equal to the pivot, which are done, and the
// greater ones. So a slice with few distinct values costs about one pass
// per distinct value, not log n passes. A split that leaves less than 1/8
// on one side is bad; after log2(n) bad splits on one path, that range is
// handed to slices' pdqsort, whose worst case is O(n log n).
//
// Before any of this, a sorted slice is returned as it is and a
// non-increasing one reversed, each found in a pass that stops at the first
// element out of that order (for random data, at the second or third
// element), parallel on long slices.
//
// Short slices are sorted on the caller by the sequential sort, where a
// split's wake-up of a worker costs more than the split saves: up to 16,384
// elements for Sort (10,000 ints take about 0.3 ms), up to 8,192 for
// SortFunc, whose comparisons cost a call each (10,000 strings by
// strings.Compare take about 2 ms).

const (
	sortCutoff      = 1 << 14 // Sort sorts slices this short on the caller
	sortFuncCutoff  = 1 << 13 // SortFunc sorts slices this short on the caller
	leafLen         = 1 << 13 // ranges this short are sorted on one worker
	partitionParLen = 1 << 20 // ranges this long are split in parallel
)

// Sort sorts a slice of any ordered type in ascending order. When sorting
// floating-point numbers, NaNs are ordered before other values. The sort is
// not stable, and runs in place with O(log n) extra memory.
func Sort[S ~[]E, E cmp.Ordered](x S, opts ...par.Option) {
	c := options("Sort", opts)
	if len(x) <= sortCutoff {
		sortOnCaller(orderedKernel[E]{}, x)
		return
	}
	if firstDescent(x, c) < 0 {
		return
	}
	if firstNotDescending(x, c) < 0 {
		reverse(x, c)
		return
	}
	q := quicksort[E, orderedKernel[E]]{c: c}
	q.sort(x, nil, bits(len(x)))
}

// SortFunc sorts the slice x in ascending order as determined by the cmp
// function. This sort is not guaranteed to be stable. cmp(a, b) should
// return a negative number when a < b, a positive number when a > b and zero
// when a == b or a and b are incomparable in the sense of a strict weak
// ordering. cmp may be called from several goroutines at once.
//
// SortFunc requires that cmp is a strict weak ordering, as slices.SortFunc
// does. A panic in cmp reaches the caller as a *par.PanicError, with x a
// permutation of its input. It panics if cmp is nil.
func SortFunc[S ~[]E, E any](x S, cmp func(a, b E) int, opts ...par.Option) {
	c := options("SortFunc", opts)
	mustFunc("SortFunc", "cmp", cmp == nil)
	defer wrapPanic()
	k := newFuncKernel(cmp)
	if len(x) <= sortFuncCutoff {
		sortOnCaller(k, x)
		return
	}
	if firstDescentFunc(x, cmp, 0, c) < 0 {
		return
	}
	if firstDescentFunc(x, func(a, b E) int { return cmp(b, a) }, 0, c) < 0 {
		reverse(x, c)
		return
	}
	q := quicksort[E, funcKernel[E]]{k: k, c: c}
	q.sort(x, nil, bits(len(x)))
}

// sortOnCaller sorts a short x on the calling goroutine: as it is if
// sorted, reversed if non-increasing, else by sortSequential.
func sortOnCaller[E any, K kernel[E]](k K, x []E) {
	i := 1
	for i < len(x) && !k.less(x[i], x[i-1]) {
		i++
	}
	if i >= len(x) {
		return
	}
	i = 1
	for i < len(x) && !k.less(x[i-1], x[i]) {
		i++
	}
	if i == len(x) {
		slices.Reverse(x)
		return
	}
	sortSequential(k, x, false, x[0], bits(len(x)))
}

// firstNotDescending returns some i with x[i-1] < x[i], or -1 if x is
// non-increasing.
func firstNotDescending[E cmp.Ordered](x []E, c config) int {
	head := min(len(x), firstChunk)
	for i := 1; i < head; i++ {
		if cmp.Less(x[i-1], x[i]) {
			return i
		}
	}
	if head == len(x) {
		return -1
	}
	return find(len(x), func(lo, hi int) int {
		for i := max(lo, 1); i < hi; i++ {
			if cmp.Less(x[i-1], x[i]) {
				return i
			}
		}
		return -1
	}, true, c)
}

// reverse reverses x in parallel.
func reverse[E any](x []E, c config) {
	half := len(x) / 2
	par.ForRange(half, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			j := len(x) - 1 - i
			x[i], x[j] = x[j], x[i]
		}
	}, c.pool...)
}

// bits returns the number of bits needed to represent n.
func bits(n int) int {
	b := 0
	for ; n > 0; n >>= 1 {
		b++
	}
	return b
}
