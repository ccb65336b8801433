package pslices

import (
	"runtime"

	"github.com/parloop/parloop/par"
)

// Scan replaces each element of s with the combination of it and every
// element before it, in place: s[i] becomes
//
//	op(...op(op(s[0], s[1]), s[2])..., s[i])
//
// (an inclusive prefix sum for op = +). op must be associative; it need not
// be commutative. The work runs in one chained pass over blocks of s (see
// the package doc), each block read once from memory.
//
// A parallel scan calls op about twice per element (a block's sum, then the
// scan of the block), so it beats the sequential loop only from about three
// workers on when op, not memory, is the cost; on the default pool at
// GOMAXPROCS 1, Scan is the sequential loop.
//
// The grouping of the operations depends on len(s) and the size of E alone
// (and, on the default pool, on whether GOMAXPROCS is 1), so the result is
// bitwise the same on every run and every pool of any parallelism above 1,
// floating-point op included; with Deterministic, at parallelism 1 too. For
// an op that is associative only up to rounding (floating-point addition)
// the blocked grouping can differ in the last bits from the sequential
// loop's. A panic in op reaches the caller as a *par.PanicError, with s
// partly scanned. It panics if op is nil.
func Scan[S ~[]E, E any](s S, op func(a, b E) E, opts ...par.Option) {
	c := options("Scan", opts)
	mustFunc("Scan", "op", op == nil)
	defer wrapPanic()
	if len(s) == 0 {
		return
	}
	var zero E
	scan(s, zero, false, op, c)
}

// ScanExclusive replaces each element of s with the combination of init and
// every element before it, in place, and returns the combination of init and
// all of s: s[i] becomes
//
//	op(...op(op(init, s[0]), s[1])..., s[i-1])
//
// so s[0] becomes init (an exclusive prefix sum for op = + and init = 0:
// the offsets at which variable-length items are laid out one after
// another, with the returned total). Otherwise as Scan.
func ScanExclusive[S ~[]E, E any](s S, init E, op func(a, b E) E, opts ...par.Option) E {
	c := options("ScanExclusive", opts)
	mustFunc("ScanExclusive", "op", op == nil)
	defer wrapPanic()
	if len(s) == 0 {
		return init
	}
	return scan(s, init, true, op, c)
}

// scan is Scan (exclusive false) and ScanExclusive (exclusive true, from
// init). It returns the total.
func scan[E any](s []E, init E, exclusive bool, op func(a, b E) E, c config) E {
	size := chainBlock[E]()
	if len(s) <= 2*size || !c.deterministic && c.pool == nil && runtime.GOMAXPROCS(0) == 1 {
		return scanBlock(s, init, exclusive, !exclusive, op)
	}
	blocks := (len(s) + size - 1) / size
	ch := runChain(blocks, func(b int, ch *chain[E]) bool {
		lo := b * size
		x := s[lo:min(lo+size, len(s))]
		sum := x[0]
		for _, e := range x[1:] {
			sum = op(sum, e)
		}
		if b == 0 {
			if exclusive {
				sum = op(init, sum)
			}
			ch.publish(0, sum)
			scanBlock(x, init, exclusive, !exclusive, op)
			return true
		}
		carry, ok := ch.wait(b)
		if !ok {
			return false
		}
		ch.publish(b, op(carry, sum))
		scanBlock(x, carry, exclusive, false, op)
		return true
	}, c)
	return ch.links[blocks-1].carry
}

// scanBlock scans x from acc: inclusively, s[i] = op(acc, ..., s[i]), or
// exclusively, s[i] = op(acc, ..., s[i-1]). With first, x is the start of
// the slice and has no acc: its first element stays as it is. It returns
// the total.
func scanBlock[E any](x []E, acc E, exclusive, first bool, op func(a, b E) E) E {
	switch {
	case exclusive:
		for i, e := range x {
			x[i] = acc
			acc = op(acc, e)
		}
	case first:
		acc = x[0]
		for i := 1; i < len(x); i++ {
			acc = op(acc, x[i])
			x[i] = acc
		}
	default:
		for i, e := range x {
			acc = op(acc, e)
			x[i] = acc
		}
	}
	return acc
}
