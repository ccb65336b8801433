package pslices_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/parloop/parloop/par"
	"github.com/parloop/parloop/pslices"
)

func TestSortMatchesSlices(t *testing.T) {
	for _, opts := range twoPools(t) {
		for _, n := range lengths(t) {
			for _, shape := range shapesAt(n) {
				got, want := ints(shape, n, 1), ints(shape, n, 1)
				pslices.Sort(got, opts...)
				slices.Sort(want)
				if !slices.Equal(got, want) {
					t.Fatalf("Sort(%s, n=%d, %d opts): differs from slices.Sort", shape, n, len(opts))
				}
				fg, fw := floats(shape, n, 2), floats(shape, n, 2)
				pslices.Sort(fg, opts...)
				slices.Sort(fw)
				if !sameFloats(fg, fw) {
					t.Fatalf("Sort(floats %s, n=%d): differs from slices.Sort", shape, n)
				}
			}
		}
	}
}

// isPermutation reports whether got holds the records of in (by id).
func isPermutation(got []rec, n int) bool {
	seen := make([]bool, n)
	for _, r := range got {
		if r.id < 0 || r.id >= n || seen[r.id] {
			return false
		}
		seen[r.id] = true
	}
	return true
}

func TestSortFuncMatchesSlices(t *testing.T) {
	for _, opts := range twoPools(t) {
		for _, n := range lengths(t) {
			for _, shape := range shapesAt(n) {
				got, want := recs(shape, n, 3), recs(shape, n, 3)
				pslices.SortFunc(got, byKey, opts...)
				slices.SortFunc(want, byKey)
				keys := func(x []rec) []int {
					k := make([]int, len(x))
					for i, r := range x {
						k[i] = r.key
					}
					return k
				}
				if !slices.Equal(keys(got), keys(want)) || !isPermutation(got, n) {
					t.Fatalf("SortFunc(%s, n=%d): not a sorted permutation", shape, n)
				}
			}
		}
	}
}

// The stable order of recs is the order by key and then by id, their
// position in the input: slices.SortFunc by both gives what
// slices.SortStableFunc does (checked below on the smaller lengths), in
// O(n log n) comparisons instead of O(n log² n), which under the race
// detector costs seconds on the longer lengths.
func TestSortStableFuncEqualsSlices(t *testing.T) {
	byKeyThenID := func(a, b rec) int {
		if c := byKey(a, b); c != 0 {
			return c
		}
		return a.id - b.id
	}
	for _, opts := range twoPools(t) {
		for _, n := range lengths(t) {
			for _, shape := range shapesAt(n) {
				got, want := recs(shape, n, 4), recs(shape, n, 4)
				pslices.SortStableFunc(got, byKey, opts...)
				if n <= 8194 {
					slices.SortStableFunc(want, byKey)
				} else {
					slices.SortFunc(want, byKeyThenID)
				}
				if !slices.Equal(got, want) {
					t.Fatalf("SortStableFunc(%s, n=%d): differs from slices.SortStableFunc", shape, n)
				}
			}
		}
	}
}

// A sort on several pools, and twice on one, gives the same order of equal
// elements: the splits depend on the length alone.
func TestSortFuncSameOnEveryPool(t *testing.T) {
	n := 1<<20 + 5
	if testing.Short() || raceEnabled {
		n = 1 << 17
	}
	var first []rec
	for _, opts := range pools(t)[:3] {
		x := recs("dups", n, 5)
		pslices.SortFunc(x, byKey, opts...)
		if first == nil {
			first = x
		} else if !slices.Equal(first, x) {
			t.Fatalf("SortFunc on %d opts: equal elements in another order than on the default pool", len(opts))
		}
	}
}

// The parallel partition (ranges of 2^20 and more), under the race detector
// too, where the other tests stay below it.
func TestSortParallelPartition(t *testing.T) {
	shapes := []string{"few"} // equal keys: the partition's hard case
	if *long {
		shapes = append(shapes, "random")
	}
	for _, shape := range shapes {
		x := ints(shape, 1<<20+5, 21)
		pslices.Sort(x)
		if !slices.IsSorted(x) {
			t.Fatalf("Sort(%s, 2^20+5) did not sort", shape)
		}
	}
}

func TestIsSorted(t *testing.T) {
	for _, n := range lengths(t) {
		for _, shape := range shapesAt(n) {
			x := ints(shape, n, 6)
			if got, want := pslices.IsSorted(x), slices.IsSorted(x); got != want {
				t.Fatalf("IsSorted(%s, n=%d) = %v, slices says %v", shape, n, got, want)
			}
			f := floats(shape, n, 6)
			if got, want := pslices.IsSorted(f), slices.IsSorted(f); got != want {
				t.Fatalf("IsSorted(floats %s, n=%d) = %v, slices says %v", shape, n, got, want)
			}
			slices.Sort(f)
			if !pslices.IsSorted(f) {
				t.Fatalf("IsSorted(sorted floats, n=%d) = false", n)
			}
			r := recs(shape, n, 6)
			if got, want := pslices.IsSortedFunc(r, byKey), slices.IsSortedFunc(r, byKey); got != want {
				t.Fatalf("IsSortedFunc(%s, n=%d) = %v, slices says %v", shape, n, got, want)
			}
		}
		// One element out of place, at each end and in the middle.
		for _, at := range []int{1, n / 2, n - 1} {
			if at < 1 || at >= n {
				continue
			}
			x := ints("sorted", n, 0)
			x[at] = -1
			if pslices.IsSorted(x) {
				t.Fatalf("IsSorted(n=%d, descent at %d) = true", n, at)
			}
		}
	}
}

func ExampleSort() {
	x := []int{5, 2, 8, 1, 9, 3}
	pslices.Sort(x)
	fmt.Println(x)
	// Output: [1 2 3 5 8 9]
}

func ExampleSortFunc() {
	type person struct {
		name string
		age  int
	}
	people := []person{{"Alice", 55}, {"Bob", 24}, {"Gopher", 13}}
	pslices.SortFunc(people, func(a, b person) int { return a.age - b.age })
	fmt.Println(people)
	// Output: [{Gopher 13} {Bob 24} {Alice 55}]
}

func ExampleSortStableFunc() {
	type person struct {
		name string
		age  int
	}
	people := []person{{"Alice", 30}, {"Bob", 25}, {"Carol", 30}, {"Dave", 25}}
	pslices.SortStableFunc(people, func(a, b person) int { return a.age - b.age })
	fmt.Println(people)
	// Output: [{Bob 25} {Dave 25} {Alice 30} {Carol 30}]
}

func ExampleIsSorted() {
	fmt.Println(pslices.IsSorted([]int{1, 2, 2, 5}), pslices.IsSorted([]int{3, 1}))
	// Output: true false
}

func ExampleIsSortedFunc() {
	byLen := func(a, b string) int { return len(a) - len(b) }
	fmt.Println(pslices.IsSortedFunc([]string{"a", "bb", "ccc"}, byLen))
	// Output: true
}

// A pool of its own, for a sort that should not take every CPU.
func ExampleSort_onPool() {
	p := par.NewPool(par.Workers(2))
	defer p.Close()
	x := []float64{2.5, -1, 0, 7}
	pslices.Sort(x, par.On(p))
	fmt.Println(x)
	// Output: [-1 0 2.5 7]
}
