package fanout

import (
	"sync"
)

func use(wg *sync.WaitGroup) {}

// Shared passes the WaitGroup on: no fix.
func Shared(xs []int) { // want Shared:"blocks: calls sync\\.WaitGroup\\.Wait"
	var wg sync.WaitGroup
	for _, x := range xs { // want `fan-out loop: par.For could replace the goroutines, but no fix is offered: wg is also used outside the loop and its Wait`
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = square(x)
		}()
	}
	wg.Wait()
	use(&wg)
}

// NoWait returns without waiting: the goroutines outlive the loop.
func NoWait(xs []int) *sync.WaitGroup {
	wg := new(sync.WaitGroup)
	for _, x := range xs { // want `no fix is offered: the statement after the loop is not the Wait`
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = square(x)
		}()
	}
	return wg
}

// Filter has other statements in the loop body.
func Filter(xs []int) { // want Filter:"blocks: calls sync\\.WaitGroup\\.Wait"
	var wg sync.WaitGroup
	for _, x := range xs { // want `no fix is offered: the loop body has other statements besides starting the goroutine`
		if x < 0 {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = square(x)
		}()
	}
	wg.Wait()
}

// Workers is a worker pool over a channel, not a fan-out over items: not reported.
func Workers(jobs <-chan int, n int) { // want Workers:"blocks: ranges over a channel"
	for w := 0; w < n; w++ {
		go func() {
			for j := range jobs {
				_ = square(j)
			}
		}()
	}
}

// Joined starts and joins one goroutine per iteration: not reported.
func Joined(xs []int) { // want Joined:"blocks: receives from a channel"
	for _, x := range xs {
		done := make(chan struct{})
		go func() {
			_ = square(x)
			close(done)
		}()
		<-done
	}
}

// Redeclared declares the loop variable's name again in the goroutine.
func Redeclared(xs []int) { // want Redeclared:"blocks: calls sync\\.WaitGroup\\.Wait"
	var wg sync.WaitGroup
	for _, x := range xs { // want `no fix is offered: the goroutine declares x again`
		wg.Add(1)
		go func() {
			defer wg.Done()
			x := x * 2
			_ = square(x)
		}()
	}
	wg.Wait()
}

// Limited has a local limit that only the semaphore uses.
func Limited(xs []int) { // want Limited:"blocks: sends on a channel"
	limit := 4
	sem := make(chan bool, limit)
	var wg sync.WaitGroup
	for _, x := range xs { // want `no fix is offered: the rewrite would leave limit unused`
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- true
			defer func() { <-sem }()
			_ = square(x)
		}()
	}
	wg.Wait()
}
