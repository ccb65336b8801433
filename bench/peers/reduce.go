package peers

import (
	"runtime"

	"github.com/parloop/parloop/bench/workloads"
)

// ChunkedSum sums a with a loop peer the way a user without a reduce
// primitive does: cut a into ChunksPerWorker*GOMAXPROCS chunks, sum each chunk
// serially on whatever the peer runs it on, and add the partial sums in chunk
// order. The result is the same on every run at one GOMAXPROCS, and may differ
// in its last bits between GOMAXPROCS values (the chunk bounds move).
func ChunkedSum(run Runner, a []float64) float64 {
	chunks := min(len(a), ChunksPerWorker*runtime.GOMAXPROCS(0))
	if chunks == 0 {
		return 0
	}
	partial := make([]float64, chunks)
	bound := func(c int) int { return c * len(a) / chunks }
	one := func(c int) { partial[c] = workloads.SumRange(a, bound(c), bound(c+1)) }
	run(chunks, one, func(lo, hi int) {
		for c := lo; c < hi; c++ {
			one(c)
		}
	})
	s := 0.0
	for _, p := range partial {
		s += p
	}
	return s
}
