package pslices

import (
	"sort"

	"github.com/parloop/parloop/par"
)

// A parallel in-place partition.
//
// x is cut into chunks that workers partition on their own (kernel's
// partition), so chunk i holds its left elements, then its right ones. With
// L the total of left elements, every right element in [0, L) must swap
// places with a left element in [L, len(x)); there are as many of each.
// Listed in increasing position, the misplaced right elements lie in the
// right parts of the chunks that begin before L, and the misplaced left
// elements in the left parts of the chunks that end after L: the j-th of
// one list swaps with the j-th of the other, and the swaps, cut into pieces
// of the list, run in parallel. A piece finds its first element in each
// list by binary search over the lists' prefix sums.
//
// Chunks are at least chunkLen long and at most maxChunks in number, so the
// tables are O(1) in size; the chunks, and so the result, depend on the
// length alone.

const (
	chunkLen  = 1 << 16
	maxChunks = 256
	swapPiece = 1 << 14
)

func partitionParallel[E any, K kernel[E]](k K, x []E, p E, orEqual bool, c config) int {
	n := len(x)
	chunks := min(max(n/chunkLen, 2), maxChunks)
	size := (n + chunks - 1) / chunks
	chunks = (n + size - 1) / size
	lefts := make([]int, chunks)
	par.For(chunks, func(i int) {
		lo := i * size
		lefts[i] = k.partition(x[lo:min(lo+size, n)], p, orEqual)
	}, c.pool...)
	total := 0
	for _, l := range lefts {
		total += l
	}

	// The two lists of misplaced elements, as intervals with prefix sums:
	// rights in [0, total), lefts in [total, n).
	var rights, leftsOut intervals
	for i, l := range lefts {
		lo, hi := i*size, min((i+1)*size, n)
		rights.add(lo+l, min(hi, total))
		leftsOut.add(max(lo, total), lo+l)
	}
	m := rights.total()
	if m == 0 {
		return total
	}
	if m <= swapPiece {
		swapLists(x, &rights, &leftsOut, 0, m)
		return total
	}
	par.ForRange((m+swapPiece-1)/swapPiece, func(lo, hi int) {
		swapLists(x, &rights, &leftsOut, lo*swapPiece, min(hi*swapPiece, m))
	}, c.pool...)
	return total
}

// intervals is a list of disjoint intervals in increasing order, with the
// prefix sums of their lengths.
type intervals struct {
	from, to []int
	before   []int // before[i]: total length of the intervals before i
}

func (v *intervals) add(from, to int) {
	if from >= to {
		return
	}
	v.before = append(v.before, v.total())
	v.from = append(v.from, from)
	v.to = append(v.to, to)
}

func (v *intervals) total() int {
	if len(v.from) == 0 {
		return 0
	}
	last := len(v.from) - 1
	return v.before[last] + v.to[last] - v.from[last]
}

// at returns the interval holding the j-th position of the list and that
// position.
func (v *intervals) at(j int) (int, int) {
	i := sort.Search(len(v.before), func(i int) bool { return v.before[i] > j }) - 1
	return i, v.from[i] + j - v.before[i]
}

// swapLists swaps the j-th positions of a and b for j in [lo, hi).
func swapLists[E any](x []E, a, b *intervals, lo, hi int) {
	ia, pa := a.at(lo)
	ib, pb := b.at(lo)
	for left := hi - lo; left > 0; {
		run := min(left, a.to[ia]-pa, b.to[ib]-pb)
		for t := range run {
			x[pa+t], x[pb+t] = x[pb+t], x[pa+t]
		}
		left -= run
		pa += run
		pb += run
		if pa == a.to[ia] && left > 0 {
			ia++
			pa = a.from[ia]
		}
		if pb == b.to[ib] && left > 0 {
			ib++
			pb = b.from[ib]
		}
	}
}
