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
// ranges longer than nintherLen; short ranges are finished by insertion
// sort (kernel's shortLen). Equal elements are handled as in the
// parallel quicksort (quicksort.go): a range whose lower bound equals its
// new pivot gives up the elements equal to it in one pass, so few distinct
// values cost one pass each. After bad splits (a side under 1/8) as many
// as the range's bit length, the range goes to slices' pdqsort, whose
// worst case is O(n log n). The shorter side is sorted by recursion and the
// longer one by the loop, so the stack holds O(log n) frames.

// nintherLen is the length above which ranges take the median of three
// medians.
const nintherLen = 128

// sortSequential sorts x with kernel k. If hasLower, no element of x is
// below lower. bad is how many more bad splits x may take before it goes to
// slices' pdqsort: with 0 or less, x goes there at its first bad split.
//
// The pivot is taken out of the partition (moved to x[0], then between the
// two sides), so that it is compared with no element again: that spares
// about 6% of the comparisons of a sort of 10^4 elements.
func sortSequential[E any, K kernel[E]](k K, x []E, hasLower bool, lower E, bad int) {
	for short := k.shortLen(); len(x) > short; {
		pi := medianPivot(k, x)
		x[0], x[pi] = x[pi], x[0]
		p := x[0]
		if hasLower && !k.less(lower, p) {
			// Nothing in x is below p: take out the elements equal to it.
			x = x[1+k.partition(x[1:], p, true):]
			hasLower = false
			continue
		}
		mid := k.partition(x[1:], p, false)
		x[0], x[mid] = x[mid], x[0]
		if min(mid, len(x)-1-mid) < len(x)/8 {
			if bad--; bad <= 0 {
				k.pdqsort(x)
				return
			}
		}
		if mid < len(x)-1-mid {
			sortSequential(k, x[:mid], hasLower, lower, bad)
			x, hasLower, lower = x[mid+1:], true, p
		} else {
			sortSequential(k, x[mid+1:], true, p, bad)
			x = x[:mid]
		}
	}
	k.insertionSort(x)
}

// medianPivot returns the position of the median of x's first, middle and
// last elements, or, when x is longer than nintherLen, of the median of the
// medians of three such triples spread over x (Tukey's ninther). len(x)
// must be at least 3.
func medianPivot[E any, K kernel[E]](k K, x []E) int {
	n := len(x)
	if n <= nintherLen {
		return median3(k, x, 0, n/2, n-1)
	}
	s, m := n/8, n/2
	return median3(k, x,
		median3(k, x, 0, s, 2*s),
		median3(k, x, m-s, m, m+s),
		median3(k, x, n-1-2*s, n-1-s, n-1))
}

// median3 returns the one of positions a, b and c that holds the median of
// their elements.
func median3[E any, K kernel[E]](k K, x []E, a, b, c int) int {
	if k.less(x[b], x[a]) {
		a, b = b, a
	}
	if k.less(x[c], x[b]) {
		b = c
		if k.less(x[b], x[a]) {
			b = a
		}
	}
	return b
}
