//go:build go1.21

// Package fanoutold is code below Go 1.22: per-iteration copies through
// goroutine parameters and x := x.
package fanoutold

import "sync"

func work(x string) int { return len(x) }

// Params passes the loop variables as arguments.
func Params(xs []string) []int { // want Params:"blocks: calls sync\\.WaitGroup\\.Wait"
	out := make([]int, len(xs))
	var wg sync.WaitGroup
	for i, x := range xs { // want `can be par.For\(len\(xs\), ...\): the body does not block$`
		wg.Add(1)
		go func(i int, x string) {
			defer wg.Done()
			out[i] = work(x)
		}(i, x)
	}
	wg.Wait()
	return out
}

// Copies copies the loop variables.
func Copies(xs []string) []int { // want Copies:"blocks: calls sync\\.WaitGroup\\.Wait"
	out := make([]int, len(xs))
	var wg sync.WaitGroup
	for i, x := range xs { // want `can be par.For\(len\(xs\), ...\): the body does not block$`
		i, x := i, x
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i] = work(x)
		}()
	}
	wg.Wait()
	return out
}

// Shared captures the shared loop variable: a bug the rewrite fixes.
func Shared(xs []string) int { // want Shared:"blocks: calls sync\\.WaitGroup\\.Wait"
	var mu sync.Mutex
	total := 0
	var wg sync.WaitGroup
	for j := 0; j < len(xs); j++ { // want `below Go 1.22 the goroutines share the loop variable j`
		wg.Add(1)
		go func() {
			defer wg.Done()
			n := work(xs[j])
			mu.Lock()
			total += n
			mu.Unlock()
		}()
	}
	wg.Wait()
	return total
}

// Renamed passes a computed argument under a new name.
func Renamed(xs []string) []int { // want Renamed:"blocks: calls sync\\.WaitGroup\\.Wait"
	out := make([]int, len(xs))
	var wg sync.WaitGroup
	for i := range xs { // want `can be par.For`
		wg.Add(1)
		go func(k int, s string) {
			defer wg.Done()
			out[k] = work(s)
		}(i, xs[i])
	}
	wg.Wait()
	return out
}
