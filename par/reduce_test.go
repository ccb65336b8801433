package par_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/parloop/parloop/par"
)

// span is an element of a free monoid that checks order: combining [a,b)
// with [c,d) is only right when b == c. A Reduce that reorders, repeats or
// drops an element, or uses the identity anywhere but at the far left,
// produces a bad span. It costs O(1) per combine, unlike string
// concatenation, so it can check large inputs.
type span struct {
	lo, hi int
	bad    bool
	empty  bool // the true identity
}

func combineSpan(a, b span) span {
	switch {
	case a.empty:
		return b
	case b.empty:
		return a
	}
	return span{lo: a.lo, hi: b.hi, bad: a.bad || b.bad || a.hi != b.lo}
}

func spans(n int) []span {
	in := make([]span, n)
	for i := range in {
		in[i] = span{lo: i, hi: i + 1}
	}
	return in
}

// reduceOpts are the ways Reduce is called: plain, Deterministic, and with
// grains that force many small pieces.
var reduceOpts = []struct {
	name string
	opts []par.Option
}{
	{"plain", nil},
	{"grain=1", []par.Option{par.Grain(1)}},
	{"deterministic", []par.Option{par.Deterministic()}},
	{"deterministic,grain=3", []par.Option{par.Deterministic(), par.Grain(3)}},
}

// Catches: Reduce combining pieces out of index order (treating combine as
// commutative), dropping or repeating a piece, or folding the identity into
// every piece instead of once at the left.
func TestReduceOrderAndIdentity(t *testing.T) {
	t.Parallel()
	for _, pc := range poolCases(t) {
		for _, ro := range reduceOpts {
			for _, n := range sizes() {
				what := fmt.Sprintf("Reduce(spans %d) %s %s", n, pc.name, ro.name)
				in := spans(n)
				var got span
				noHang(t, what, func() { got = par.Reduce(in, span{empty: true}, combineSpan, pc.with(ro.opts...)...) })
				want := span{lo: 0, hi: n}
				if n == 0 {
					want = span{empty: true}
				}
				if got != want {
					t.Errorf("%s (true identity) = %+v; want %+v", what, got, want)
				}
				// An identity that is not one: {-1,0} must appear exactly
				// once, at the left, as in the sequential fold.
				noHang(t, what, func() { got = par.Reduce(in, span{lo: -1, hi: 0}, combineSpan, pc.with(ro.opts...)...) })
				if want := (span{lo: -1, hi: n}); got != want {
					t.Errorf("%s (identity {-1,0}) = %+v; want %+v", what, got, want)
				}
			}
		}
	}
}

// Catches: the same bugs on the example the API names, string concatenation,
// with an identity "x" that is not a true identity.
func TestReduceStringConcat(t *testing.T) {
	t.Parallel()
	for _, pc := range poolCases(t) {
		for _, ro := range reduceOpts {
			for _, n := range []int{0, 1, 2, 3, 7, 100, 3000} {
				in := make([]string, n)
				var want strings.Builder
				want.WriteString("x")
				for i := range in {
					in[i] = string(rune('a' + i%26))
					want.WriteString(in[i])
				}
				var got string
				noHang(t, "Reduce(strings)", func() {
					got = par.Reduce(in, "x", func(a, b string) string { return a + b }, pc.with(ro.opts...)...)
				})
				if got != want.String() {
					t.Errorf("Reduce(%d strings, identity \"x\") %s %s = %.60q...; want %.60q...", n, pc.name, ro.name, got, want.String())
				}
			}
		}
	}
}

type mat2 [4]uint64 // row-major 2x2 matrix over the integers mod 2^64

func mul(a, b mat2) mat2 {
	return mat2{
		a[0]*b[0] + a[1]*b[2], a[0]*b[1] + a[1]*b[3],
		a[2]*b[0] + a[3]*b[2], a[2]*b[1] + a[3]*b[3],
	}
}

