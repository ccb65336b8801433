// Package parloop is parallel loops and fork-join for Go, on a
// work-stealing runtime: what to reach for instead of hand-written
// sync.WaitGroup fan-out, errgroup or conc when the goal is to use every
// core on CPU-bound work, and, with the Blocking option, a bounded fan-out
// for bodies that block. This package holds no code; the module's parts
// are:
//
//   - package par (github.com/parloop/parloop/par): the API. The verbs
//     For, ForRange, Map, Reduce, ReduceRange, ForErr, MapErr, Invoke,
//     Join, Both and BothOf; the options On, Grain, Blocking and
//     Deterministic; Pool, its Stats, and Machine, the CPU topology the
//     pool places its workers on. Start with its package documentation,
//     which says which verb to use when and what every call guarantees.
//   - package par/capture: opens a captured machine (a directory or tar
//     archive of a machine's /sys and /proc files) for par.ReadMachine;
//     kept out of par so that importing par links no archive readers.
//   - cmd/parvet, a module of its own: an analyzer that reports racy writes
//     in parallel bodies and rewrites WaitGroup and errgroup fan-out loops
//     into par verbs (cmd/parvet/README.md).
//   - examples/: mandelbrot (an irregular loop, with its speedup),
//     quicksort (recursive Join) and topology (prints a machine and the
//     pool's placement on it, for this machine or a captured one).
//   - bench/, a module of its own: the benchmarks against the peers
//     (errgroup, conc, ants, pond, hand-written fan-out), the report that
//     generates bench/RESULTS.md, and the analysis in bench/ANALYSIS.md.
//
// README.md is the user's overview; docs/DESIGN.md describes how the
// scheduler is built, for contributors.
package parloop
