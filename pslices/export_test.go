package pslices

import "cmp"

// SortSequential runs the sequential sort of ordered types (leafsort.go) on
// x with a budget of bad splits: a budget of 1 hands x to slices.Sort at
// its first bad split.
func SortSequential[E cmp.Ordered](x []E, bad int) { sortOrdered(x, false, *new(E), bad) }
