package workloads

import "math"

// Sizes of the loop workloads.
const (
	TinyN        = 1000       // tiny: per-call overhead
	UniformN     = 10_000_000 // uniform: a[i] = sqrt(i)
	CallersN     = 64         // many callers: goroutines calling a loop at once
	CallersLoopN = 10_000     // many callers: iterations of each caller's loop
)

// Loop is a loop-shaped workload: N iterations writing an output that Verify
// checks. Plain is the serial loop with the body written inline (no func
// value); Elem is one iteration; Range runs [lo, hi) with the body inlined,
// which is what a hand-written chunked loop does.
type Loop struct {
	Name   string
	N      int
	Plain  func()
	Elem   func(i int)
	Range  func(lo, hi int)
	Reset  func()
	Verify func() error
}

// Tiny is a[i] = 2*i over n ints. Plain and Range run the same loop,
// tinyFill, so that they time the same machine code: as two separate
// loops, each placed by the linker wherever the rest of the binary put it,
// one of them took 1.7 ns an index in some builds and 0.7 ns in others (an
// 18-byte loop across a 64-byte boundary), enough to move the tiny loop's
// ratios by 1.6x between builds of the same code.
func Tiny(n int) *Loop {
	a := make([]int, n)
	return &Loop{
		Name:  "tiny",
		N:     n,
		Plain: func() { tinyFill(a, 0) },
		Elem:  func(i int) { a[i] = 2 * i },
		Range: func(lo, hi int) { tinyFill(a[lo:hi], lo) },
		Reset: func() { clear(a) },
		Verify: func() error {
			for i, v := range a {
				if v != 2*i {
					return mismatch("tiny", i, v, 2*i)
				}
			}
			return nil
		},
	}
}

// tinyFill sets s[j] = 2*(base+j): a subslice, so that the loop has no
// bounds check per index (indexing a with i from lo to hi costs a check per
// index and ran 1.7 to 2.6x the time).
//
//go:noinline
func tinyFill(s []int, base int) {
	for j := range s {
		s[j] = 2 * (base + j)
	}
}

// Uniform is a[i] = math.Sqrt(float64(i)) over n float64.
func Uniform(n int) *Loop {
	return UniformInto(make([]float64, n))
}

// UniformInto is Uniform over a caller-owned slice (the benchmarks reuse one
// 80 MB slice instead of allocating it for every run).
func UniformInto(a []float64) *Loop {
	return &Loop{
		Name: "uniform",
		N:    len(a),
		Plain: func() {
			for i := range a {
				a[i] = math.Sqrt(float64(i))
			}
		},
		Elem: func(i int) { a[i] = math.Sqrt(float64(i)) },
		Range: func(lo, hi int) { // on a subslice, as Tiny's
			s := a[lo:hi]
			for j := range s {
				s[j] = math.Sqrt(float64(lo + j))
			}
		},
		Reset: func() { clear(a) },
		Verify: func() error {
			for i, v := range a {
				if w := math.Sqrt(float64(i)); v != w {
					return mismatch("uniform", i, v, w)
				}
			}
			return nil
		},
	}
}

// Callers is the many-callers workload: callers loops of n iterations each,
// every one a uniform loop over its own slice, meant to run at the same time.
func Callers(callers, n int) []*Loop {
	ls := make([]*Loop, callers)
	for c := range ls {
		ls[c] = Uniform(n)
		ls[c].Name = "callers"
	}
	return ls
}
