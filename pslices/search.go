package pslices

import (
	"cmp"
	"slices"

	"github.com/parloop/parloop/par"
)

// Index returns the index of the first occurrence of v in s, or -1 if not
// present. It scans the first elements on the calling goroutine and the rest
// in parallel, in index order, with early exit (see the package doc).
func Index[S ~[]E, E comparable](s S, v E, opts ...par.Option) int {
	c := options("Index", opts)
	return indexOf(s, v, false, c)
}

// indexOf is Index, and Contains with anyHit.
func indexOf[E comparable](s []E, v E, anyHit bool, c config) int {
	head := min(len(s), firstChunk)
	for i := range head {
		if s[i] == v {
			return i
		}
	}
	if head == len(s) {
		return -1
	}
	return find(len(s), func(lo, hi int) int {
		for i, x := range s[lo:hi] {
			if x == v {
				return lo + i
			}
		}
		return -1
	}, anyHit, c)
}

// IndexFunc returns the first index i satisfying f(s[i]), or -1 if none do.
// f may be called for elements after the first match, in any order and from
// several goroutines at once. It panics if f is nil.
func IndexFunc[S ~[]E, E any](s S, f func(E) bool, opts ...par.Option) int {
	c := options("IndexFunc", opts)
	mustFunc("IndexFunc", "f", f == nil)
	defer wrapPanic()
	return indexFunc(s, f, false, c)
}

// indexFunc is IndexFunc, and ContainsFunc with anyHit.
func indexFunc[E any](s []E, f func(E) bool, anyHit bool, c config) int {
	head := min(len(s), firstChunk)
	for i := range head {
		if f(s[i]) {
			return i
		}
	}
	if head == len(s) {
		return -1
	}
	return find(len(s), func(lo, hi int) int {
		for i, x := range s[lo:hi] {
			if f(x) {
				return lo + i
			}
		}
		return -1
	}, anyHit, c)
}

// Contains reports whether v is present in s. It stops at any occurrence.
func Contains[S ~[]E, E comparable](s S, v E, opts ...par.Option) bool {
	c := options("Contains", opts)
	return indexOf(s, v, true, c) >= 0
}

// ContainsFunc reports whether at least one element e of s satisfies f(e).
// It stops at any element that does; f may be called in any order and from
// several goroutines at once. It panics if f is nil.
func ContainsFunc[S ~[]E, E any](s S, f func(E) bool, opts ...par.Option) bool {
	c := options("ContainsFunc", opts)
	mustFunc("ContainsFunc", "f", f == nil)
	defer wrapPanic()
	return indexFunc(s, f, true, c) >= 0
}

// Equal reports whether two slices are equal: the same length and all
// elements equal. Empty and nil slices are considered equal. Floating point
// NaNs are not considered equal. It stops at any difference.
func Equal[S ~[]E, E comparable](s1, s2 S, opts ...par.Option) bool {
	c := options("Equal", opts)
	if len(s1) != len(s2) {
		return false
	}
	head := min(len(s1), firstChunk)
	for i := range head {
		if s1[i] != s2[i] {
			return false
		}
	}
	if head == len(s1) {
		return true
	}
	return find(len(s1), func(lo, hi int) int {
		b := s2[lo:hi]
		for i, x := range s1[lo:hi] {
			if x != b[i] {
				return lo + i
			}
		}
		return -1
	}, true, c) < 0
}

// EqualFunc reports whether two slices are equal using eq on each pair of
// elements: the same length and eq true for every pair. It stops at any
// pair for which eq is false; eq may be called in any order and from
// several goroutines at once. It panics if eq is nil.
func EqualFunc[S1 ~[]E1, S2 ~[]E2, E1, E2 any](s1 S1, s2 S2, eq func(E1, E2) bool, opts ...par.Option) bool {
	c := options("EqualFunc", opts)
	mustFunc("EqualFunc", "eq", eq == nil)
	if len(s1) != len(s2) {
		return false
	}
	defer wrapPanic()
	head := min(len(s1), firstChunk)
	for i := range head {
		if !eq(s1[i], s2[i]) {
			return false
		}
	}
	if head == len(s1) {
		return true
	}
	return find(len(s1), func(lo, hi int) int {
		b := s2[lo:hi]
		for i, x := range s1[lo:hi] {
			if !eq(x, b[i]) {
				return lo + i
			}
		}
		return -1
	}, true, c) < 0
}

