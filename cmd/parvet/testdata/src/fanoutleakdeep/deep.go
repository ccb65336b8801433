// Package fanoutleakdeep checks for leaked goroutines through a helper
// that imports goleak: no plain par.For fix.
package fanoutleakdeep

import (
	"sync"

	"leakhelper"
)

func Double(t leakhelper.T, xs []int) { // want Double:"blocks: calls sync\\.WaitGroup\\.Wait"
	var wg sync.WaitGroup
	for i := range xs { // want `no fix is offered: the package checks for leaked goroutines with goleak`
		wg.Add(1)
		go func() {
			defer wg.Done()
			xs[i] *= 2
		}()
	}
	wg.Wait()
	leakhelper.Teardown(t)
}
