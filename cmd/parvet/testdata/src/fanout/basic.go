package fanout

import (
	"sync"
)

func square(x int) int { return x * x }

// Basic: one goroutine per item, results by index.
func Basic(xs []int) []int { // want Basic:"blocks: calls sync\\.WaitGroup\\.Wait"
	out := make([]int, len(xs))
	var wg sync.WaitGroup
	for i, x := range xs { // want `fan-out loop \(a goroutine per item and a WaitGroup\) can be par.For\(len\(xs\), ...\): the body does not block`
		wg.Add(1)
		go func() {
			defer wg.Done()
			// The work.
			out[i] = square(x)
		}()
	}
	wg.Wait()
	return out
}
