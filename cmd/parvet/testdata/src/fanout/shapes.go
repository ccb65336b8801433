package fanout

import (
	"context"
	"sync"

	"golang.org/x/sync/errgroup"
)

// AddAll adds len(xs) before the loop, and counts with a three-clause loop.
func AddAll(xs []float64) { // want AddAll:"blocks: calls sync\\.WaitGroup\\.Wait"
	wg := &sync.WaitGroup{}
	wg.Add(len(xs))
	for k := 0; k < len(xs); k++ { // want `fan-out loop \(a goroutine per item and a WaitGroup\) can be par.For\(len\(xs\), ...\)`
		go func() {
			xs[k] *= 2
			wg.Done()
		}()
	}
	wg.Wait()
}

// WaitGroupGo uses Go 1.25's wg.Go over a range of an int.
func WaitGroupGo(n int, out []int) { // want WaitGroupGo:"blocks: calls sync\\.WaitGroup\\.Wait"
	var wg sync.WaitGroup
	for i := range n { // want `fan-out loop \(wg.Go per item\) can be par.For\(n, ...\)`
		wg.Go(func() {
			out[i] = i * i
		})
	}
	wg.Wait()
}

// UnderMutex appends results under a mutex: par.Fold gives each worker a
// slice of its own, and the mutex goes.
func UnderMutex(xs []int) []int { // want UnderMutex:"blocks: calls sync\\.WaitGroup\\.Wait"
	var (
		mu  sync.Mutex
		res []int
	)
	var wg sync.WaitGroup
	for _, x := range xs { // want `merges its results into res under mu: rewrite it as par.Fold\(len\(xs\), ...\), which gives each worker its own slice`
		wg.Add(1)
		go func(v int) {
			defer wg.Done()
			r := square(v)
			mu.Lock()
			res = append(res, r)
			mu.Unlock()
		}(x)
	}
	wg.Wait()
	return res
}

// Errgroup with a derived context, returned Wait.
func Errgroup(ctx context.Context, xs []int) error {
	g, gctx := errgroup.WithContext(ctx)
	for _, x := range xs { // want `fan-out loop \(errgroup.Go per item\) can be par.ForErr\(ctx, len\(xs\), ...\): the body does not block`
		g.Go(func() error {
			if gctx.Err() != nil {
				return gctx.Err()
			}
			return check(x)
		})
	}
	return g.Wait()
}

func check(x int) error { return nil }

// PlainGroup has no context and a SetLimit: the limit goes, the pool bounds
// the parallelism.
func PlainGroup(xs []int) error {
	var g errgroup.Group
	g.SetLimit(4)
	for i := range xs { // want `fan-out loop \(errgroup.Go per item with SetLimit\) can be par.ForErr\(ctx, len\(xs\), ...\): the body does not block; the goroutine limit is dropped`
		g.Go(func() error {
			return check(xs[i])
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	return nil
}

// Named keeps the goroutine's named result.
func Named(xs []int, out []int) error {
	var g errgroup.Group
	for i := range xs { // want `can be par.ForErr\(ctx, len\(xs\), ...\)`
		g.Go(func() (err error) {
			out[i], err = convert(xs[i])
			return err
		})
	}
	return g.Wait()
}

func convert(x int) (int, error) { return x, nil }

// UnusedParam passes an argument the goroutine does not use.
func UnusedParam(xs []int, out []int) { // want UnusedParam:"blocks: calls sync\\.WaitGroup\\.Wait"
	var wg sync.WaitGroup
	for i, x := range xs { // want `can be par.For\(len\(xs\), ...\)`
		wg.Add(1)
		go func(x int, _ string) {
			defer wg.Done()
			out[i] = 1
		}(x, "unused")
	}
	wg.Wait()
}

// NoLimit: errgroup's SetLimit(-1) means no limit, which par.Blocking cannot
// say: no fix.
func NoLimit(xs []int) error {
	var g errgroup.Group
	g.SetLimit(-1)
	for i := range xs { // want `no fix is offered: the errgroup's SetLimit is not positive`
		g.Go(func() error {
			return check(xs[i])
		})
	}
	return g.Wait()
}
