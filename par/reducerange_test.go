package par_test

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/parloop/parloop/par"
)

// Catches: ReduceRange pieces that overlap, leave gaps or are combined out
// of index order (string concatenation is associative, not commutative),
// identity applied more than once or on the wrong side, and n <= 0 not
// returning identity. Its longest range is 50,000 (10,000 under the race
// detector without -long).
func TestReduceRangeOrder(t *testing.T) {
	big := 50_000
	if raceEnabled && !*long {
		big = 10_000
	}
	for _, n := range []int{0, 1, 2, 7, 1000, big} {
		for _, opts := range [][]par.Option{nil, {par.Grain(1)}, {par.Deterministic()}} {
			got := par.ReduceRange(n, "x", func(lo, hi int) string {
				var b strings.Builder
				for i := lo; i < hi; i++ {
					b.WriteString(strconv.Itoa(i % 10))
				}
				return b.String()
			}, func(a, b string) string { return a + b }, opts...)
			var want strings.Builder
			want.WriteString("x")
			for i := 0; i < n; i++ {
				want.WriteString(strconv.Itoa(i % 10))
			}
			if got != want.String() {
				t.Fatalf("n=%d opts=%v: got %d bytes, want %d (or out of order)", n, opts, len(got), want.Len())
			}
		}
	}
}

// Catches: a Deterministic ReduceRange whose grouping depends on the pool
// size or the run (float sums that differ in the last bits).
func TestReduceRangeDeterministic(t *testing.T) {
	const n = 1 << 18
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = 1 / float64(i+1) * math.Pow(-1, float64(i%3))
	}
	sum := func(p *par.Pool) float64 {
		return par.ReduceRange(n, 0.0, func(lo, hi int) float64 {
			s := 0.0
			for _, x := range xs[lo:hi] {
				s += x
			}
			return s
		}, func(a, b float64) float64 { return a + b }, par.Deterministic(), par.On(p))
	}
	var first float64
	for i, w := range []int{1, 2, 3, 1, 2, 3} {
		p := par.NewPool(par.Workers(w))
		got := sum(p)
		p.Close()
		if i == 0 {
			first = got
		} else if math.Float64bits(got) != math.Float64bits(first) {
			t.Fatalf("Workers(%d): %v, first run %v: not bitwise reproducible", w, got, first)
		}
	}
}

// Catches: a panic in leaf or combine that escapes as a bare value or
// hangs the call.
func TestReduceRangePanics(t *testing.T) {
	boom := errors.New("boom")
	for _, opts := range [][]par.Option{nil, {par.Deterministic()}} {
		for _, where := range []string{"leaf", "combine"} {
			func() {
				defer func() {
					var pe *par.PanicError
					if err, ok := recover().(error); !ok || !errors.As(err, &pe) || !errors.Is(err, boom) {
						t.Errorf("%s %v: recovered %v; want a *PanicError wrapping boom", where, opts, err)
					}
				}()
				par.ReduceRange(10_000, 0, func(lo, hi int) int {
					if where == "leaf" && lo <= 5000 && 5000 < hi {
						panic(boom)
					}
					return hi - lo
				}, func(a, b int) int {
					if where == "combine" {
						panic(boom)
					}
					return a + b
				}, opts...)
			}()
		}
	}
}

func ExampleReduceRange() {
	xs := make([]float64, 1_000_000)
	for i := range xs {
		xs[i] = 0.5
	}
	sum := par.ReduceRange(len(xs), 0.0, func(lo, hi int) float64 {
		s := 0.0
		for _, x := range xs[lo:hi] { // a tight loop: no call per element
			s += x
		}
		return s
	}, func(a, b float64) float64 { return a + b })
	fmt.Println(sum)
	// Output: 500000
}
