//go:build go1.21

// Package oldloops is code below Go 1.22: loop variables are shared, and the
// goroutines get copies through parameters.
package oldloops

import "sync"

func sum(xs []int) (int, []int) {
	var wg sync.WaitGroup
	total := 0
	out := make([]int, len(xs))
	for i, x := range xs {
		wg.Add(1)
		go func(i, x int) {
			defer wg.Done()
			out[i] = x * x
			total += x // want `goroutine started per loop iteration updates captured variable total`
		}(i, x)
	}
	wg.Wait()
	return total, out
}
