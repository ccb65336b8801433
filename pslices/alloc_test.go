package pslices_test

import (
	"slices"
	"testing"

	"github.com/parloop/parloop/pslices"
)

// Nothing is allocated per element: the allocations of a call (closures,
// the tables of parallel splits, the chain's links, the stable sort's one
// buffer) stay a small number, and grow far slower than the slice.
func TestAllocsNotPerElement(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates on its own")
	}
	n := 1 << 18
	if *long {
		n = 1 << 20
	}
	src := ints("random", n, 13)
	src[0] = -1
	x := slices.Clone(src)
	r := recs("random", n/4, 13)
	rs := slices.Clone(r)
	f := floats("random", n, 13)
	add := func(a, b int) int { return a + b }
	for _, c := range []struct {
		name  string
		limit float64
		f     func()
	}{
		// A sort forks about 2n/leafLen times, a closure each, and a
		// parallel split allocates a few small tables.
		{"Sort", float64(n) / 1000, func() { copy(x, src); pslices.Sort(x) }},
		{"SortFunc", float64(n) / 1000, func() { copy(rs, r); pslices.SortFunc(rs, byKey) }},
		{"SortStableFunc", float64(n) / 1000, func() { copy(rs, r); pslices.SortStableFunc(rs, byKey) }},
		{"IndexFunc", 16, func() { pslices.IndexFunc(src, func(v int) bool { return v == -2 }) }},
		{"Index at 0", 0, func() { pslices.Index(src, src[0]) }},
		// f escapes to the pool's workers, so a closure that captures
		// variables is allocated by its caller, once per call; a function
		// that captures nothing is not.
		{"IndexFunc at 0", 0, func() { pslices.IndexFunc(src, isNegative) }},
		{"Equal", 16, func() { pslices.Equal(src, src) }},
		{"Max", 16, func() { pslices.Max(f) }},
		{"MaxFunc", 16, func() { pslices.MaxFunc(src, func(a, b int) int { return a - b }) }},
		{"Scan", 16, func() { copy(x, src); pslices.Scan(x, add) }},
		{"DeleteFunc", 16, func() { copy(x, src); pslices.DeleteFunc(x, func(v int) bool { return v%2 == 0 }) }},
	} {
		if a := testing.AllocsPerRun(5, c.f); a > c.limit {
			t.Errorf("%s of %d elements: %.0f allocations, want at most %.0f", c.name, n, a, c.limit)
		}
	}
}

func isNegative(v int) bool { return v < 0 }
