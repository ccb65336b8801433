package pslices

import (
	"cmp"
	"slices"
	"unsafe"
)

// kernel is what the sorts need of an element type: its order, a
// sequential partition, an insertion sort for short ranges and slices'
// pdqsort for ranges that split badly. Its methods are called through the
// instantiation's dictionary, once per range or block, so their loops keep
// the element type's own comparisons (inlined < for ordered types).
type kernel[E any] interface {
	less(a, b E) bool
	// partition moves the elements of x that go left of pivot p (x < p, or
	// x <= p with orEqual) to its front and returns their number. x is a
	// permutation of its input when it returns or panics.
	partition(x []E, p E, orEqual bool) int
	// shortLen is the length up to which the sequential sort finishes a
	// range by insertionSort.
	shortLen() int
	insertionSort(x []E)
	pdqsort(x []E)
}

type orderedKernel[E cmp.Ordered] struct{}

func (orderedKernel[E]) less(a, b E) bool { return cmp.Less(a, b) }
func (orderedKernel[E]) pdqsort(x []E)    { slices.Sort(x) }

// shortLen is 24: an insertion sort costs about one mispredicted branch per
// element, and partitions of shorter ranges cost more than that.
func (orderedKernel[E]) shortLen() int { return 24 }

func (orderedKernel[E]) insertionSort(x []E) {
	for i := 1; i < len(x); i++ {
		e := x[i]
		j := i
		for ; j > 0 && cmp.Less(e, x[j-1]); j-- {
			x[j] = x[j-1]
		}
		x[j] = e
	}
}

// partition is a branchless Lomuto partition: every element is swapped
// with the first right one and the boundary advances by the comparison's
// result, so random data costs no mispredicted branches.
func (orderedKernel[E]) partition(x []E, p E, orEqual bool) int {
	k := 0
	if orEqual {
		for i := range x {
			e := x[i]
			x[i] = x[k]
			x[k] = e
			k += 1 - lessBit(p, e)
		}
		return k
	}
	for i := range x {
		e := x[i]
		x[i] = x[k]
		x[k] = e
		k += lessBit(e, p)
	}
	return k
}

// lessBit is cmp.Less(a, b) as 0 or 1. It tests a < b apart from the NaN
// cases, so that the compiler computes a < b without a branch for floats
// too (the NaN tests are branches, which predict well as NaNs are rare).
func lessBit[E cmp.Ordered](a, b E) int {
	bit := 0
	if a < b {
		bit = 1
	}
	if a != a && b == b { // a is NaN, b is not: NaNs sort first
		bit = 1
	}
	return bit
}

// funcKernel sorts by a comparison function. Large elements (over
// movesAbove bytes) it moves once each where it must move them, rather than
// swapping pairs (three copies a swap): insertion sort and partition lift an
// element out of x and fill holes, and put the lifted element back into the
// hole when cmp panics, so that x stays a permutation of its input. Small
// elements it swaps, which keeps x a permutation at every step without the
// bookkeeping that costs more than the copies it saves.
type funcKernel[E any] struct {
	cmp   func(a, b E) int
	moves bool // E is larger than movesAbove bytes
}

// movesAbove is the element size above which funcKernel moves elements
// into holes instead of swapping them: at 8 bytes (ints by a function) the
// holes cost more than the swaps, at 16 (strings) about the same, at 64
// (records) they save 12% of a sort's time.
const movesAbove = 16

func newFuncKernel[E any](cmp func(a, b E) int) funcKernel[E] {
	var e E
	return funcKernel[E]{cmp: cmp, moves: unsafe.Sizeof(e) > movesAbove}
}

func (k funcKernel[E]) less(a, b E) bool { return k.cmp(a, b) < 0 }
func (k funcKernel[E]) pdqsort(x []E)    { slices.SortFunc(x, k.cmp) }

// shortLen is 12, as in pdqsort: the sort makes fewer calls of cmp than
// with longer insertion-sorted ranges.
func (funcKernel[E]) shortLen() int { return 12 }

// insertionSort lifts each element out and moves the greater ones before
// it up by one, or, for small elements, swaps it down (stable.go).
func (k funcKernel[E]) insertionSort(x []E) {
	if !k.moves {
		insertionSort(x, k.cmp)
		return
	}
	var e E
	hole := -1
	defer func() {
		if hole >= 0 {
			x[hole] = e // cmp panicked
		}
	}()
	for i := 1; i < len(x); i++ {
		e, hole = x[i], i
		for ; hole > 0 && k.cmp(e, x[hole-1]) < 0; hole-- {
			x[hole] = x[hole-1]
		}
		x[hole] = e
	}
	hole = -1
}

// partition is Hoare's, by swaps for small elements; for large ones with a
// hole: x[0] is lifted out, and the scans from the two ends move each
// misplaced element into the hole, which the move leaves at the element's
// old place; the lifted element fills the last hole, on the side it belongs
// to. A pair of misplaced elements costs two copies, where a swap costs
// three.
func (k funcKernel[E]) partition(x []E, p E, orEqual bool) int {
	limit := 0 // left: cmp(e, p) < limit
	if orEqual {
		limit = 1
	}
	if !k.moves {
		return k.partitionSwaps(x, p, limit)
	}
	return k.partitionMoves(x, p, limit)
}

// partitionSwaps swaps the misplaced pairs that the scans from the two ends
// meet.
func (k funcKernel[E]) partitionSwaps(x []E, p E, limit int) int {
	i, j := 0, len(x)-1
	for {
		for i <= j && k.cmp(x[i], p) < limit {
			i++
		}
		for i <= j && k.cmp(x[j], p) >= limit {
			j--
		}
		if i >= j {
			return i
		}
		x[i], x[j] = x[j], x[i]
		i++
		j--
	}
}

// partitionMoves moves misplaced elements into the hole.
func (k funcKernel[E]) partitionMoves(x []E, p E, limit int) int {
	if len(x) == 0 {
		return 0
	}
	lifted, hole := x[0], 0
	defer func() {
		if hole >= 0 {
			x[hole] = lifted // cmp panicked
		}
	}()
	i, j := 0, len(x)-1 // x[:i] left, x[j+1:] right; the hole is i or j
	for i < j {
		for i < j && k.cmp(x[j], p) >= limit {
			j--
		}
		if i == j {
			break
		}
		x[i], hole = x[j], j
		i++
		for i < j && k.cmp(x[i], p) < limit {
			i++
		}
		if i == j {
			break
		}
		x[j], hole = x[i], i
		j--
	}
	x[i], hole = lifted, -1
	if k.cmp(lifted, p) < limit {
		return i + 1
	}
	return i
}
