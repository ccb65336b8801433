package pslices_test

import (
	"math"
	"slices"
	"testing"

	"github.com/parloop/parloop/pslices"
)

// The fuzz targets compare every function with package slices on inputs
// built from a seed, a shape, a length near one of the package's cutoffs
// and the number of distinct values. The seed corpus runs in every go test;
// go test -fuzz FuzzX explores further.

// cutoffs are the lengths around which the package changes path.
var cutoffs = []int{0, 32, 4096, 8192, 16384, 1 << 16}

func fuzzInput(seed uint64, shapeIdx, near uint8, delta int16, distinct uint16) (shape string, n int, x []int) {
	shape = shapes[int(shapeIdx)%len(shapes)]
	n = max(cutoffs[int(near)%len(cutoffs)]+int(delta)%512, 0)
	x = ints(shape, n, seed)
	if distinct > 0 {
		for i := range x {
			x[i] %= int(distinct)
		}
	}
	return shape, n, x
}

// addSeeds adds the seed corpus: 24 inputs under -long, else the 8 of them
// that still try each cutoff and each shape once.
func addSeeds(f *testing.F) {
	for i := range 24 {
		if !*long && i%3 != 0 {
			continue
		}
		f.Add(uint64(i), uint8(i), uint8(i/3), int16(i*7-80), uint16(i%5*3))
	}
}

func FuzzSorts(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, seed uint64, shapeIdx, near uint8, delta int16, distinct uint16) {
		shape, n, x := fuzzInput(seed, shapeIdx, near, delta, distinct)
		want := slices.Clone(x)
		slices.Sort(want)
		if pslices.IsSorted(x) != slices.IsSorted(x) {
			t.Fatalf("IsSorted(%s, n=%d) differs", shape, n)
		}
		got := slices.Clone(x)
		pslices.Sort(got)
		if !slices.Equal(got, want) {
			t.Fatalf("Sort(%s, n=%d) differs", shape, n)
		}
		fl := make([]float64, n)
		for i, v := range x {
			fl[i] = float64(v % 100)
			if v%17 == 0 {
				fl[i] = math.NaN()
			}
		}
		fw := slices.Clone(fl)
		slices.Sort(fw)
		pslices.Sort(fl)
		if !sameFloats(fl, fw) {
			t.Fatalf("Sort(floats with NaNs, %s, n=%d) differs", shape, n)
		}
		r := make([]rec, n)
		for i, v := range x {
			r[i] = rec{key: v % 64, id: i}
		}
		stable, want2 := slices.Clone(r), slices.Clone(r)
		pslices.SortStableFunc(stable, byKey)
		slices.SortStableFunc(want2, byKey)
		if !slices.Equal(stable, want2) {
			t.Fatalf("SortStableFunc(%s, n=%d) differs", shape, n)
		}
		pslices.SortFunc(r, byKey)
		if !slices.IsSortedFunc(r, byKey) || !isPermutation(r, n) {
			t.Fatalf("SortFunc(%s, n=%d): not a sorted permutation", shape, n)
		}
		if pslices.IsSortedFunc(r, byKey) != true {
			t.Fatalf("IsSortedFunc(sorted, n=%d) = false", n)
		}
	})
}

func FuzzSearch(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, seed uint64, shapeIdx, near uint8, delta int16, distinct uint16) {
		shape, n, x := fuzzInput(seed, shapeIdx, near, delta, distinct)
		for _, v := range []int{-1, 0, 1, 2, 999, n / 2} {
			if got, want := pslices.Index(x, v), slices.Index(x, v); got != want {
				t.Fatalf("Index(%s, n=%d, %d) = %d, want %d", shape, n, v, got, want)
			}
			f := func(e int) bool { return e == v }
			if got, want := pslices.IndexFunc(x, f), slices.IndexFunc(x, f); got != want {
				t.Fatalf("IndexFunc(%s, n=%d, %d) = %d, want %d", shape, n, v, got, want)
			}
			if pslices.Contains(x, v) != slices.Contains(x, v) || pslices.ContainsFunc(x, f) != slices.ContainsFunc(x, f) {
				t.Fatalf("Contains(%s, n=%d, %d) differs", shape, n, v)
			}
		}
		y := slices.Clone(x)
		if n > 0 {
			y[int(seed%uint64(n))]++
		}
		eq := func(a, b int) bool { return a == b }
		if pslices.Equal(x, y) != slices.Equal(x, y) || pslices.EqualFunc(x, y, eq) != slices.EqualFunc(x, y, eq) {
			t.Fatalf("Equal(%s, n=%d) differs", shape, n)
		}
		if !pslices.Equal(x, slices.Clone(x)) {
			t.Fatalf("Equal(x, a copy) = false (n=%d)", n)
		}
	})
}

func FuzzReduce(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, seed uint64, shapeIdx, near uint8, delta int16, distinct uint16) {
		shape, n, x := fuzzInput(seed, shapeIdx, near, delta, distinct)
		if n == 0 {
			return
		}
		if pslices.Max(x) != slices.Max(x) || pslices.Min(x) != slices.Min(x) {
			t.Fatalf("Max or Min(%s, n=%d) differs", shape, n)
		}
		r := make([]rec, n)
		for i, v := range x {
			r[i] = rec{key: v % 50, id: i}
		}
		if pslices.MaxFunc(r, byKey) != slices.MaxFunc(r, byKey) || pslices.MinFunc(r, byKey) != slices.MinFunc(r, byKey) {
			t.Fatalf("MaxFunc or MinFunc(%s, n=%d) differs", shape, n)
		}
		fl := make([]float64, n)
		for i, v := range x {
			fl[i] = float64(v%100) - 50
			if v%97 == 3 {
				fl[i] = math.NaN()
			}
		}
		if !sameFloats([]float64{pslices.Max(fl), pslices.Min(fl)}, []float64{slices.Max(fl), slices.Min(fl)}) {
			t.Fatalf("Max or Min(floats with NaNs, %s, n=%d) differs", shape, n)
		}
	})
}

func FuzzScan(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, seed uint64, shapeIdx, near uint8, delta int16, distinct uint16) {
		shape, n, x := fuzzInput(seed, shapeIdx, near, delta, distinct)
		add := func(a, b int) int { return a + b }
		got, want := slices.Clone(x), slices.Clone(x)
		for i := 1; i < n; i++ {
			want[i] += want[i-1]
		}
		pslices.Scan(got, add)
		if !slices.Equal(got, want) {
			t.Fatalf("Scan(%s, n=%d) differs", shape, n)
		}
		got = slices.Clone(x)
		total := pslices.ScanExclusive(got, 3, add)
		acc := 3
		for i, v := range x {
			if got[i] != acc {
				t.Fatalf("ScanExclusive(%s, n=%d): element %d differs", shape, n, i)
			}
			acc += v
		}
		if total != acc {
			t.Fatalf("ScanExclusive(%s, n=%d) = %d, want %d", shape, n, total, acc)
		}
		m := int(seed%7) + 2
		del := func(v int) bool { return v%m == 0 }
		g, w := slices.Clone(x), slices.Clone(x)
		if !slices.Equal(pslices.DeleteFunc(g, del), slices.DeleteFunc(w, del)) || !slices.Equal(g, w) {
			t.Fatalf("DeleteFunc(%s, n=%d) differs", shape, n)
		}
	})
}
