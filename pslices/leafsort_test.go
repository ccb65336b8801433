package pslices_test

import (
	"cmp"
	"math"
	"slices"
	"strconv"
	"testing"

	"github.com/parloop/parloop/pslices"
)

// The sequential sort, which Sort and SortFunc run below their cutoff and at
// their leaves, against slices: every length up to 40, every third one up to
// 300 (every ninth under the race detector), each side of the insertion-sort
// (12, 24) and ninther (128) cutoffs, and, without the race detector, the
// package's longer lengths (under it, TestSortMatchesSlices runs them
// through Sort); every shape; ints, floats with NaNs, infinities and signed
// zeros, strings up to 300, and records and ints by a comparison function
// (the comparator sort moves large elements into holes and swaps small
// ones); with the full budget of bad splits and, up to 300, with a budget of
// one, which hands a range to slices' pdqsort at its first bad split.
func TestSortSequentialMatchesSlices(t *testing.T) {
	step := 3
	if raceEnabled {
		step = 9
	}
	ls := []int{11, 12, 13, 23, 24, 25, 127, 128, 129}
	for n := 0; n <= 300; n++ {
		if n <= 40 || n%step == 0 {
			ls = append(ls, n)
		}
	}
	for _, n := range lengths(t) {
		if n > 300 && !raceEnabled {
			ls = append(ls, n)
		}
	}
	for _, n := range ls {
		budgets := []int{bitLen(n), 1}
		if n > 300 {
			budgets = budgets[:1]
		}
		for _, shape := range shapesAt(n) {
			for _, bad := range budgets {
				in := ints(shape, n, 7)
				got, want := slices.Clone(in), slices.Clone(in)
				pslices.SortSequential(got, bad)
				slices.Sort(want)
				if !slices.Equal(got, want) {
					t.Fatalf("sequential sort (%s, n=%d, budget %d): differs from slices.Sort", shape, n, bad)
				}
				fg, fw := floats(shape, n, 8), floats(shape, n, 8)
				pslices.SortSequential(fg, bad)
				slices.Sort(fw)
				if !sameFloats(fg, fw) {
					t.Fatalf("sequential sort (floats %s, n=%d, budget %d): differs from slices.Sort", shape, n, bad)
				}
				r := recs(shape, n, 9)
				pslices.SortSequentialFunc(r, byKey, bad)
				if !slices.IsSortedFunc(r, byKey) || !isPermutation(r, n) {
					t.Fatalf("sequential sort (records %s, n=%d, budget %d): not a sorted permutation", shape, n, bad)
				}
				byFunc := slices.Clone(in)
				pslices.SortSequentialFunc(byFunc, cmp.Compare[int], bad)
				if !slices.Equal(byFunc, want) {
					t.Fatalf("sequential sort (ints by a function, %s, n=%d, budget %d): differs from slices.Sort", shape, n, bad)
				}
				if n > 300 {
					continue
				}
				sg := make([]string, n)
				for i, v := range in {
					sg[i] = strconv.Itoa(v % 5000)
				}
				sw := slices.Clone(sg)
				pslices.SortSequential(sg, bad)
				slices.Sort(sw)
				if !slices.Equal(sg, sw) {
					t.Fatalf("sequential sort (strings %s, n=%d, budget %d): differs from slices.Sort", shape, n, bad)
				}
			}
		}
	}
}

// NaNs sort first, as in slices.Sort, whatever their number and place:
// all NaN, NaN pivots, and NaNs among equal values.
func TestSortSequentialNaNs(t *testing.T) {
	nan := math.NaN()
	for _, n := range []int{3, 25, 200, 5000} {
		for _, x := range [][]float64{
			slices.Repeat([]float64{nan}, n),
			slices.Repeat([]float64{nan, 1}, n/2),
			slices.Repeat([]float64{2, nan, 2, 2}, n/4),
			slices.Repeat([]float64{nan, math.Inf(1), 0, math.Inf(-1), nan}, n/5),
		} {
			want := slices.Clone(x)
			slices.Sort(want)
			pslices.SortSequential(x, bitLen(len(x)))
			if !sameFloats(x, want) {
				t.Fatalf("sequential sort of %d floats with NaNs: differs from slices.Sort", len(x))
			}
		}
	}
}

// A comparison function that panics at its k-th call, for every k up to
// the sort's number of calls, leaves the slice a permutation of its input:
// the comparator sort lifts large elements out of the slice (insertion sort
// and partition) and must put them back wherever the panic strikes; small
// elements it swaps.
func TestSortSequentialFuncPanicsLeavePermutation(t *testing.T) {
	ns := []int{17, 40, 150}
	if raceEnabled {
		ns[2] = 100
	}
	for _, n := range ns {
		for _, shape := range []string{"random", "dups", "organ"} {
			panicsLeavePermutation(t, "records", n, shape, func() []rec { return recs(shape, n, 10) }, byKey,
				func(x []rec) bool { return isPermutation(x, n) })
			small := func() []pair {
				x := make([]pair, n)
				for i, r := range recs(shape, n, 10) {
					x[i] = pair{int32(r.key), int32(r.id)}
				}
				return x
			}
			panicsLeavePermutation(t, "pairs", n, shape, small, byPairKey, func(x []pair) bool {
				r := make([]rec, len(x))
				for i, p := range x {
					r[i].id = int(p.id)
				}
				return isPermutation(r, n)
			})
		}
	}
}

// pair is an 8-byte element, which the comparator sort swaps.
type pair struct{ key, id int32 }

func byPairKey(a, b pair) int { return cmp.Compare(a.key, b.key) }

// panicsLeavePermutation sorts the output of input with a comparator that
// panics after k calls of cmp, for every k below the number of calls the
// whole sort makes, and checks isPerm after each panic.
func panicsLeavePermutation[E any](t *testing.T, kind string, n int, shape string, input func() []E, cmp func(a, b E) int, isPerm func([]E) bool) {
	t.Helper()
	calls := 0
	pslices.SortSequentialFunc(input(), func(a, b E) int { calls++; return cmp(a, b) }, bitLen(n))
	for after := range calls {
		x := input()
		k := 0
		panicking := func(a, b E) int {
			if k++; k > after {
				panic(errBoom)
			}
			return cmp(a, b)
		}
		func() {
			defer func() {
				if recover() == nil {
					t.Fatalf("sequential sort (%s %s, n=%d): no panic after %d of %d calls", kind, shape, n, after, calls)
				}
			}()
			pslices.SortSequentialFunc(x, panicking, bitLen(n))
		}()
		if !isPerm(x) {
			t.Fatalf("sequential sort (%s %s, n=%d, panic after %d calls): no longer a permutation of its input", kind, shape, n, after)
		}
	}
}

// bitLen returns the number of bits needed to represent n, the budget of
// bad splits that Sort gives a slice of length n.
func bitLen(n int) int {
	b := 0
	for ; n > 0; n >>= 1 {
		b++
	}
	return b
}
