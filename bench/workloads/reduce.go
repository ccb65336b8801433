package workloads

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// Size of the reduce workload.
const ReduceN = 10_000_000

// ReduceInput returns n float64 in [0, 1) from a fixed seed. Their sum depends
// on the order of the additions in its last bits.
func ReduceInput(n int) []float64 {
	r := rand.New(rand.NewPCG(11, 13))
	a := make([]float64, n)
	for i := range a {
		a[i] = r.Float64()
	}
	return a
}

// SumPlain is the plain serial sum.
func SumPlain(a []float64) float64 {
	s := 0.0
	for _, v := range a {
		s += v
	}
	return s
}

// SumRange is the serial sum of a[lo:hi].
func SumRange(a []float64, lo, hi int) float64 {
	s := 0.0
	for _, v := range a[lo:hi] {
		s += v
	}
	return s
}

// SumExact is Neumaier's compensated sum, accurate to about one rounding.
func SumExact(a []float64) float64 {
	s, c := 0.0, 0.0
	for _, v := range a {
		t := s + v
		if math.Abs(s) >= math.Abs(v) {
			c += (s - t) + v
		} else {
			c += (v - t) + s
		}
		s = t
	}
	return s + c
}

// VerifySum accepts got when it is within the rounding error that any
// summation order of n non-negative terms can make (n*eps relative, bounded
// far more loosely here at 1e-9).
func VerifySum(got, exact float64) error {
	if math.IsNaN(got) || math.Abs(got-exact) > 1e-9*math.Abs(exact) {
		return fmt.Errorf("reduce: sum %v, want %v (relative error %.3g)", got, exact, math.Abs(got-exact)/math.Abs(exact))
	}
	return nil
}
