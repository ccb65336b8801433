package fanoutscope

import (
	"os"
	"sync"

	"golang.org/x/sync/errgroup"
)

func use(wg *sync.WaitGroup) {}

// Escapes passes the WaitGroup on.
func Escapes(ch <-chan int) { // want Escapes:"blocks: ranges over a channel"
	var wg sync.WaitGroup // want `fan-out over a channel \(wg.Go\): par.Scope could replace the goroutines, but no fix is offered: wg is used for more than its tasks \(line 17\)`
	for x := range ch {
		wg.Go(func() { work(x) })
		use(&wg)
	}
	wg.Wait()
}

// Returns leaves the function from the loop.
func Returns(ch <-chan int) { // want Returns:"blocks: ranges over a channel"
	var wg sync.WaitGroup // want `no fix is offered: the statements up to the Wait return`
	for x := range ch {
		if x < 0 {
			return
		}
		wg.Go(func() { work(x) })
	}
	wg.Wait()
}

// Breaks jumps out of the statements that would become the scope's body.
func Breaks(chs []chan int) { // want Breaks:"blocks: ranges over a channel"
outer:
	for _, ch := range chs {
		var wg sync.WaitGroup // want `no fix is offered: the statements up to the Wait break out of them`
		for x := range ch {
			if x < 0 {
				break outer
			}
			wg.Go(func() { work(x) })
		}
		wg.Wait()
	}
}

// UsedAfter declares a variable that is used after the Wait.
func UsedAfter(ch <-chan int) (int, error) { // want UsedAfter:"blocks: receives from a channel"
	var g errgroup.Group // want `no fix is offered: the statements up to the Wait declare last, used after it`
	g.SetLimit(2)
	first := <-ch
	g.Go(func() error { return check(first) })
	last := first
	for x := range ch {
		last = x
		g.Go(func() error { return check(x) })
	}
	err := g.Wait()
	return last, err
}

// Sends has tasks that wait on other goroutines.
func Sends(ch <-chan int, res chan<- int) { // want Sends:"blocks: ranges over a channel"
	var wg sync.WaitGroup // want `no fix is offered: the tasks wait on other goroutines \(sends on a channel\), which on a bounded number of goroutines could wait forever`
	for x := range ch {
		wg.Go(func() { res <- work(x) })
	}
	wg.Wait()
}

// Unbounded has tasks that block and no limit.
func Unbounded(paths map[string]bool) { // want Unbounded:"blocks: calls os\\.ReadFile"
	var wg sync.WaitGroup // want `no fix is offered: the tasks block \(calls os.ReadFile\) and nothing bounds them: use par.Scope\(..., par.Blocking\(k\)\) with a bound k of your choosing`
	for p := range paths {
		wg.Go(func() { os.ReadFile(p) })
	}
	wg.Wait()
}

// Stray starts a goroutine that the WaitGroup does not count.
func Stray(ch <-chan int) { // want Stray:"blocks: ranges over a channel"
	var wg sync.WaitGroup // want `no fix is offered: it starts a goroutine that is not one of wg's tasks \(line 87\)`
	for x := range ch {
		wg.Go(func() { work(x) })
		go work(x)
	}
	wg.Wait()
}

// Stored spawns from a function that outlives the loop.
func Stored(ch <-chan int) []func() { // want Stored:"blocks: ranges over a channel"
	var fns []func()
	var wg sync.WaitGroup // want `no fix is offered: a goroutine of wg is started from a function that is not one of its tasks \(line 97\)`
	for x := range ch {
		fns = append(fns, func() { wg.Go(func() { work(x) }) })
	}
	wg.Wait()
	return fns
}

// AddTwo adds two for one goroutine.
func AddTwo(ch <-chan int) { // want AddTwo:"blocks: ranges over a channel"
	var wg sync.WaitGroup // want `no fix is offered: wg.Add at line 107 does not pair with one goroutine`
	for x := range ch {
		wg.Add(2)
		go func() {
			defer wg.Done()
			work(x)
		}()
	}
	wg.Wait()
}

// NoLimit has SetLimit(-1), which means no limit.
func NoLimit(m map[int]bool) error {
	var g errgroup.Group // want `no fix is offered: the errgroup's SetLimit is not positive`
	g.SetLimit(-1)
	for k := range m {
		g.Go(func() error { return check(k) })
	}
	return g.Wait()
}

// Param waits on a WaitGroup of its caller: the loop rules report it.
func Param(wg *sync.WaitGroup, ch <-chan int) { // want Param:"blocks: ranges over a channel"
	for x := range ch { // want `fan-out loop: par.For could replace the goroutines, but no fix is offered: the WaitGroup or errgroup is not declared in the loop's block`
		wg.Go(func() { work(x) })
	}
	wg.Wait()
}
