package goroutines

import (
	"context"
	"sync"

	"golang.org/x/sync/errgroup"
)

func work(x int) int { return x * x }

func positives(ctx context.Context, xs []int) (int, []int, error) {
	var wg sync.WaitGroup
	total := 0
	var results []int
	for _, x := range xs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			total += work(x) // want `goroutine started per loop iteration updates captured variable total with \+= without synchronization \(data race\)`
		}()
	}
	wg.Wait()

	for i := range xs {
		wg.Go(func() {
			results = append(results, work(xs[i])) // want `goroutine started per loop iteration appends to captured slice results`
		})
	}
	wg.Wait()

	var firstErr error
	g, ctx := errgroup.WithContext(ctx)
	for _, x := range xs {
		g.Go(func() error {
			if x < 0 {
				firstErr = ctx.Err() // want `goroutine started per loop iteration assigns captured variable firstErr without synchronization \(data race\); return errors through errgroup or par.ForErr`
			}
			return nil
		})
	}
	_ = g.Wait()
	return total, results, firstErr
}

func negatives(xs []int) []int {
	out := make([]int, len(xs))
	var wg sync.WaitGroup
	var mu sync.Mutex
	total := 0
	for i, x := range xs {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			out[i] = work(x)
			mu.Lock()
			total += out[i]
			mu.Unlock()
		}(i)
	}
	wg.Wait()

	// Joined every iteration: the goroutines never overlap.
	last := 0
	for _, x := range xs {
		done := make(chan struct{})
		go func() {
			last = work(x)
			close(done)
		}()
		<-done
	}

	// A single goroutine, not per iteration.
	go func() { total = 0 }()
	_ = last
	return out
}
