package pslices

import (
	"cmp"
	"slices"

	"github.com/parloop/parloop/par"
)

// Max, Min, MaxFunc and MinFunc fold pieces of the slice in parallel
// (par.ReduceRange) and join the pieces' results in index order, so the
// tie rules of package slices hold: MaxFunc and MinFunc return the first
// extreme element. Slices of up to reduceCutoff elements are folded on the
// calling goroutine.

const reduceCutoff = 4096

// best is a piece's result: the index of its extreme element, -1 for none.
type best = int

// Max returns the maximal value in x. It panics if x is empty. For
// floating-point E, Max propagates NaNs (any NaN value in x forces the
// output to be NaN).
func Max[S ~[]E, E cmp.Ordered](x S, opts ...par.Option) E {
	c := options("Max", opts)
	if len(x) == 0 {
		panic("pslices: Max: empty list")
	}
	if len(x) <= reduceCutoff {
		return slices.Max(x)
	}
	return par.ReduceRange(len(x), x[0], func(lo, hi int) E {
		return slices.Max(x[lo:hi])
	}, func(a, b E) E { return max(a, b) }, c.pool...)
}

// Min returns the minimal value in x. It panics if x is empty. For
// floating-point numbers, Min propagates NaNs (any NaN value in x forces the
// output to be NaN).
func Min[S ~[]E, E cmp.Ordered](x S, opts ...par.Option) E {
	c := options("Min", opts)
	if len(x) == 0 {
		panic("pslices: Min: empty list")
	}
	if len(x) <= reduceCutoff {
		return slices.Min(x)
	}
	return par.ReduceRange(len(x), x[0], func(lo, hi int) E {
		return slices.Min(x[lo:hi])
	}, func(a, b E) E { return min(a, b) }, c.pool...)
}

// MaxFunc returns the maximal value in x, using cmp to compare elements. It
// panics if x is empty. If there is more than one maximal element according
// to the cmp function, MaxFunc returns the first one. cmp may be called in
// any order and from several goroutines at once. It panics if cmp is nil.
func MaxFunc[S ~[]E, E any](x S, cmp func(a, b E) int, opts ...par.Option) E {
	c := options("MaxFunc", opts)
	mustFunc("MaxFunc", "cmp", cmp == nil)
	if len(x) == 0 {
		panic("pslices: MaxFunc: empty list")
	}
	defer wrapPanic()
	return x[extreme(x, cmp, 1, c)]
}

// MinFunc returns the minimal value in x, using cmp to compare elements. It
// panics if x is empty. If there is more than one minimal element according
// to the cmp function, MinFunc returns the first one. cmp may be called in
// any order and from several goroutines at once. It panics if cmp is nil.
func MinFunc[S ~[]E, E any](x S, cmp func(a, b E) int, opts ...par.Option) E {
	c := options("MinFunc", opts)
	mustFunc("MinFunc", "cmp", cmp == nil)
	if len(x) == 0 {
		panic("pslices: MinFunc: empty list")
	}
	defer wrapPanic()
	return x[extreme(x, cmp, -1, c)]
}

// extreme returns the index of the first element of x that no other
// element beats, where b beats a when cmp(b, a) has the sign of sign.
func extreme[E any](x []E, cmp func(a, b E) int, sign int, c config) int {
	beats := func(b, a E) bool {
		r := cmp(b, a)
		return sign > 0 && r > 0 || sign < 0 && r < 0
	}
	leaf := func(lo, hi int) best {
		m := lo
		for i := lo + 1; i < hi; i++ {
			if beats(x[i], x[m]) {
				m = i
			}
		}
		return m
	}
	if len(x) <= reduceCutoff {
		return leaf(0, len(x))
	}
	return par.ReduceRange(len(x), -1, leaf, func(a, b best) best {
		switch {
		case a < 0:
			return b
		case b < 0:
			return a
		case beats(x[b], x[a]):
			return b
		}
		return a
	}, c.pool...)
}
