package pslices

import (
	"cmp"
	"slices"
)

// The sequential sort of ordered types: what Sort runs below its cutoff and
// at the parallel quicksort's leaves.
//
// It is a quicksort built on orderedKernel's branchless partition: the
// comparison with the pivot moves a boundary instead of taking a branch, so
// random data costs no mispredicted branches, where pdqsort's partition
// (slices.Sort) mispredicts about one comparison in two. The pivot is the
// median of three elements (first, middle, last), or of three such medians
// on ranges longer than nintherLen; ranges of insertionLen or fewer
// elements are finished by insertion sort. Equal elements are handled as in
// the parallel quicksort (quicksort.go): a range whose lower bound equals
// its new pivot gives up the elements equal to it in one pass, so few
// distinct values cost one pass each. After bad splits (a side under 1/8)
// as many as the range's bit length, the range goes to slices.Sort, whose
// worst case is O(n log n). The shorter side is sorted by recursion and the
// longer one by the loop, so the stack holds O(log n) frames.

const (
	insertionLen = 24  // ranges this short are sorted by insertion sort
	nintherLen   = 128 // ranges longer than this take the median of three medians
)

// sortOrdered sorts x. If hasLower, no element of x is below lower. bad is
// how many more bad splits x may take before it goes to slices.Sort.
func sortOrdered[E cmp.Ordered](x []E, hasLower bool, lower E, bad int) {
	var k orderedKernel[E]
	for len(x) > insertionLen {
		p := medianPivot(x)
		if hasLower && !cmp.Less(lower, p) {
			// Nothing in x is below p: take out the elements equal to it.
			x = x[k.partition(x, p, true):]
			hasLower = false
			continue
		}
		mid := k.partition(x, p, false)
		if mid == 0 {
			// p is x's smallest value: the next round splits off its copies.
			hasLower, lower = true, p
			continue
		}
		if min(mid, len(x)-mid) < len(x)/8 {
			if bad--; bad <= 0 {
				slices.Sort(x)
				return
			}
		}
		if mid < len(x)-mid {
			sortOrdered(x[:mid], hasLower, lower, bad)
			x, hasLower, lower = x[mid:], true, p
		} else {
			sortOrdered(x[mid:], true, p, bad)
			x = x[:mid]
		}
	}
	insertionSortOrdered(x)
}

// insertionSortOrdered sorts a short x.
func insertionSortOrdered[E cmp.Ordered](x []E) {
	for i := 1; i < len(x); i++ {
		e := x[i]
		j := i
		for ; j > 0 && cmp.Less(e, x[j-1]); j-- {
			x[j] = x[j-1]
		}
		x[j] = e
	}
}

// medianPivot returns the median of x's first, middle and last elements,
// or, when x is longer than nintherLen, the median of the medians of three
// such triples spread over x (Tukey's ninther). len(x) must be at least 3.
func medianPivot[E cmp.Ordered](x []E) E {
	n := len(x)
	if n <= nintherLen {
		return median3(x[0], x[n/2], x[n-1])
	}
	s, m := n/8, n/2
	return median3(
		median3(x[0], x[s], x[2*s]),
		median3(x[m-s], x[m], x[m+s]),
		median3(x[n-1-2*s], x[n-1-s], x[n-1]))
}

// median3 returns the median of a, b and c.
func median3[E cmp.Ordered](a, b, c E) E {
	if cmp.Less(b, a) {
		a, b = b, a
	}
	if cmp.Less(c, b) {
		b = c
		if cmp.Less(b, a) {
			b = a
		}
	}
	return b
}
