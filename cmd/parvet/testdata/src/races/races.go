package races

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"

	"github.com/parloop/parloop/par"
)

type stats struct {
	n     int
	items []int
}

func positives(ctx context.Context, xs []int, out []int, m map[int]int, p *int, st stats, ps *stats) {
	total := 0
	par.For(len(xs), func(i int) {
		total += xs[i] // want `par.For body updates captured variable total with \+= \(data race\); accumulate per index or per piece and combine with par.Reduce or par.ReduceRange, or use sync/atomic`
	})

	count := 0
	par.For(len(xs), func(i int) {
		count++ // want `par.For body count\+\+ updates captured variable count`
	})

	var last int
	par.For(len(xs), func(i int) {
		last = xs[i] // want `par.For body assigns captured variable last \(data race\); write per-index results`
	})

	var found []int
	par.For(len(xs), func(i int) {
		if xs[i] > 0 {
			found = append(found, xs[i]) // want `par.For body appends to captured slice found \(data race\); build the slice with par.Map`
		}
	})

	par.For(len(xs), func(i int) {
		m[xs[i]] = i // want `par.For body writes captured map m \(data race\); maps are not safe for concurrent writes`
	})

	par.For(len(xs), func(i int) {
		delete(m, i) // want `par.For body deletes from captured map m`
	})

	par.For(len(xs), func(i int) {
		*p += xs[i] // want `par.For body writes through captured pointer p`
	})

	par.For(len(xs), func(i int) {
		st.n = i // want `par.For body writes st.n, a field of captured st`
	})

	par.For(len(xs), func(i int) {
		ps.items = append(ps.items, i) // want `par.For body writes ps.items, a field of captured ps`
	})

	par.For(len(xs), func(i int) {
		out[0] = xs[i] // want `par.For body writes out\[0\] in captured out at a position that does not depend on the body's index i`
	})

	par.ForRange(len(xs), func(lo, hi int) {
		for j, v := range xs[lo:hi] {
			out[j] = v // want `par.ForRange body writes out\[j\] in captured out at a position that does not depend on the body's index lo, hi \(data race\); write only the elements lo..hi-1`
		}
	})

	var firstErr error
	_ = par.ForErr(ctx, len(xs), func(ctx context.Context, i int) error {
		if xs[i] < 0 {
			firstErr = errors.New("negative") // want `par.ForErr body assigns captured variable firstErr \(data race\); return the error from the body instead: par.ForErr returns the first one`
		}
		return nil
	})
	_, _ = last, firstErr

	sum := 0
	_ = par.Map(xs, func(x int) int {
		sum += x // want `par.Map body updates captured variable sum`
		return x * 2
	})

	calls := 0
	_ = par.Reduce(xs, 0, func(a, b int) int {
		calls++ // want `par.Reduce body calls\+\+ updates captured variable calls`
		return a + b
	})

	leaves := 0
	_ = par.ReduceRange(len(xs), 0, func(lo, hi int) int {
		leaves++ // want `par.ReduceRange body leaves\+\+`
		return hi - lo
	}, func(a, b int) int { return a + b })

	body := func(i int) {
		total -= xs[i] // want `par.For body updates captured variable total with -=`
	}
	par.For(len(xs), body)

	shared := 0
	par.Join(func() {
		shared = 1 // want `function passed to par.Join assigns captured variable shared \(data race\); the functions run at the same time and another one uses shared`
	}, func() {
		_ = shared
	})

	par.Invoke([]func(){
		func() { count = 2 }, // want `function passed to par.Invoke assigns captured variable count`
		func() { count = 3 }, // want `function passed to par.Invoke assigns captured variable count`
	})

	var mu sync.Mutex
	par.For(len(xs), func(i int) {
		mu.Lock()
		mu.Unlock()
		total += xs[i] // want `updates captured variable total`
	})
}

func negatives(ctx context.Context, xs []int, out []int, outs [][]int) {
	par.For(len(xs), func(i int) {
		out[i] = xs[i] * 2
		out[i]++
	})

	par.For(len(xs), func(i int) {
		j := i * 2
		if j < len(out) {
			out[j] = 1
		}
		outs[i] = append(outs[i], xs[i])
		local := 0
		local += xs[i]
		var acc []int
		acc = append(acc, local)
		_ = acc
	})

	par.ForRange(len(xs), func(lo, hi int) {
		for j := lo; j < hi; j++ {
			out[j] = xs[j]
		}
		copy(out[lo:hi], xs[lo:hi])
	})

	par.ForRange(len(xs), func(lo, hi int) {
		for j, v := range xs[lo:hi] {
			out[lo+j] = v
		}
	})

	_ = par.ForErr(ctx, len(xs), func(ctx context.Context, i int) error {
		out[i] = xs[i]
		return nil
	})

	var mu sync.Mutex
	total := 0
	var all []int
	m := map[int]int{}
	par.For(len(xs), func(i int) {
		mu.Lock()
		total += xs[i]
		all = append(all, xs[i])
		mu.Unlock()
	})
	par.For(len(xs), func(i int) {
		mu.Lock()
		defer mu.Unlock()
		m[i] = xs[i]
	})

	par.For(len(xs), func(i int) {
		mu.Lock()
		if total < 0 {
			mu.Unlock()
			return
		}
		total += xs[i]
		mu.Unlock()
	})

	var rw sync.RWMutex
	par.For(len(xs), func(i int) {
		rw.Lock()
		total++
		rw.Unlock()
	})

	var n atomic.Int64
	var n2 int64
	par.For(len(xs), func(i int) {
		n.Add(int64(xs[i]))
		atomic.AddInt64(&n2, 1)
	})

	var once sync.Once
	var init int
	par.For(len(xs), func(i int) {
		once.Do(func() { init = 1 })
	})

	sum := par.Reduce(xs, 0, func(a, b int) int { return a + b })
	_ = sum

	// Join's functions write different variables: no race.
	var a, b int
	par.Join(func() { a = 1 }, func() { b = 2 })
	x, y := par.Both(func() int { return a }, func() int { return b })
	_, _ = x, y
	_, _, _ = init, total, all
}

// The first index designated by a predicate of the index alone: one body
// writes it. Not reported; the same write under a condition on the data is.
func designatedIndex(xs []int) (int, int) {
	first, big := -1, -1
	par.For(len(xs), func(i int) {
		if i == 0 {
			first = i
		}
		if xs[i] > 10 {
			big = i // want `par.For body assigns captured variable big`
		}
	})
	return first, big
}
