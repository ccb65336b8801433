package pslices

import (
	"slices"

	"github.com/parloop/parloop/par"
)

// The stable sort: a parallel merge sort with a buffer of len(x) elements.
//
// Each half of a range is sorted into the other array (the buffer, or x),
// in parallel, and the halves are merged back, the merge itself split in
// parallel where it is long: the output position k of a merge splits it
// into the first k elements (from a prefix of each run, found by binary
// search) and the rest. Ranges of stableLeaf or fewer elements are sorted
// by insertion sort of runs of insertionRun and merge passes. A stable
// sort's output is determined by its input, so it equals
// slices.SortStableFunc's element for element; slices' own stable sort
// needs no buffer but does O(n log n) swaps per merge level (symmerge).
//
// Invariant, for a panic in cmp: whatever happens, x's part of a range holds
// a permutation of that range's input. A merge into the buffer leaves x
// unread and intact; a merge into x reads from the buffer, which a panic
// leaves intact, and the merge's deferred check copies it back over x's
// partly written part. The buffer's contents are never needed after that.

const (
	stableCutoff = 1 << 13 // slices shorter than this are sorted by slices on the caller
	stableLeaf   = 1 << 12 // ranges this short are sorted on one worker
	insertionRun = 24
	mergePiece   = 1 << 14 // merges are split down to about this many elements
)

// SortStableFunc sorts the slice x while keeping the original order of
// equal elements, using cmp to compare elements in the same way as
// SortFunc; the result equals slices.SortStableFunc's element for element.
// It allocates a buffer of len(x) elements for slices longer than a few
// thousand elements. cmp may be called from several goroutines at once. A
// panic in cmp reaches the caller as a *par.PanicError, with x a
// permutation of its input. It panics if cmp is nil.
func SortStableFunc[S ~[]E, E any](x S, cmp func(a, b E) int, opts ...par.Option) {
	c := options("SortStableFunc", opts)
	mustFunc("SortStableFunc", "cmp", cmp == nil)
	defer wrapPanic()
	if len(x) <= stableCutoff {
		slices.SortStableFunc(x, cmp)
		return
	}
	if firstDescentFunc(x, cmp, 0, c) < 0 {
		return
	}
	// Strictly decreasing: reversing keeps equal elements in order, as
	// there are none.
	if firstDescentFunc(x, func(a, b E) int { return cmp(b, a) }, 1, c) < 0 {
		reverse(x, c)
		return
	}
	m := merger[E]{cmp: cmp, c: c}
	m.sort(x, make([]E, len(x)), false)
}

type merger[E any] struct {
	cmp func(a, b E) int
	c   config
}

// sort sorts x's input into x (toBuf false) or into buf (toBuf true); buf
// is scratch of the same length.
func (m *merger[E]) sort(x, buf []E, toBuf bool) {
	if len(x) <= stableLeaf {
		m.leaf(x, buf, toBuf)
		return
	}
	mid := len(x) / 2
	par.Join(func() { m.sort(x[:mid], buf[:mid], !toBuf) }, func() { m.sort(x[mid:], buf[mid:], !toBuf) }, m.c.pool...)
	if toBuf {
		m.merge(x[:mid], x[mid:], buf)
		return
	}
	m.mergeBack(buf[:mid], buf[mid:], x, buf)
}

// mergeBack merges a and b (parts of src) into dst, restoring dst from src
// if cmp panics.
func (m *merger[E]) mergeBack(a, b, dst, src []E) {
	done := false
	defer func() {
		if !done {
			copy(dst, src)
		}
	}()
	m.merge(a, b, dst)
	done = true
}

// merge merges the sorted runs a and b into out, stably (a's elements first
// among equals), in parallel when out is long.
func (m *merger[E]) merge(a, b, out []E) {
	if len(out) <= mergePiece || len(a) == 0 || len(b) == 0 {
		mergeRuns(a, b, out, m.cmp)
		return
	}
	k := len(out) / 2
	i := m.split(a, b, k)
	j := k - i
	par.Join(func() { m.merge(a[:i], b[:j], out[:k]) }, func() { m.merge(a[i:], b[j:], out[k:]) }, m.c.pool...)
}

// split returns how many of the first k elements of the stable merge of a
// and b come from a.
func (m *merger[E]) split(a, b []E, k int) int {
	lo, hi := max(0, k-len(b)), min(k, len(a))
	for lo < hi {
		i := int(uint(lo+hi) >> 1)
		// a[i] is among the first k if it comes before b[k-i-1].
		if m.cmp(a[i], b[k-i-1]) <= 0 {
			lo = i + 1
		} else {
			hi = i
		}
	}
	return lo
}

// mergeRuns merges a and b into out sequentially, stably.
func mergeRuns[E any](a, b, out []E, cmp func(a, b E) int) {
	if len(a) > 0 && len(b) > 0 && cmp(b[0], a[len(a)-1]) >= 0 {
		copy(out, a)
		copy(out[len(a):], b)
		return
	}
	i, j, k := 0, 0, 0
	for i < len(a) && j < len(b) {
		if cmp(b[j], a[i]) < 0 {
			out[k] = b[j]
			j++
		} else {
			out[k] = a[i]
			i++
		}
		k++
	}
	k += copy(out[k:], a[i:])
	copy(out[k:], b[j:])
}

// leaf sorts x's input into x or buf on the calling worker: insertion sort
// of short runs in x, then merge passes between x and buf.
func (m *merger[E]) leaf(x, buf []E, toBuf bool) {
	for lo := 0; lo < len(x); lo += insertionRun {
		insertionSort(x[lo:min(lo+insertionRun, len(x))], m.cmp)
	}
	src, dst := x, buf
	inBuf := false
	done := false
	defer func() {
		if !done && inBuf {
			copy(x, buf) // a panic while merging buf into x: buf is whole
		}
	}()
	for width := insertionRun; width < len(x); width *= 2 {
		for lo := 0; lo < len(x); lo += 2 * width {
			mid, hi := min(lo+width, len(x)), min(lo+2*width, len(x))
			mergeRuns(src[lo:mid], src[mid:hi], dst[lo:hi], m.cmp)
		}
		src, dst = dst, src
		inBuf = !inBuf
	}
	switch {
	case toBuf && !inBuf:
		copy(buf, x)
	case !toBuf && inBuf:
		copy(x, buf)
	}
	done = true
}

// insertionSort sorts x stably by swaps, so that a panic in cmp leaves x a
// permutation.
func insertionSort[E any](x []E, cmp func(a, b E) int) {
	for i := 1; i < len(x); i++ {
		for j := i; j > 0 && cmp(x[j], x[j-1]) < 0; j-- {
			x[j], x[j-1] = x[j-1], x[j]
		}
	}
}
