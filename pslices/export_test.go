package pslices

import "cmp"

// SortSequential runs the sequential sort (leafsort.go) of an ordered type
// on x with a budget of bad splits: a budget of 1 hands x to slices.Sort at
// its first bad split.
func SortSequential[E cmp.Ordered](x []E, bad int) {
	sortSequential(orderedKernel[E]{}, x, false, *new(E), bad)
}

// SortSequentialFunc is SortSequential by a comparison function.
func SortSequentialFunc[E any](x []E, cmp func(a, b E) int, bad int) {
	sortSequential(newFuncKernel(cmp), x, false, *new(E), bad)
}
