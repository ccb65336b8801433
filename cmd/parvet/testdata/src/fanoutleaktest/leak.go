// Package fanoutleaktest checks for leaked goroutines in its tests only
// (leak_test.go imports goleak): no plain par.For fix for its code either.
package fanoutleaktest

import "sync"

func Double(xs []int) { // want Double:"blocks: calls sync\\.WaitGroup\\.Wait"
	var wg sync.WaitGroup
	for i := range xs { // want `no fix is offered: the package checks for leaked goroutines with goleak`
		wg.Add(1)
		go func() {
			defer wg.Done()
			xs[i] *= 2
		}()
	}
	wg.Wait()
}
