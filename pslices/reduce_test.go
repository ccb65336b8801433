package pslices_test

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/parloop/parloop/par"
	"github.com/parloop/parloop/pslices"
)

func TestMaxMin(t *testing.T) {
	for _, opts := range twoPools(t) {
		for _, n := range lengths(t)[1:] {
			for _, shape := range shapesAt(n) {
				x := ints(shape, n, 7)
				if got, want := pslices.Max(x, opts...), slices.Max(x); got != want {
					t.Fatalf("Max(%s, n=%d) = %d, want %d", shape, n, got, want)
				}
				if got, want := pslices.Min(x, opts...), slices.Min(x); got != want {
					t.Fatalf("Min(%s, n=%d) = %d, want %d", shape, n, got, want)
				}
				f := floats(shape, n, 7)
				if got, want := pslices.Max(f, opts...), slices.Max(f); !sameFloats([]float64{got}, []float64{want}) {
					t.Fatalf("Max(floats %s, n=%d) = %v, want %v", shape, n, got, want)
				}
				if got, want := pslices.Min(f, opts...), slices.Min(f); !sameFloats([]float64{got}, []float64{want}) {
					t.Fatalf("Min(floats %s, n=%d) = %v, want %v", shape, n, got, want)
				}
				// Ties: the first extreme record, told apart by id.
				r := recs(shape, n, 7)
				if got, want := pslices.MaxFunc(r, byKey, opts...), slices.MaxFunc(r, byKey); got != want {
					t.Fatalf("MaxFunc(%s, n=%d) = %v, want %v", shape, n, got, want)
				}
				if got, want := pslices.MinFunc(r, byKey, opts...), slices.MinFunc(r, byKey); got != want {
					t.Fatalf("MinFunc(%s, n=%d) = %v, want %v", shape, n, got, want)
				}
			}
		}
	}
	// NaN propagates wherever it is.
	f := make([]float64, 100000)
	f[77777] = math.NaN()
	if !math.IsNaN(pslices.Max(f)) || !math.IsNaN(pslices.Min(f)) {
		t.Fatal("Max or Min of a slice with a NaN is not NaN")
	}
}

// mat is a 2x2 matrix of integers that wrap around: its product is
// associative, exactly, and not commutative.
type mat [4]uint64

func mul(a, b mat) mat {
	return mat{a[0]*b[0] + a[1]*b[2], a[0]*b[1] + a[1]*b[3], a[2]*b[0] + a[3]*b[2], a[2]*b[1] + a[3]*b[3]}
}

func mats(n int) []mat {
	x := make([]mat, n)
	for i, v := range ints("random", n, 11) {
		u := uint64(v)
		x[i] = mat{u & 7, u >> 3 & 7, u >> 6 & 7, u >> 9 & 7}
	}
	return x
}

func TestScan(t *testing.T) {
	for _, opts := range pools(t) {
		for _, n := range lengths(t) {
			x := ints("random", n, 8)
			want := slices.Clone(x)
			for i := 1; i < n; i++ {
				want[i] += want[i-1]
			}
			add := func(a, b int) int { return a + b }
			pslices.Scan(x, add, opts...)
			if !slices.Equal(x, want) {
				t.Fatalf("Scan(n=%d, %d opts) differs from the sequential loop", n, len(opts))
			}

			m := mats(n)
			wantM := slices.Clone(m)
			for i := 1; i < n; i++ {
				wantM[i] = mul(wantM[i-1], wantM[i])
			}
			pslices.Scan(m, mul, opts...)
			if !slices.Equal(m, wantM) {
				t.Fatalf("Scan of matrix products (n=%d): differs from the sequential loop", n)
			}

			e := ints("random", n, 8)
			init := 5
			wantE := make([]int, n)
			acc := init
			for i, v := range e {
				wantE[i] = acc
				acc += v
			}
			if total := pslices.ScanExclusive(e, init, add, opts...); total != acc || !slices.Equal(e, wantE) {
				t.Fatalf("ScanExclusive(n=%d) = %d, want %d, or the elements differ", n, total, acc)
			}
		}
	}
}

// Scan's grouping depends on the length alone: floating-point sums come out
// bitwise the same on every pool, with or without Deterministic; except on
// the default pool at GOMAXPROCS 1 without it, which is the sequential loop
// (TestScanAtOneProc). It scans 2^18+7 floats, 2^16+7 (16 chain blocks)
// under the race detector.
func TestScanFloatsReproducible(t *testing.T) {
	n := 1<<18 + 7
	if raceEnabled {
		n = 1<<16 + 7
	}
	var first []float64
	for _, opts := range pools(t) {
		for _, det := range []bool{false, true} {
			if opts == nil && !det && runtime.GOMAXPROCS(0) == 1 {
				continue
			}
			x := floats("random", n, 4)
			for i := range x {
				if math.IsNaN(x[i]) || math.IsInf(x[i], 0) {
					x[i] = 0.1
				}
			}
			o := opts
			if det {
				o = append(slices.Clone(opts), par.Deterministic())
			}
			pslices.Scan(x, func(a, b float64) float64 { return a + b }, o...)
			if first == nil {
				first = x
			} else if !slices.Equal(first, x) {
				t.Fatalf("Scan of floats on %d opts gave other bits than on the default pool", len(o))
			}
		}
	}
}

