package par_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync/atomic"
	"testing"

	"github.com/parloop/parloop/par"
)

// FuzzVerbs drives the loop length, the grain hint, the pool size, a
// failing index and the verb through every verb, and checks what each
// promises: every index exactly once (pieces tile [0, n) exactly), results
// in place, Reduce equal to the sequential fold, the first error returned.
// Lengths near math.MaxInt go through ReduceRange, whose leaf is O(1).
// Catches: overflowing range arithmetic, splits that drop or repeat an
// index, options taken wrongly, and results out of order.
func FuzzVerbs(f *testing.F) {
	for _, seed := range [][5]uint64{
		{0, 1, 1, 0, 0}, {1, 1, 2, 0, 1}, {2, 1, 2, 1, 2}, {7, 3, 4, 3, 3}, {1000, 1, 8, 500, 4},
		{2999, 64, 3, 2998, 5}, {8, 1, 8, 7, 6}, {33, 5, 2, 32, 7}, {math.MaxInt64, 1, 4, 0, 8},
		{math.MaxInt64 - 1, 7, 2, 0, 8}, {100, 1, 1, 99, 9},
	} {
		f.Add(seed[0], seed[1], seed[2], seed[3], seed[4])
	}
	pools := map[int]*par.Pool{}
	f.Cleanup(func() {
		for _, p := range pools {
			p.Close()
		}
	})
	f.Fuzz(func(t *testing.T, n64, grain64, workers64, fail64, verb64 uint64) {
		workers := int(1 + workers64%8)
		p := pools[workers]
		if p == nil {
			p = par.NewPool(par.Workers(workers))
			pools[workers] = p
		}
		grain := int(1 + grain64%64)
		opts := []par.Option{par.On(p), par.Grain(grain)}
		verb := verb64 % 10
		if verb == 8 { // huge ranges, O(1) per piece
			n := int(n64 % math.MaxInt64)
			var bad atomic.Bool
			got := par.ReduceRange(n, 0, func(lo, hi int) int {
				if lo < 0 || hi <= lo || hi > n {
					bad.Store(true)
				}
				return hi - lo
			}, func(a, b int) int { return a + b }, opts...)
			if bad.Load() || got != max(n, 0) {
				t.Fatalf("ReduceRange(%d) grain %d workers %d: covered %d, bad piece %v", n, grain, workers, got, bad.Load())
			}
			return
		}
		n := int(n64 % 3000)
		fail := int(fail64 % uint64(max(n, 1)))
		counts := make([]atomic.Int32, n)
		exactlyOnce := func(what string) {
			t.Helper()
			for i := range counts {
				if c := counts[i].Load(); c != 1 {
					t.Fatalf("%s n=%d grain=%d workers=%d: index %d ran %d times", what, n, grain, workers, i, c)
				}
			}
		}
		in := make([]int, n)
		for i := range in {
			in[i] = i
		}
		switch verb {
		case 0:
			par.For(n, func(i int) { counts[i].Add(1) }, opts...)
			exactlyOnce("For")
		case 1:
			par.ForRange(n, func(lo, hi int) {
				for i := lo; i < hi; i++ {
					counts[i].Add(1)
				}
			}, opts...)
			exactlyOnce("ForRange")
		case 2:
			out := par.Map(in, func(x int) int { counts[x].Add(1); return 3 * x }, opts...)
			exactlyOnce("Map")
			for i, v := range out {
				if v != 3*i {
					t.Fatalf("Map n=%d: out[%d] = %d", n, i, v)
				}
			}
		case 3:
			// Reduce with a non-commutative combine: the sequential fold
			// of [lo, hi) spans is the span [0, n).
			type span struct{ lo, hi int }
			spans := make([]span, n)
			for i := range spans {
				spans[i] = span{i, i + 1}
			}
			got := par.Reduce(spans, span{0, 0}, func(a, b span) span {
				if a.hi != b.lo {
					return span{-1, -1}
				}
				return span{a.lo, b.hi}
			}, opts...)
			if got != (span{0, n}) {
				t.Fatalf("Reduce n=%d grain=%d workers=%d = %v, want {0 %d}", n, grain, workers, got, n)
			}
		case 4:
			errBoom := errors.New("boom")
			err := par.ForErr(context.Background(), n, func(_ context.Context, i int) error {
				counts[i].Add(1)
				if i == fail {
					return fmt.Errorf("at %d: %w", i, errBoom)
				}
				return nil
			}, opts...)
			if n > 0 && !errors.Is(err, errBoom) {
				t.Fatalf("ForErr n=%d fail=%d: err %v", n, fail, err)
			}
			for i := range counts {
				if counts[i].Load() > 1 {
					t.Fatalf("ForErr: index %d ran twice", i)
				}
			}
			if n > 0 && counts[fail].Load() != 1 {
				t.Fatalf("ForErr: the failing index did not run once")
			}
		case 5:
			got := par.ReduceRange(n, 0, func(lo, hi int) int {
				s := 0
				for i := lo; i < hi; i++ {
					counts[i].Add(1)
					s += i
				}
				return s
			}, func(a, b int) int { return a + b }, append(opts, par.Deterministic())...)
			exactlyOnce("ReduceRange Deterministic")
			if got != n*(n-1)/2 {
				t.Fatalf("ReduceRange Deterministic n=%d = %d", n, got)
			}
		case 6:
			par.For(n, func(i int) { counts[i].Add(1) }, par.Blocking(1+grain%16))
			exactlyOnce("For Blocking")
		case 7:
			// Nested: each index runs a nested For over a few items, as
			// recursive walks do.
			k := 1 + grain%9
			inner := make([]atomic.Int32, n*k)
			par.For(n, func(i int) {
				counts[i].Add(1)
				par.For(k, func(j int) { inner[i*k+j].Add(1) })
			}, opts...)
			exactlyOnce("nested For")
			for i := range inner {
				if inner[i].Load() != 1 {
					t.Fatalf("nested For n=%d k=%d: inner %d ran %d times", n, k, i, inner[i].Load())
				}
			}
		case 9:
			fns := make([]func(), n%40)
			for i := range fns {
				fns[i] = func() { counts[i].Add(1) }
			}
			par.Invoke(fns, par.On(p))
			for i := range fns {
				if counts[i].Load() != 1 {
					t.Fatalf("Invoke(%d fns): fn %d ran %d times", len(fns), i, counts[i].Load())
				}
			}
		}
	})
}
