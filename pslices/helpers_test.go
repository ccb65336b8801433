package pslices_test

import (
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"testing"

	"github.com/parloop/parloop/par"
)

// lengths are the lengths the tests try: small ones, and each side of the
// package's cutoffs (the sort and stable-sort cutoffs and leaves at 4,096
// and 8,192, the chain blocks at 4,096 int64s and their double, the
// parallel partition at 2^20).
// With PSLICES_LONG=1 in the environment, every shape is also tried at
// lengths around 2^20; otherwise only a few shapes are (bigShapes).
func lengths(t testing.TB) []int {
	ls := []int{0, 1, 2, 3, 31, 32, 33, 64, 65, 1000, 4095, 4096, 4097, 8191, 8192, 8193, 8194, 12289, 16384, 50000, 1<<16 + 3}
	if testing.Short() || raceEnabled {
		return ls // TestSortParallelPartition keeps one sort above 2^20
	}
	return append(ls, 1<<20+5)
}

// long reports whether the long tests were asked for (PSLICES_LONG=1).
func long() bool { return os.Getenv("PSLICES_LONG") == "1" }

// skipBig reports whether a test at length n and this shape is left to the
// long run: at 2^20 and more, only random data is tried by default.
func skipBig(n int, shape string) bool {
	return n >= 1<<20 && !long() && shape != "random"
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