// IsSorted reports whether x is sorted in ascending order, with NaNs first
// as Sort orders them. It stops at any element smaller than its predecessor.
func IsSorted[S ~[]E, E cmp.Ordered](x S, opts ...par.Option) bool {
	c := options("IsSorted", opts)
	return firstDescent(x, c) < 0
}

// firstDescent returns some i with x[i] < x[i-1] (in cmp.Less's order), or -1.
func firstDescent[E cmp.Ordered](x []E, c config) int {
	head := min(len(x), firstChunk)
	for i := 1; i < head; i++ {
		if cmp.Less(x[i], x[i-1]) {
			return i
		}
	}
	if head == len(x) {
		return -1
	}
	return find(len(x), func(lo, hi int) int {
		for i := max(lo, 1); i < hi; i++ {
			if cmp.Less(x[i], x[i-1]) {
				return i
			}
		}
		return -1
	}, true, c)
}

// IsSortedFunc reports whether x is sorted in ascending order, with cmp as
// the comparison function as defined by SortFunc. It stops at any element
// smaller than its predecessor; cmp may be called in any order and from
// several goroutines at once. It panics if cmp is nil.
func IsSortedFunc[S ~[]E, E any](x S, cmp func(a, b E) int, opts ...par.Option) bool {
	c := options("IsSortedFunc", opts)
	mustFunc("IsSortedFunc", "cmp", cmp == nil)
	defer wrapPanic()
	return firstDescentFunc(x, cmp, 0, c) < 0
}

// firstDescentFunc returns some i with cmp(x[i], x[i-1]) < limit, or -1:
// limit 0 finds a descent, limit 1 an element not above its predecessor.
func firstDescentFunc[E any](x []E, cmp func(a, b E) int, limit int, c config) int {
	head := min(len(x), firstChunk)
	for i := 1; i < head; i++ {
		if cmp(x[i], x[i-1]) < limit {
			return i
		}
	}
	if head == len(x) {
		return -1
	}
	return find(len(x), func(lo, hi int) int {
		for i := max(lo, 1); i < hi; i++ {
			if cmp(x[i], x[i-1]) < limit {
				return i
			}
		}
		return -1
	}, true, c)
}

// BinarySearch searches for target in a sorted slice and returns the
// earliest position where target is found, or the position where target
// would appear in the sort order; it also returns a bool saying whether the
// target is really found in the slice. The slice must be sorted in
// increasing order.
//
// BinarySearch is slices.BinarySearch: it runs on the calling goroutine. A
// search reads about log2(len(x)) elements, each depending on the one
// before, a few hundred nanoseconds even for a billion elements: less than
// waking a single worker, and there is no independent work to hand out. To
// run many searches at once, run them in a par loop. It takes the options
// for symmetry with the other functions and checks them, nothing more.
func BinarySearch[S ~[]E, E cmp.Ordered](x S, target E, opts ...par.Option) (int, bool) {
	options("BinarySearch", opts)
	return slices.BinarySearch(x, target)
}

// BinarySearchFunc works like BinarySearch, but uses a custom comparison
// function: cmp(e, target) returns a negative number if the slice element e
// precedes the target, a positive number if it follows it, and zero if it
// matches. It is slices.BinarySearchFunc and runs on the calling goroutine,
// for the reasons given at BinarySearch. It panics if cmp is nil.
func BinarySearchFunc[S ~[]E, E, T any](x S, target T, cmp func(E, T) int, opts ...par.Option) (int, bool) {
	options("BinarySearchFunc", opts)
	mustFunc("BinarySearchFunc", "cmp", cmp == nil)
	defer wrapPanic()
	return slices.BinarySearchFunc(x, target, cmp)
}

// mustFunc panics, naming the function and the argument, when a function
// argument is nil.
func mustFunc(fn, arg string, isNil bool) {
	if isNil {
		panic("pslices: " + fn + ": nil " + arg)
	}
}
