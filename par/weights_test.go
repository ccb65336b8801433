package par

import (
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"testing"
)

// Catches: a weighted split that halves the count instead of the weight,
// cuts an empty half, or a grain that overruns its weight or stops short.
func TestWeightedMidpointAndGrain(t *testing.T) {
	mk := func(w ...int64) *core { return &core{prefix: *Weighted(w).weights} }
	cases := []struct {
		w       []int64
		lo, hi  int
		wantMid int
	}{
		{[]int64{1000, 1, 1, 1, 1, 1, 1, 1}, 0, 8, 1}, // the heavy item alone
		{[]int64{1, 1, 1, 1, 1, 1, 1, 1000}, 0, 8, 7},
		{[]int64{1, 1, 1, 1}, 0, 4, 2},
		{[]int64{5, 5}, 0, 2, 1},
		{[]int64{0, 0, 0, 0, 0}, 0, 5, 2},                  // no weight: at least one index each side
		{[]int64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 0, 10, 7}, // 28 | 27
		{[]int64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 5, 10, 8}, // 21 | 19
	}
	for _, c := range cases {
		got := mk(c.w...).midpoint(c.lo, c.hi)
		if got != c.wantMid {
			t.Errorf("midpoint(%v [%d,%d)) = %d, want %d", c.w, c.lo, c.hi, got, c.wantMid)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		n := 2 + rng.IntN(50)
		w := make([]int64, n)
		for i := range w {
			w[i] = rng.Int64N(100)
			if rng.IntN(4) == 0 {
				w[i] = 0
			}
		}
		c := mk(w...)
		lo := rng.IntN(n - 1)
		hi := lo + 2 + rng.IntN(n-lo-1)
		m := c.midpoint(lo, hi)
		if m <= lo || m >= hi {
			t.Fatalf("midpoint(%v [%d,%d)) = %d: an empty half", w, lo, hi, m)
		}
		// No other cut is nearer half the weight.
		total := c.units(int64(lo), int64(hi))
		best := int64(1 << 62)
		for k := lo + 1; k < hi; k++ {
			best = min(best, abs(2*c.units(int64(lo), int64(k))-total))
		}
		if d := abs(2*c.units(int64(lo), int64(m)) - total); d != best {
			t.Fatalf("midpoint(%v [%d,%d)) = %d is %d off half, the best cut %d", w, lo, hi, m, d, best)
		}
		g := 1 + rng.Int64N(150)
		pc := pacer{grain: g, lastItems: int64(n)} // the cap on items out of the way; checked below
		end := c.grainEnd(&pc, int64(lo), int64(hi))
		if end <= int64(lo) || end > int64(hi) {
			t.Fatalf("grainEnd out of range: %d", end)
		}
		if end < int64(hi) && c.units(int64(lo), end) < g {
			t.Fatalf("grainEnd(%v, %d, %d, %d) = %d stops short", w, lo, hi, g, end)
		}
		if end > int64(lo)+1 && c.units(int64(lo), end-1) >= g {
			t.Fatalf("grainEnd(%v, %d, %d, %d) = %d overruns", w, lo, hi, g, end)
		}
	}
}

// Catches: a weighted grain that covers more than twice the items of its
// piece's previous grain (one item for the first), so that weights that
// understate costs merge many expensive items into one grain nobody can
// take.
func TestWeightedGrainDoublesAtMost(t *testing.T) {
	c := &core{prefix: *Weighted(make([]int64, 100)).weights} // all weight 0: the weight alone would take everything
	pc := pacer{grain: 1 << 40}
	cur, want := int64(0), int64(1)
	for cur < 100 {
		end := c.grainEnd(&pc, cur, 100)
		if end-cur != min(want, 100-cur) {
			t.Fatalf("grain at %d covers %d items, want %d", cur, end-cur, min(want, 100-cur))
		}
		cur, want = end, 2*want
	}
}

func abs(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// Catches: weighted calls that drop or repeat an index, and misuse that
// does not panic at the call.
func TestWeightedCalls(t *testing.T) {
	p := NewPool(Workers(4))
	defer p.Close()
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{1, 2, 7, 100, 5000} {
		w := make([]int64, n)
		for i := range w {
			w[i] = rng.Int64N(1000)
			if i%97 == 0 {
				w[i] = 1_000_000
			}
		}
		opt := Weighted(w)
		counts := make([]atomic.Int32, n)
		For(n, func(i int) { counts[i].Add(1); spinW(int(w[i] / 1000)) }, On(p), opt)
		for i := range counts {
			if counts[i].Load() != 1 {
				t.Fatalf("weighted For(%d): index %d ran %d times", n, i, counts[i].Load())
			}
		}
		sum := ReduceRange(n, 0, func(lo, hi int) int { return hi - lo }, func(a, b int) int { return a + b }, On(p), opt)
		folded := Fold(n, func() int { return 0 }, func(a *int, lo, hi int) { *a += hi - lo }, func(a, b int) int { return a + b }, On(p), opt)
		if sum != n || folded != n {
			t.Errorf("weighted ReduceRange/Fold(%d) covered %d/%d", n, sum, folded)
		}
	}
	for _, c := range []struct {
		name string
		f    func()
	}{
		{"negative", func() { Weighted([]int64{1, -1}) }},
		{"length", func() { For(3, func(int) {}, Weighted([]int64{1, 2})) }},
		{"Join", func() { Join(func() {}, func() {}, Weighted(nil)) }},
		{"Blocking", func() { For(2, func(int) {}, Weighted([]int64{1, 2}), Blocking(2)) }},
		{"Deterministic", func() {
			ReduceRange(2, 0, func(lo, hi int) int { return 0 }, func(a, b int) int { return a }, Weighted([]int64{1, 2}), Deterministic())
		}},
	} {
		func() {
			defer func() {
				if r := recover(); r == nil {
					t.Errorf("Weighted misuse %q did not panic", c.name)
				} else if s := fmt.Sprint(r); len(s) < 5 || s[:5] != "par: " {
					t.Errorf("Weighted misuse %q panicked with %q", c.name, s)
				}
			}()
			c.f()
		}()
	}
}

//go:noinline
func spinW(k int) {
	x := uint64(k) | 1
	for range k {
		x ^= x << 13
		x ^= x >> 7
	}
	if x == 0 {
		labelSink.Add(1)
	}
}
