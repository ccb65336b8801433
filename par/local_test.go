package par_test

import (
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/parloop/parloop/par"
)

// Catches: Fold making an accumulator per piece instead of per worker,
// sharing one between two pieces at once (a nested call's helping re-enters
// the same slot), losing or repeating an index, or merging wrongly.
func TestFoldOneAccumulatorPerWorker(t *testing.T) {
	for _, pc := range poolCases(t) {
		workers := 8 // an upper bound for the default pool's cases below
		if pc.pool != nil {
			workers = pc.pool.Workers()
		} else {
			workers = par.Default().Workers()
		}
		for _, n := range []int{0, 1, 7, 1000, bigN()} {
			var made atomic.Int32
			type acc struct {
				sum   int
				count int
				inUse atomic.Bool
			}
			var clash atomic.Int32
			got := par.Fold(n,
				func() *acc { made.Add(1); return &acc{} },
				func(a **acc, lo, hi int) {
					if !(*a).inUse.CompareAndSwap(false, true) {
						clash.Add(1)
					}
					for i := lo; i < hi; i++ {
						(*a).sum += i
						(*a).count++
					}
					(*a).inUse.Store(false)
				},
				func(x, y *acc) *acc { x.sum += y.sum; x.count += y.count; return x },
				pc.opts...)
			what := fmt.Sprintf("Fold(%d) %s", n, pc.name)
			if got.count != max(n, 0) || got.sum != n*(n-1)/2 {
				t.Errorf("%s: count %d sum %d, want %d and %d", what, got.count, got.sum, n, n*(n-1)/2)
			}
			if clash.Load() != 0 {
				t.Errorf("%s: two pieces used one accumulator at once", what)
			}
			if pc.pool == nil {
				workers = max(workers, par.Default().Workers()) // the default pool follows GOMAXPROCS, lazily, maybe mid-call
			}
			if m := int(made.Load()); m > workers+1 {
				t.Errorf("%s: %d accumulators made on parallelism %d; want at most one per participant", what, m, workers)
			}
		}
	}
}

// Catches: a body that makes a nested call, and while waiting runs another
// piece of the same Fold on its slot, finding its own accumulator changed
// under it.
func TestFoldReentrantPieces(t *testing.T) {
	p := newPool(t, par.Workers(4))
	const n = 2000
	type acc struct {
		items []int
		busy  bool
	}
	var broken atomic.Int32
	got := par.Fold(n,
		func() *acc { return &acc{} },
		func(a **acc, lo, hi int) {
			if (*a).busy {
				broken.Add(1)
			}
			(*a).busy = true
			before := len((*a).items)
			par.For(64, func(int) { spin(200) }) // helping may run other pieces of this Fold here
			if len((*a).items) != before {
				broken.Add(1)
			}
			for i := lo; i < hi; i++ {
				(*a).items = append((*a).items, i)
			}
			(*a).busy = false
		},
		func(x, y *acc) *acc { x.items = append(x.items, y.items...); return x },
		par.On(p))
	if broken.Load() != 0 {
		t.Errorf("%d pieces saw their accumulator in use or changed by a re-entered piece", broken.Load())
	}
	seen := make([]int, n)
	for _, i := range got.items {
		seen[i]++
	}
	for i, c := range seen {
		if c != 1 {
			t.Fatalf("index %d folded %d times", i, c)
		}
	}
}
