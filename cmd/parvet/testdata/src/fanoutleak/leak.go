// Package fanoutleak checks for leaked goroutines: no fix.
package fanoutleak

import (
	"sync"
	"time"

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

// Sleepy blocks: par.Blocking starts no pool workers, so the fix is offered.
func Sleepy(xs []int) { // want Sleepy:"blocks: calls time\\.Sleep"
	var wg sync.WaitGroup
	for i := range xs { // want `whose body blocks \(calls time.Sleep\)`
		wg.Add(1)
		go func() {
			defer wg.Done()
			time.Sleep(time.Duration(xs[i]))
		}()
	}
	wg.Wait()
}
