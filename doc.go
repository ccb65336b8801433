// Package parloop is parallel loops and fork-join for Go, on a
// work-stealing runtime: what to reach for instead of hand-written
// sync.WaitGroup fan-out, errgroup or conc when the goal is to use every
// core on CPU-bound work, and, with the Blocking option, a bounded fan-out
// for bodies that block. This package holds no code; the module's parts
// are:
//
//   - package par (github.com/parloop/parloop/par): the verbs For,
//     ForRange, Map, ForErr, MapErr, Reduce, ReduceRange and Fold for loops
//     and reductions, ForOf and ReduceRangeOf for recursive walks, Invoke,
//     Join, Both, BothOf and JoinOf for forks, Scope and ScopeErr for tasks
//     that spawn tasks; the options
//     On, Grain, Blocking, Deterministic, Track (with Progress) and
//     Weighted; Pool and its Stats; PanicError; Machine and HostMachine,
//     the CPU topology a pool places its workers on. Start with its package
//     documentation, which says which verb to use when and what every call
//     guarantees.
//   - package iter (github.com/parloop/parloop/iter): parallel pipelines
//     over slices, ranges, iterators, channels and lines: sources, stages
//     (Map, Filter, FlatMap and their error forms) and terminals (ForEach,
//     Collect, Reduce, Fold, Count, Sum, ...), on the same pool.
//   - package pslices (github.com/parloop/parloop/pslices): parallel
//     drop-ins for the slices package: Sort, SortFunc, SortStableFunc,
//     Index, Contains, Equal, Min, Max, their Func forms, and prefix sums
//     (Scan, ScanExclusive) with an order-keeping DeleteFunc built on them.
//   - cmd/parvet, a module of its own: an analyzer that reports racy writes
//     in parallel bodies and pipeline stages and rewrites WaitGroup and
//     errgroup fan-out into par verbs and scopes (cmd/parvet/README.md); and
//     cmd/parloop-trace, which reads a runtime/trace file and shows how
//     each call spread over the workers.
//   - examples/: tfidf (the main example: indexing a source tree and
//     ranking files for a query), mandelbrot (an irregular loop),
//     quicksort (recursive Join), pgrep and stream (pipelines), dirwalk and
//     graphsearch (tasks that spawn tasks, with Scope), and topology (prints
//     a machine and where a pool's workers run on it).
//   - bench/, a module of its own: the benchmarks against the peers
//     (errgroup, conc, ants, pond, rill, sorty, hand-written fan-out), the
//     report that generates bench/RESULTS.md, and bench/ANALYSIS.md.
//
// README.md is the user's overview; docs/DESIGN.md describes how the
// scheduler is built, for contributors.
package parloop
