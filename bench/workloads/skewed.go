package workloads

import (
	"math"
	"math/rand/v2"
	"sync"
)

// Size of the skewed workload.
const (
	SkewedN     = 10_000
	SkewedAlpha = 1.2  // Pareto shape: heavy tail, finite mean, infinite variance
	SkewedMin   = 2500 // Pareto scale: the cheapest item, in rounds of mixing
)

// Skewed is n items whose costs follow a Pareto distribution, like documents
// of very different sizes: item i runs Cost[i] rounds of a 64-bit mix. The
// most expensive items cost thousands of times the cheapest.
type Skewed struct {
	Cost []int
	Out  []uint64

	refOnce sync.Once
	ref     []uint64
}

// NewSkewed draws n Pareto(alpha, xmin) costs from a fixed seed.
func NewSkewed(n int, alpha float64, xmin int) *Skewed {
	r := rand.New(rand.NewPCG(42, 1))
	s := &Skewed{Cost: make([]int, n), Out: make([]uint64, n)}
	for i := range s.Cost {
		u := 1 - r.Float64() // (0, 1]
		s.Cost[i] = int(float64(xmin) / math.Pow(u, 1/alpha))
	}
	return s
}

// Item computes item i.
func (s *Skewed) Item(i int) { s.Out[i] = spin(uint64(i), s.Cost[i]) }

// Items computes items [lo, hi).
func (s *Skewed) Items(lo, hi int) {
	for i := lo; i < hi; i++ {
		s.Out[i] = spin(uint64(i), s.Cost[i])
	}
}

// Plain computes every item serially.
func (s *Skewed) Plain() { s.Items(0, len(s.Cost)) }

// Reset clears the output.
func (s *Skewed) Reset() { clear(s.Out) }

// Verify compares the output with a serial reference computed once.
func (s *Skewed) Verify() error {
	s.refOnce.Do(func() {
		s.ref = make([]uint64, len(s.Cost))
		for i, c := range s.Cost {
			s.ref[i] = spin(uint64(i), c)
		}
	})
	for i, v := range s.Out {
		if v != s.ref[i] {
			return mismatch("skewed", i, v, s.ref[i])
		}
	}
	return nil
}

// Loop exposes s as a Loop over items.
func (s *Skewed) Loop() *Loop {
	return &Loop{Name: "skewed", N: len(s.Cost), Plain: s.Plain, Elem: s.Item, Range: s.Items, Reset: s.Reset, Verify: s.Verify}
}

// TotalCost is the sum of the costs; MaxCost the largest.
func (s *Skewed) TotalCost() (total, max int) {
	for _, c := range s.Cost {
		total += c
		if c > max {
			max = c
		}
	}
	return total, max
}

// spin runs rounds of xorshift-multiply from seed: a serial dependency chain
// that the compiler cannot shorten.
func spin(seed uint64, rounds int) uint64 {
	x := seed*0x9e3779b97f4a7c15 + 1
	for r := 0; r < rounds; r++ {
		x ^= x >> 29
		x *= 0xbf58476d1ce4e5b9
	}
	return x
}
