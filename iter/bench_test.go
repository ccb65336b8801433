package iter

import (
	"math"
	"testing"

	"github.com/parloop/parloop/par"
)

// work is a stage of about 50 ns.
func work(v int) float64 {
	x := float64(v)
	for range 8 {
		x = math.Sqrt(x + 1)
	}
	return x
}

const benchN = 1 << 18

func BenchmarkSequential(b *testing.B) {
	for b.Loop() {
		s := 0.0
		for i := range benchN {
			s += work(i)
		}
		_ = s
	}
}

func BenchmarkRangeMapSum(b *testing.B) {
	for b.Loop() {
		Sum(Map(Range(benchN), work))
	}
}

func BenchmarkFromMapSum(b *testing.B) {
	for b.Loop() {
		Sum(Map(From(count(benchN)), work))
	}
}

func BenchmarkFromMapAll(b *testing.B) {
	for b.Loop() {
		s := 0.0
		for v, _ := range Map(From(count(benchN)), work).All() {
			s += v
		}
		_ = s
	}
}

func BenchmarkRangeMapSumOneWorker(b *testing.B) {
	p := par.NewPool(par.Workers(1))
	defer p.Close()
	for b.Loop() {
		Sum(Map(Range(benchN, On(p)), work))
	}
}
