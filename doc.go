// Package parloop is a runtime for parallel loops in Go: what to reach for
// instead of hand-written sync.WaitGroup fan-out, errgroup or conc when the
// goal is to use every core on CPU-bound work.
//
// The API lives in package par:
//
//	par.For(n, func(i int) { out[i] = f(in[i]) })
//	par.ForRange(n, func(lo, hi int) { ... })
//	out := par.Map(in, f)
//	sum := par.Reduce(xs, 0.0, func(a, b float64) float64 { return a + b })
//	par.Join(func() { left() }, func() { right() })
//	a, b := par.BothOf(fib, n-1, fib, n-2) // a fork with results, no closures
//	err := par.ForErr(ctx, n, func(ctx context.Context, i int) error { ... })
//
// Underneath is a work-stealing pool: one worker thread per usable CPU
// (the caller counts as one), each with a Chase-Lev deque (par/internal/deque);
// index ranges split lazily, in halves, only when some worker could take the
// other half; joins are continuations, so the last half to finish carries
// on its parent's work and no thread blocks on a join; and idle workers
// spin briefly, then park, with a wake-up protocol that loses no work. The
// pool reads the machine's topology from Linux sysfs
// (par/internal/topology) to place workers and to steal from the nearest
// victims first.
//
// See README.md for how it works and what was measured, and bench/ for the
// benchmarks against the peers.
package parloop
