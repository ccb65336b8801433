package pslices

import (
	"github.com/parloop/parloop/par"
)

// quicksort is one unstable sort's state: the element kernel and the
// options (the pool) its forks and parallel splits run with.
type quicksort[E any, K kernel[E]] struct {
	k K
	c config
}

// sort sorts x. lower, if not nil, is a value no element of x is below (the
// pivot of the split that made x its right side). bad is how many more bad
// splits this path may take before x goes to slices' pdqsort.
func (q *quicksort[E, K]) sort(x []E, lower *E, bad int) {
	for {
		if len(x) <= leafLen {
			if lower == nil {
				sortSequential(q.k, x, false, *new(E), bad)
			} else {
				sortSequential(q.k, x, true, *lower, bad)
			}
			return
		}
		p := q.pivot(x)
		if lower != nil && !q.k.less(*lower, p) {
			// Nothing in x is below p: take out the elements equal to it.
			x = x[q.partition(x, p, true):]
			continue
		}
		mid := q.partition(x, p, false)
		if mid == 0 {
			// p is x's smallest value: the next round splits off its copies.
			lower = &p
			continue
		}
		if min(mid, len(x)-mid) < len(x)/8 {
			if bad--; bad <= 0 {
				q.k.pdqsort(x)
				return
			}
		}
		left, right := x[:mid], x[mid:]
		par.Join(func() { q.sort(left, lower, bad) }, func() { q.sort(right, &p, bad) }, q.c.pool...)
		return
	}
}

// partition splits x around p (see kernel.partition), in parallel when x
// is long.
func (q *quicksort[E, K]) partition(x []E, p E, orEqual bool) int {
	if len(x) < partitionParLen {
		return q.k.partition(x, p, orEqual)
	}
	return partitionParallel(q.k, x, p, orEqual, q.c)
}

// pivot returns the median of a sample of x spread over its length: 15
// elements, or 63 for a range of 2^20 or more, where a split's balance
// decides how well the first levels use the workers (the sample's sort costs
// little against the partition of a range longer than leafLen, and a
// better-centred pivot saves comparisons: about 2% of SortFunc's calls
// against a sample of 3). The positions are jittered by a generator seeded
// with the length, so that no periodic pattern in the data lines up with
// the sample, and the same input always gives the same output.
func (q *quicksort[E, K]) pivot(x []E) E {
	var idx [63]int
	m := 15
	if len(x) >= 1<<20 {
		m = 63
	}
	step := len(x) / m
	seed := uint64(len(x))*0x9E3779B97F4A7C15 | 1
	for i := range m {
		seed ^= seed << 13
		seed ^= seed >> 7
		seed ^= seed << 17
		idx[i] = i*step + int(seed%uint64(step))
	}
	// Insertion sort of the sample's positions by their elements.
	for i := 1; i < m; i++ {
		for j := i; j > 0 && q.k.less(x[idx[j]], x[idx[j-1]]); j-- {
			idx[j], idx[j-1] = idx[j-1], idx[j]
		}
	}
	return x[idx[m/2]]
}
