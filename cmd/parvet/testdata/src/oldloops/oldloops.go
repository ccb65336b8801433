//go:build go1.21

// Package oldloops is code below Go 1.22: loop variables are shared, and the
// goroutines get copies through parameters.
package oldloops

import (
	"sync"
	"testing"
)

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

// Below Go 1.22 a goroutine that reads the loop variable reads the one
// variable that the loop goes on updating.
func shared(xs []int) []int {
	var wg sync.WaitGroup
	out := make([]int, len(xs))
	for i := range xs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i] = xs[i] * 2 // want `goroutine started per loop iteration writes out\[i\] in captured out at a position that does not depend on the loop iteration without synchronization \(data race\); write only elements indexed by the body's own index, or use par.Map \(below Go 1.22 the loop variable i is one variable shared by all iterations: pass it to the function or copy it in the loop body\)`
		}()
	}
	wg.Wait()
	// A copy in the loop body is per iteration.
	for i := range xs {
		i := i
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i] = xs[i] * 3
		}()
	}
	wg.Wait()
	return out
}

type tcase struct {
	name string
	in   int
}

func subtests(t *testing.T, cases []tcase) {
	res := make([]int, len(cases))
	for i, tc := range cases {
		tc := tc
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res[i] = tc.in // want `parallel subtest started per loop iteration writes res\[i\] in captured res .*below Go 1.22 the loop variable i is one variable shared`
		})
	}
	for i, tc := range cases {
		i, tc := i, tc
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res[i] = tc.in
		})
	}
}
