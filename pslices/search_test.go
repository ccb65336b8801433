package pslices_test

import (
	"fmt"
	"math"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/parloop/parloop/par"
	"github.com/parloop/parloop/pslices"
)

// positions returns where a test puts its match in a slice of length n:
// nowhere (-1), at each end, around the caller's first chunks and at every
// eighth of the slice.
func positions(n int) []int {
	ps := []int{-1}
	for _, p := range []int{0, 1, 31, 32, 33, 200, 5000, n / 8, n / 3, n / 2, 7 * n / 8, n - 2, n - 1} {
		if p >= 0 && p < n {
			ps = append(ps, p)
		}
	}
	return ps
}

func TestIndexAndContains(t *testing.T) {
	for _, opts := range pools(t) {
		for _, n := range lengths(t) {
			for _, at := range positions(n) {
				x := make([]int, n)
				if at >= 0 {
					x[at] = 1
					if at+5 < n {
						x[at+5] = 1 // a later match must not win
					}
				}
				want := slices.Index(x, 1)
				if got := pslices.Index(x, 1, opts...); got != want {
					t.Fatalf("Index(n=%d, match at %d) = %d, want %d", n, at, got, want)
				}
				f := func(v int) bool { return v == 1 }
				if got := pslices.IndexFunc(x, f, opts...); got != want {
					t.Fatalf("IndexFunc(n=%d, match at %d) = %d, want %d", n, at, got, want)
				}
				if got := pslices.Contains(x, 1, opts...); got != (want >= 0) {
					t.Fatalf("Contains(n=%d, match at %d) = %v", n, at, got)
				}
				if got := pslices.ContainsFunc(x, f, opts...); got != (want >= 0) {
					t.Fatalf("ContainsFunc(n=%d, match at %d) = %v", n, at, got)
				}
			}
		}
	}
}

func TestIndexNaN(t *testing.T) {
	x := make([]float64, 100000)
	x[500] = math.NaN()
	if pslices.Index(x, math.NaN()) != -1 || pslices.Contains(x, math.NaN()) {
		t.Fatal("Index found a NaN: NaN equals nothing, as in slices.Index")
	}
	if got := pslices.IndexFunc(x, math.IsNaN); got != 500 {
		t.Fatalf("IndexFunc(IsNaN) = %d, want 500", got)
	}
}

// Once a match is known, IndexFunc does not scan far beyond it: with a
// match at 1/4 of a long slice, f sees well under the whole slice.
func TestIndexFuncStopsAfterMatch(t *testing.T) {
	n := 1 << 22
	if testing.Short() || raceEnabled {
		n = 1 << 20
	}
	x := make([]int, n)
	x[n/4] = 1
	var calls atomic.Int64
	got := pslices.IndexFunc(x, func(v int) bool { calls.Add(1); return v == 1 })
	if got != n/4 {
		t.Fatalf("IndexFunc = %d, want %d", got, n/4)
	}
	// Below the match every element is looked at; beyond it, at most the
	// blocks already running when the match was found, one sub-block each
	// (at most a few thousand elements per worker).
	if c := calls.Load(); c > int64(n/4+n/8) {
		t.Fatalf("f was called %d times for a match at %d of %d: the scan went on past the match", c, n/4, n)
	}
	// Contains stops at any match: with two, it sees at most the elements
	// before the later one.
	calls.Store(0)
	x[n-10] = 1
	if !pslices.ContainsFunc(x, func(v int) bool { calls.Add(1); return v == 1 }) {
		t.Fatal("ContainsFunc = false")
	}
	if c := calls.Load(); c > int64(n-10) {
		t.Fatalf("ContainsFunc called f %d times with matches at %d and %d", c, n/4, n-10)
	}
}

func TestEqual(t *testing.T) {
	for _, opts := range pools(t)[:2] {
		for _, n := range lengths(t) {
			for _, at := range positions(n) {
				a := ints("random", n, 9)
				b := slices.Clone(a)
				if at >= 0 {
					b[at]++
				}
				want := at < 0
				if got := pslices.Equal(a, b, opts...); got != want {
					t.Fatalf("Equal(n=%d, difference at %d) = %v", n, at, got)
				}
				eq := func(x, y int) bool { return x == y }
				if got := pslices.EqualFunc(a, b, eq, opts...); got != want {
					t.Fatalf("EqualFunc(n=%d, difference at %d) = %v", n, at, got)
				}
			}
			if n > 0 && pslices.Equal(make([]int, n), make([]int, n-1)) {
				t.Fatalf("Equal of lengths %d and %d = true", n, n-1)
			}
		}
	}
	f := floats("random", 50000, 1)
	if pslices.Equal(f, slices.Clone(f)) != slices.Equal(f, slices.Clone(f)) {
		t.Fatal("Equal with NaNs differs from slices.Equal")
	}
	if !pslices.Equal([]int(nil), []int{}) {
		t.Fatal("Equal(nil, empty) = false")
	}
}

