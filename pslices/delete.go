package pslices

import (
	"slices"

	"github.com/parloop/parloop/par"
)

// DeleteFunc removes any elements from s for which del returns true, keeping
// the order of the others, and returns the modified slice. It zeroes the
// elements between the new length and the original length, as
// slices.DeleteFunc does.
//
// It calls del exactly once for each element, in parallel: in any order and
// from several goroutines at once. The slice is cut into blocks, as for
// Scan: each block is compacted in place by the worker that claimed it
// (the calls of del, the part that runs in parallel), and then, once the
// blocks before it have moved theirs, moved down to where its kept elements
// go, which the chain of kept counts (an exclusive prefix sum of the
// counts) tells. A panic in del reaches the caller as a *par.PanicError,
// with s in an unspecified state, as with slices.DeleteFunc. It panics if
// del is nil.
func DeleteFunc[S ~[]E, E any](s S, del func(E) bool, opts ...par.Option) S {
	c := options("DeleteFunc", opts)
	mustFunc("DeleteFunc", "del", del == nil)
	defer wrapPanic()
	size := chainBlock[E]()
	if len(s) <= 2*size {
		return slices.DeleteFunc(s, del)
	}
	blocks := (len(s) + size - 1) / size
	ch := runChain(blocks, func(b int, ch *chain[int]) bool {
		lo := b * size
		x := s[lo:min(lo+size, len(s))]
		kept := compact(x, del)
		at := 0
		if b > 0 {
			var ok bool
			if at, ok = ch.wait(b); !ok {
				return false
			}
		}
		if at != lo {
			copy(s[at:at+kept], x[:kept])
		}
		ch.publish(b, at+kept)
		return true
	}, c)
	n := ch.links[blocks-1].carry
	if n < len(s) {
		clearParallel(s[n:], c)
	}
	return s[:n]
}

// compact moves the elements of x that del keeps to its front, in order,
// and returns their number. Elements up to the first deleted one are not
// written.
func compact[E any](x []E, del func(E) bool) int {
	i := 0
	for i < len(x) && !del(x[i]) {
		i++
	}
	if i == len(x) {
		return i
	}
	k := i
	for i++; i < len(x); i++ {
		if e := x[i]; !del(e) {
			x[k] = e
			k++
		}
	}
	return k
}

// clearParallel zeroes x, in pieces of at least clearPiece elements' worth
// of chainBytes on the pool when it is long.
func clearParallel[E any](x []E, c config) {
	size := 8 * chainBlock[E]()
	if len(x) <= 2*size {
		clear(x)
		return
	}
	par.ForRange((len(x)+size-1)/size, func(lo, hi int) {
		clear(x[lo*size : min(hi*size, len(x))])
	}, c.pool...)
}
