// Package fanoutleak checks for leaked goroutines: no fix.
package fanoutleak

import (
	"sync"

	"go.uber.org/goleak"
)

func Check(t goleak.TestingT, xs []int) { // want Check:"blocks: calls sync\\.WaitGroup\\.Wait"
	var wg sync.WaitGroup
	for i := range xs { // want `no fix is offered: the package checks for leaked goroutines with goleak`
		wg.Add(1)
		go func() {
			defer wg.Done()
			xs[i]++
		}()
	}
	wg.Wait()
	goleak.VerifyNone(t)
}