func TestBinarySearch(t *testing.T) {
	x := []int{1, 3, 3, 7}
	for _, v := range []int{0, 1, 3, 4, 7, 8} {
		i, ok := pslices.BinarySearch(x, v)
		j, ok2 := slices.BinarySearch(x, v)
		k, ok3 := pslices.BinarySearchFunc(x, v, func(e, t int) int { return e - t })
		if i != j || ok != ok2 || k != j || ok3 != ok2 {
			t.Fatalf("BinarySearch(%d) = %d %v, slices says %d %v", v, i, ok, j, ok2)
		}
	}
}

func ExampleIndex() {
	fmt.Println(pslices.Index([]string{"a", "b", "c", "b"}, "b"))
	// Output: 1
}

func ExampleIndexFunc() {
	x := []int{0, 42, -10, 8}
	fmt.Println(pslices.IndexFunc(x, func(v int) bool { return v < 0 }))
	// Output: 2
}

func ExampleContains() {
	fmt.Println(pslices.Contains([]int{0, 1, 2, 3}, 2))
	// Output: true
}

func ExampleContainsFunc() {
	hasNegative := pslices.ContainsFunc([]int{0, 42, -10, 8}, func(v int) bool { return v < 0 })
	fmt.Println(hasNegative)
	// Output: true
}

func ExampleEqual() {
	fmt.Println(pslices.Equal([]int{1, 2, 3}, []int{1, 2, 3}), pslices.Equal([]int{1, 2}, []int{1, 3}))
	// Output: true false
}

func ExampleEqualFunc() {
	ints := []int{1, 2, 3}
	strs := []string{"1", "2", "3"}
	fmt.Println(pslices.EqualFunc(ints, strs, func(i int, s string) bool { return fmt.Sprint(i) == s }))
	// Output: true
}

func ExampleBinarySearch() {
	names := []string{"Alice", "Bob", "Vera"}
	fmt.Println(pslices.BinarySearch(names, "Bill"))
	// Output: 1 false
}

func ExampleBinarySearchFunc() {
	type person struct {
		name string
		age  int
	}
	people := []person{{"Alice", 55}, {"Bob", 24}, {"Gopher", 13}}
	fmt.Println(pslices.BinarySearchFunc(people, "Bob", func(p person, name string) int {
		switch {
		case p.name < name:
			return -1
		case p.name > name:
			return 1
		}
		return 0
	}))
	// Output: 1 true
}

// Options: On picks the pool, Deterministic is accepted, the others panic.
func TestOptions(t *testing.T) {
	p := par.NewPool(par.Workers(2))
	defer p.Close()
	x := ints("random", 100000, 1)
	pslices.Sort(x, par.On(p), par.Deterministic())
	if !slices.IsSorted(x) {
		t.Fatal("Sort with On and Deterministic did not sort")
	}
	for _, bad := range []par.Option{par.Grain(8), par.Blocking(2), par.Track(new(par.Progress)), par.Weighted([]int64{1})} {
		func() {
			defer func() {
				r := recover()
				if r != "pslices: Index takes the On and Deterministic options only (Grain, Track, Weighted and Blocking do not apply to it)" {
					t.Fatalf("Index with a loop option: recovered %v", r)
				}
			}()
			pslices.Index(x, 3, bad)
		}()
	}
}

// A nil function panics at the call, naming the function and the argument,
// even on an empty slice.
func TestNilFunctions(t *testing.T) {
	var none []int
	for name, call := range map[string]func(){
		"pslices: IndexFunc: nil f":        func() { pslices.IndexFunc(none, nil) },
		"pslices: ContainsFunc: nil f":     func() { pslices.ContainsFunc(none, nil) },
		"pslices: EqualFunc: nil eq":       func() { pslices.EqualFunc(none, none, (func(int, int) bool)(nil)) },
		"pslices: IsSortedFunc: nil cmp":   func() { pslices.IsSortedFunc(none, nil) },
		"pslices: SortFunc: nil cmp":       func() { pslices.SortFunc(none, nil) },
		"pslices: SortStableFunc: nil cmp": func() { pslices.SortStableFunc(none, nil) },
		"pslices: MaxFunc: nil cmp":        func() { pslices.MaxFunc(none, nil) },
		"pslices: MinFunc: nil cmp":        func() { pslices.MinFunc(none, nil) },
		"pslices: Scan: nil op":            func() { pslices.Scan(none, nil) },
		"pslices: ScanExclusive: nil op":   func() { pslices.ScanExclusive(none, 0, nil) },
		"pslices: DeleteFunc: nil del":     func() { pslices.DeleteFunc(none, nil) },
		"pslices: BinarySearchFunc: nil cmp": func() {
			pslices.BinarySearchFunc(none, 0, (func(int, int) int)(nil))
		},
		"pslices: Max: empty list":     func() { pslices.Max(none) },
		"pslices: Min: empty list":     func() { pslices.Min(none) },
		"pslices: MaxFunc: empty list": func() { pslices.MaxFunc(none, func(a, b int) int { return a - b }) },
		"pslices: MinFunc: empty list": func() { pslices.MinFunc(none, func(a, b int) int { return a - b }) },
	} {
		func() {
			defer func() {
				if r := recover(); r != name {
					t.Errorf("recovered %v, want %q", r, name)
				}
			}()
			call()
		}()
	}
}
