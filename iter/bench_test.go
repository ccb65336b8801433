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

// The OneWorker benchmarks run on a pool of one worker, so that
// valgrind --tool=callgrind counts the same instructions on every run: the
// cost an item of the stages, the per-item stop test and the terminal,
// free of scheduling. Each runs benchN items through a Map of a few
// instructions.

func square(v int) int { return v * v }

func add(a, b int) int { return a + b }

func BenchmarkRangeFilterMapReduceOneWorker(b *testing.B) {
	p := par.NewPool(par.Workers(1))
	defer p.Close()
	for b.Loop() {
		Map(Range(benchN, On(p)).Filter(func(v int) bool { return v%3 != 0 }), square).Reduce(0, add)
	}
}

func BenchmarkRangeMapReduceOneWorker(b *testing.B) {
	p := par.NewPool(par.Workers(1))
	defer p.Close()
	for b.Loop() {
		Map(Range(benchN, On(p)), square).Reduce(0, add)
	}
}

func BenchmarkFromMapReduceOneWorker(b *testing.B) {
	p := par.NewPool(par.Workers(1))
	defer p.Close()
	for b.Loop() {
		Map(From(count(benchN), On(p)), square).Reduce(0, add)
	}
}

func BenchmarkFromMapSumOneWorker(b *testing.B) {
	p := par.NewPool(par.Workers(1))
	defer p.Close()
	for b.Loop() {
		Sum(Map(From(count(benchN), On(p)), square))
	}
}

func BenchmarkFromMapAllOneWorker(b *testing.B) {
	p := par.NewPool(par.Workers(1))
	defer p.Close()
	for b.Loop() {
		s := 0
		for v := range Map(From(count(benchN), On(p)), square).All() {
			s += v
		}
		_ = s
	}
}