// Catches: reordered combines on a non-commutative product (matrix products
// are exactly associative with wrapping arithmetic, so any order other than
// the left fold's gives a different matrix).
func TestReduceMatrixProduct(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	cases := poolCases(t)
	for _, n := range sizes() {
		in := make([]mat2, n)
		for i := range in {
			in[i] = mat2{rng.Uint64(), rng.Uint64(), rng.Uint64(), rng.Uint64()}
		}
		identity := mat2{3, 1, 4, 1} // not the identity matrix
		want := identity
		for _, m := range in {
			want = mul(want, m)
		}
		for _, pc := range cases {
			for _, ro := range reduceOpts {
				var got mat2
				noHang(t, "Reduce(matrices)", func() { got = par.Reduce(in, identity, mul, pc.with(ro.opts...)...) })
				if got != want {
					t.Errorf("Reduce(%d matrices) %s %s = %v; want the left fold %v", n, pc.name, ro.name, got, want)
				}
			}
		}
	}
}

// floatInput returns values of mixed sign spread over many orders of
// magnitude, so that a float sum depends on the order of the additions.
func floatInput(n int, seed uint64) []float64 {
	rng := rand.New(rand.NewPCG(seed, 99))
	in := make([]float64, n)
	for i := range in {
		in[i] = (rng.Float64() - 0.4) * math.Pow(10, float64(rng.IntN(17)-8))
	}
	return in
}

func addF(a, b float64) float64 { return a + b }

// Catches: a Deterministic Reduce whose split tree depends on the pool size,
// the grain hint, or on which worker stole what (float sums then differ in
// their last bits between runs), as rayon#663 reports for Rayon.
func TestDeterministicFloatSumIsBitwiseReproducible(t *testing.T) {
	t.Parallel()
	pools := []*par.Pool{nil}
	for _, w := range []int{1, 2, 3} {
		pools = append(pools, newPool(t, par.Workers(w)))
	}
	runs := 8
	ns := []int{2, 3, 7, 1000, 100_003, bigN()}
	if !*long {
		runs = 3
		ns = []int{2, 3, 7, 1000, 100_003}
	}
	for _, n := range ns {
		in := floatInput(n, uint64(n))
		if n >= 1000 {
			// The test is only sharp if the order of the additions matters.
			fwd, rev := 0.0, 0.0
			for i := range in {
				fwd += in[i]
				rev += in[n-1-i]
			}
			if fwd == rev {
				t.Fatalf("n=%d: forward and reverse sums agree; the input does not exercise rounding", n)
			}
		}
		var first float64
		firstSet := false
		for pi, p := range pools {
			for _, grain := range []int{0, 1, 64} {
				for r := 0; r < runs; r++ {
					opts := []par.Option{par.Deterministic()}
					if p != nil {
						opts = append(opts, par.On(p))
					}
					if grain > 0 {
						opts = append(opts, par.Grain(grain))
					}
					var got float64
					noHang(t, "Reduce(Deterministic)", func() { got = par.Reduce(in, 0, addF, opts...) })
					if !firstSet {
						first, firstSet = got, true
						continue
					}
					if math.Float64bits(got) != math.Float64bits(first) {
						t.Fatalf("n=%d pool #%d grain=%d run %d: Deterministic sum %x (%v); first run gave %x (%v)",
							n, pi, grain, r, math.Float64bits(got), got, math.Float64bits(first), first)
					}
				}
			}
		}
	}
}

// Catches: Reduce losing or duplicating a piece on big integer sums (the
// cheap case where pieces are many and the combine is trivial), and combine
// called on results of a different Reduce running at the same time.
func TestReduceIntSum(t *testing.T) {
	t.Parallel()
	for _, pc := range poolCases(t) {
		for _, n := range sizes() {
			in := make([]int64, n)
			var want int64
			for i := range in {
				in[i] = int64(i)*int64(i) + 1
				want += in[i]
			}
			for _, ro := range reduceOpts {
				var got int64
				noHang(t, "Reduce(ints)", func() {
					got = par.Reduce(in, 0, func(a, b int64) int64 { return a + b }, pc.with(ro.opts...)...)
				})
				if got != want {
					t.Errorf("Reduce(%d ints) %s %s = %d; want %d", n, pc.name, ro.name, got, want)
				}
			}
		}
	}
}
