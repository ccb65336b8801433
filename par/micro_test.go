package par

import "testing"

// Micro-benchmarks of the per-call paths, for profiling. The scoreboard
// against the peers and the goals is in bench/.

var microSink []int

func BenchmarkMicroForRangeTiny(b *testing.B) {
	a := make([]int, 1000)
	body := func(lo, hi int) {
		for i := lo; i < hi; i++ {
			a[i] = 2 * i
		}
	}
	for b.Loop() {
		ForRange(len(a), body)
	}
	microSink = a
}

func BenchmarkMicroForTiny(b *testing.B) {
	a := make([]int, 1000)
	body := func(i int) { a[i] = 2 * i }
	for b.Loop() {
		For(len(a), body)
	}
	microSink = a
}

func BenchmarkMicroJoinInBody(b *testing.B) {
	f := func() {}
	For(1, func(int) {
		for b.Loop() {
			Join(f, f)
		}
	})
}

func BenchmarkMicroInvokeInBody(b *testing.B) {
	f := func() {}
	For(1, func(int) {
		for b.Loop() {
			Invoke(f, f)
		}
	})
}

//go:noinline
func microSeqFunc(n int, body func(int)) {
	for i := 0; i < n; i++ {
		body(i)
	}
}

//go:noinline
func microSeqRange(n int, body func(lo, hi int)) { body(0, n) }

func BenchmarkMicroSeqFuncTiny(b *testing.B) {
	a := make([]int, 1000)
	body := func(i int) { a[i] = 2 * i }
	for b.Loop() {
		microSeqFunc(len(a), body)
	}
	microSink = a
}

func BenchmarkMicroSeqRangeTiny(b *testing.B) {
	a := make([]int, 1000)
	body := func(lo, hi int) {
		for i := lo; i < hi; i++ {
			a[i] = 2 * i
		}
	}
	for b.Loop() {
		microSeqRange(len(a), body)
	}
	microSink = a
}

func BenchmarkMicroReduceSum(b *testing.B) {
	xs := make([]float64, 1<<20)
	for i := range xs {
		xs[i] = float64(i)
	}
	add := func(a, b float64) float64 { return a + b }
	for b.Loop() {
		Reduce(xs, 0, add)
	}
}

func BenchmarkMicroSeqReduceFunc(b *testing.B) {
	xs := make([]float64, 1<<20)
	for i := range xs {
		xs[i] = float64(i)
	}
	add := func(a, b float64) float64 { return a + b }
	for b.Loop() {
		acc := 0.0
		for _, x := range xs {
			acc = add(acc, x)
		}
		microFloat = acc
	}
}

var microFloat float64