// At GOMAXPROCS 1 the default pool's Scan is the sequential loop; with
// Deterministic it groups as at any other parallelism.
func TestScanAtOneProc(t *testing.T) {
	in := floats("random", 1<<17+3, 5)
	for i := range in {
		if math.IsNaN(in[i]) || math.IsInf(in[i], 0) {
			in[i] = 0.3
		}
	}
	add := func(a, b float64) float64 { return a + b }
	det := slices.Clone(in)
	pslices.Scan(det, add, par.Deterministic())
	seq := slices.Clone(in)
	for i := 1; i < len(seq); i++ {
		seq[i] = seq[i-1] + seq[i]
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	one := slices.Clone(in)
	pslices.Scan(one, add)
	if !slices.Equal(one, seq) {
		t.Fatal("Scan at GOMAXPROCS 1 differs from the sequential loop")
	}
	oneDet := slices.Clone(in)
	pslices.Scan(oneDet, add, par.Deterministic())
	if !slices.Equal(oneDet, det) {
		t.Fatal("Scan with Deterministic at GOMAXPROCS 1 differs from Scan with Deterministic at GOMAXPROCS > 1")
	}
}

func TestDeleteFunc(t *testing.T) {
	for _, opts := range pools(t) {
		for _, n := range lengths(t) {
			for _, rule := range []struct {
				name string
				del  func(int) bool
			}{
				{"none", func(int) bool { return false }},
				{"all", func(int) bool { return true }},
				{"odd", func(v int) bool { return v%2 != 0 }},
				{"rare", func(v int) bool { return v%1000 == 0 }},
				{"most", func(v int) bool { return v%1000 != 0 }},
			} {
				got := ints("random", n, 10)
				want := slices.Clone(got)
				gotAll, wantAll := got[:n:n], want[:n:n]
				g := pslices.DeleteFunc(got, rule.del, opts...)
				w := slices.DeleteFunc(want, rule.del)
				if !slices.Equal(g, w) || !slices.Equal(gotAll, wantAll) {
					t.Fatalf("DeleteFunc(%s, n=%d): differs from slices.DeleteFunc (kept %d, want %d)", rule.name, n, len(g), len(w))
				}
			}
		}
	}
	// The tail is zeroed: pointers in it are dropped.
	s := make([]*int, 100000)
	for i := range s {
		s[i] = new(int)
		*s[i] = i
	}
	kept := pslices.DeleteFunc(s, func(p *int) bool { return *p%3 == 0 })
	for _, p := range s[len(kept):] {
		if p != nil {
			t.Fatal("DeleteFunc left a pointer after the new length")
		}
	}
}

func ExampleMax() {
	fmt.Println(pslices.Max([]int{0, 42, -10, 8}))
	// Output: 42
}

func ExampleMin() {
	fmt.Println(pslices.Min([]int{0, 42, -10, 8}))
	// Output: -10
}

func ExampleMaxFunc() {
	type person struct {
		name string
		age  int
	}
	people := []person{{"Gopher", 13}, {"Alice", 55}, {"Vera", 24}, {"Bob", 55}}
	oldest := pslices.MaxFunc(people, func(a, b person) int { return a.age - b.age })
	fmt.Println(oldest.name)
	// Output: Alice
}

func ExampleMinFunc() {
	type person struct {
		name string
		age  int
	}
	people := []person{{"Gopher", 13}, {"Bob", 5}, {"Vera", 24}, {"Bill", 5}}
	youngest := pslices.MinFunc(people, func(a, b person) int { return a.age - b.age })
	fmt.Println(youngest.name)
	// Output: Bob
}

func ExampleScan() {
	x := []int{1, 2, 3, 4, 5}
	pslices.Scan(x, func(a, b int) int { return a + b })
	fmt.Println(x)
	// Output: [1 3 6 10 15]
}

// Offsets of variable-length items laid out one after another.
func ExampleScanExclusive() {
	words := []string{"par", "loop", "s", "lices"}
	at := make([]int, len(words))
	for i, w := range words {
		at[i] = len(w)
	}
	total := pslices.ScanExclusive(at, 0, func(a, b int) int { return a + b })
	fmt.Println(at, total)
	// A non-commutative op: concatenation keeps the order.
	s := []string{"a", "b", "c"}
	pslices.Scan(s, func(x, y string) string { return x + y })
	fmt.Println(strings.Join(s, " "))
	// Output:
	// [0 3 7 8] 13
	// a ab abc
}

func ExampleDeleteFunc() {
	x := []int{0, 1, 1, 2, 3, 5, 8}
	x = pslices.DeleteFunc(x, func(v int) bool { return v%2 != 0 })
	fmt.Println(x)
	// Output: [0 2 8]
}
