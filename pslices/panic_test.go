package pslices_test

import (
	"errors"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/parloop/parloop/par"
	"github.com/parloop/parloop/pslices"
)

var errBoom = errors.New("boom")

// mustPanicError runs f and checks that it panics with a *par.PanicError
// that errors.Is sees errBoom through.
func mustPanicError(t *testing.T, what string, f func()) {
	t.Helper()
	defer func() {
		t.Helper()
		r := recover()
		pe, ok := r.(*par.PanicError)
		if !ok {
			t.Fatalf("%s: recovered %T %v, want a *par.PanicError", what, r, r)
		}
		if !errors.Is(pe, errBoom) || len(pe.Stack) == 0 {
			t.Fatalf("%s: the PanicError lost its value or stack: %v", what, pe.Value)
		}
	}()
	f()
}

// A comparator that panics after some calls leaves the slice a permutation
// of its input, and the panic reaches the caller as a *par.PanicError,
// whatever the length (on the caller or on the pool) and wherever in the
// sort it strikes.
func TestSortPanicsLeavePermutation(t *testing.T) {
	ns := []int{100, 20000}
	if *long {
		ns = append(ns, 200000)
		if !raceEnabled {
			ns = append(ns, 1<<20+5)
		}
	}
	for _, n := range ns {
		for _, after := range []int64{0, 50, int64(n), int64(5 * n), int64(12 * n)} {
			for _, sorter := range []struct {
				name string
				sort func([]rec, func(a, b rec) int)
			}{
				{"SortFunc", func(x []rec, c func(a, b rec) int) { pslices.SortFunc(x, c) }},
				{"SortStableFunc", func(x []rec, c func(a, b rec) int) { pslices.SortStableFunc(x, c) }},
			} {
				x := recs("random", n, 12)
				var calls atomic.Int64
				cmp := func(a, b rec) int {
					if calls.Add(1) > after {
						panic(errBoom)
					}
					return byKey(a, b)
				}
				finished := false
				func() {
					defer func() {
						if r := recover(); r != nil {
							if _, ok := r.(*par.PanicError); !ok {
								t.Fatalf("%s(n=%d, panic after %d calls): recovered %T, want a *par.PanicError", sorter.name, n, after, r)
							}
						}
					}()
					sorter.sort(x, cmp)
					finished = true
				}()
				if !isPermutation(x, n) {
					t.Fatalf("%s(n=%d, panic after %d calls): the slice is no longer a permutation of its input", sorter.name, n, after)
				}
				if finished && !slices.IsSortedFunc(x, byKey) {
					t.Fatalf("%s(n=%d): returned without panic and unsorted", sorter.name, n)
				}
			}
		}
	}
}

// Every function with a callback hands its panics on the same way, on the
// caller (an early element) and on the pool (a late one).
func TestCallbackPanics(t *testing.T) {
	n := 200000
	for _, at := range []int{3, n - 3} {
		x := make([]int, n)
		x[at] = 1
		f := func(v int) bool {
			if v == 1 {
				panic(errBoom)
			}
			return false
		}
		c := func(a, b int) int {
			if a == 1 || b == 1 {
				panic(errBoom)
			}
			return a - b
		}
		op := func(a, b int) int {
			if b == 1 {
				panic(errBoom)
			}
			return a + b
		}
		mustPanicError(t, "IndexFunc", func() { pslices.IndexFunc(x, f) })
		mustPanicError(t, "ContainsFunc", func() { pslices.ContainsFunc(x, f) })
		mustPanicError(t, "EqualFunc", func() { pslices.EqualFunc(x, x, func(a, b int) bool { return !f(a) }) })
		mustPanicError(t, "IsSortedFunc", func() { pslices.IsSortedFunc(x, c) })
		mustPanicError(t, "MaxFunc", func() { pslices.MaxFunc(x, c) })
		mustPanicError(t, "MinFunc", func() { pslices.MinFunc(x, c) })
		mustPanicError(t, "Scan", func() { pslices.Scan(slices.Clone(x), op) })
		mustPanicError(t, "ScanExclusive", func() { pslices.ScanExclusive(slices.Clone(x), 0, op) })
		mustPanicError(t, "DeleteFunc", func() { pslices.DeleteFunc(slices.Clone(x), f) })
		mustPanicError(t, "BinarySearchFunc", func() {
			pslices.BinarySearchFunc(x, 0, func(int, int) int { panic(errBoom) })
		})
	}
}
