// Package carried holds a fan-out loop whose goroutine races (parrace's
// goroutine rule reports the same shape in package goroutines): fanout
// rewrites it, and the race goes with the body into par.For, where parrace
// reports it again (package carriedfix holds the rewritten file).
package carried

import (
	"sync"
)

func square(x int) int { return x * x }

func Sum(xs []int) int { // want Sum:"blocks: calls sync\\.WaitGroup\\.Wait"
	total := 0
	var wg sync.WaitGroup
	for _, x := range xs { // want `fan-out loop \(a goroutine per item and a WaitGroup\) can be par.For\(len\(xs\), ...\): the body does not block`
		wg.Add(1)
		go func() {
			defer wg.Done()
			total += square(x)
		}()
	}
	wg.Wait()
	return total
}
