package pslices

// The sequential sort: what Sort and SortFunc run below their cutoff and at
// the parallel quicksort's leaves.
//
// It is a quicksort on the kernel's partition (sort.go): for ordered types
// a branchless one, where the comparison with the pivot moves a boundary
// instead of taking a branch, so random data costs no mispredicted
// branches, where pdqsort's partition (slices.Sort) mispredicts about one
// comparison in two; for a comparison function, one that moves each
// misplaced element once instead of swapping pairs. The pivot is the median
// of three elements (first, middle, last), or of three such medians on
// ranges longer than nintherLen; ranges of insertionLen or fewer elements
// are finished by insertion sort. Equal elements are handled as in the
// parallel quicksort (quicksort.go): a range whose lower bound equals its
// new pivot gives up the elements equal to it in one pass, so few distinct
// values cost one pass each. After bad splits (a side under 1/8) as many
// as the range's bit length, the range goes to slices' pdqsort, whose
// worst case is O(n log n). The shorter side is sorted by recursion and the
// longer one by the loop, so the stack holds O(log n) frames.

const (
	insertionLen = 16  // ranges this short are sorted by insertion sort
	nintherLen   = 128 // ranges longer than this take the median of three medians
)

// sortSequential sorts x with kernel k. If hasLower, no element of x is
// below lower. bad is how many more bad splits x may take before it goes to
// slices' pdqsort: with 0 or less, x goes there at its first bad split.
func sortSequential[E any, K kernel[E]](k K, x []E, hasLower bool, lower E, bad int) {
	for len(x) > insertionLen {
		p := medianPivot(k, x)
		if hasLower && !k.less(lower, p) {
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
				k.pdqsort(x)
				return
			}
		}
		if mid < len(x)-mid {
			sortSequential(k, x[:mid], hasLower, lower, bad)
			x, hasLower, lower = x[mid:], true, p
		} else {
			sortSequential(k, x[mid:], true, p, bad)
			x = x[:mid]
		}
	}
	k.insertionSort(x)
}

// medianPivot returns the median of x's first, middle and last elements,
// or, when x is longer than nintherLen, the median of the medians of three
// such triples spread over x (Tukey's ninther). len(x) must be at least 3.
func medianPivot[E any, K kernel[E]](k K, x []E) E {
	n := len(x)
	if n <= nintherLen {
		return median3(k, x[0], x[n/2], x[n-1])
	}
	s, m := n/8, n/2
	return median3(k,
		median3(k, x[0], x[s], x[2*s]),
		median3(k, x[m-s], x[m], x[m+s]),
		median3(k, x[n-1-2*s], x[n-1-s], x[n-1]))
}

// median3 returns the median of a, b and c.
func median3[E any, K kernel[E]](k K, a, b, c E) E {
	if k.less(b, a) {
		a, b = b, a
	}
	if k.less(c, b) {
		b = c
		if k.less(b, a) {
			b = a
		}
	}
	return b
}
