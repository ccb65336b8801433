package pslices_test

import (
	"flag"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/parloop/parloop/par"
)

// long selects the long runs: every shape at every length, the lengths of
// 2^20 and more (without the race detector), and the bigger panicking
// sorts. By default the tests try every length and, above 4,097, three of
// the shapes at each (random and two others, in turn; under the race
// detector, one shape, each at one of the eight lengths), sized so that the
// package's tests take a few seconds under the race detector. CI runs both.
var long = flag.Bool("long", false, "try every shape at every length, and lengths of 2^20 and more")

// lengths are the lengths the tests try: small ones, and each side of the
// package's cutoffs (the sort's leaves and SortFunc's cutoff at 8,192,
// Sort's cutoff at 16,384, the stable sort's leaves and cutoff at 4,096 and
// 8,192, the merge pieces at 16,384, the chain blocks at 4,096 int64s and
// their double, the parallel partition at 2^20), and one past two merge
// pieces. TestSortParallelPartition keeps one sort above 2^20 in every run.
func lengths(t testing.TB) []int {
	ls := append([]int{0, 1, 2, 3, 31, 32, 33, 64, 65, 1000, 4095, 4096, 4097}, longLengths...)
	if !*long {
		return ls
	}
	ls = append(ls, 50000, 1<<16+3)
	if raceEnabled {
		return ls
	}
	return append(ls, 1<<20+5)
}

// longLengths are the default lengths past 4,097.
var longLengths = []int{8191, 8192, 8193, 8194, 12289, 16384, 16385, 1<<15 + 3}

// shapesAt returns the shapes to try at length n: every shape up to 4,097
// and under -long; above, "random" and two others, which change with n so
// that each shape is tried at several lengths past the cutoffs. Under the
// race detector it is one shape, a different one at each of longLengths.
func shapesAt(n int) []string {
	if *long || n <= 4097 {
		return shapes
	}
	if raceEnabled {
		i := max(slices.Index(longLengths, n), 0)
		return shapes[i%len(shapes) : i%len(shapes)+1]
	}
	k := (n ^ n>>12) % (len(shapes) - 1)
	return []string{shapes[0], shapes[1+k], shapes[1+(k+1)%(len(shapes)-1)]}
}

// shapes are the inputs the tests try at each length.
var shapes = []string{"random", "sorted", "reversed", "equal", "few", "dups", "sawtooth", "organ"}

// ints returns n ints of the given shape.
func ints(shape string, n int, seed uint64) []int {
	r := rand.New(rand.NewPCG(seed, uint64(n)))
	x := make([]int, n)
	for i := range x {
		switch shape {
		case "random":
			x[i] = r.Int()
		case "sorted":
			x[i] = i
		case "reversed":
			x[i] = n - i
		case "equal":
			x[i] = 7
		case "few":
			x[i] = r.IntN(5)
		case "dups":
			x[i] = r.IntN(max(n/8, 1))
		case "sawtooth":
			x[i] = i % 1000
		case "organ":
			x[i] = min(i, n-i)
		}
	}
	return x
}

// floats returns n floats of the given shape with NaNs, infinities and
// signed zeros sprinkled in.
func floats(shape string, n int, seed uint64) []float64 {
	x := make([]float64, n)
	r := rand.New(rand.NewPCG(seed, 3))
	for i, v := range ints(shape, n, seed) {
		x[i] = float64(v%1000) / 7
		switch r.IntN(50) {
		case 0:
			x[i] = math.NaN()
		case 1:
			x[i] = math.Inf(-1)
		case 2:
			x[i] = math.Copysign(0, -1)
		case 3:
			x[i] = 0
		}
	}
	return x
}

// rec is a 64-byte record sorted by key; id tells equal keys apart.
type rec struct {
	key int
	id  int
	_   [6]int // to 64 bytes
}

func recs(shape string, n int, seed uint64) []rec {
	x := make([]rec, n)
	for i, v := range ints(shape, n, seed) {
		x[i] = rec{key: v % 1000, id: i}
	}
	return x
}

func byKey(a, b rec) int {
	switch {
	case a.key < b.key:
		return -1
	case a.key > b.key:
		return 1
	}
	return 0
}

// sameFloats reports whether a and b hold the same values position by
// position, NaN matching NaN and -0 matching 0 (Sort does not order them).
func sameFloats(a, b []float64) bool {
	return slices.EqualFunc(a, b, func(x, y float64) bool { return x == y || x != x && y != y })
}

// pools are the pools the tests run each function on: the default one, and
// private pools of 1, 3 and 4 workers, closed by the test's cleanup.
func pools(t testing.TB) [][]par.Option {
	var ps [][]par.Option
	ps = append(ps, nil)
	for _, w := range []int{1, 3, 4} {
		p := par.NewPool(par.Workers(w))
		t.Cleanup(p.Close)
		ps = append(ps, []par.Option{par.On(p)})
	}
	return ps
}

// twoPools returns the pools the comparisons with package slices run on:
// a private pool of 3 workers (more than the CPUs of a small machine, so
// that pieces move between workers) and, under -long, the default pool too,
// which FuzzSorts and TestSortParallelPartition use in every run.
func twoPools(t testing.TB) [][]par.Option {
	if *long {
		return [][]par.Option{nil, pools(t)[2]}
	}
	return pools(t)[2:3]
}
