package par

import (
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"testing"
)

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
