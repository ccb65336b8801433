//go:build go1.21

// Package fanoutscopeold is code below Go 1.22, where a loop's variables
// are shared by its iterations.
package fanoutscopeold

import "sync"

func work(x int) int { return x * x }

// Shared captures the loop variable itself: no fix.
func Shared(ch <-chan int, out []int) { // want Shared:"blocks: ranges over a channel"
	var wg sync.WaitGroup // want `no fix is offered: below Go 1.22 the tasks share the loop variable x \(copy it first: x := x\)`
	for x := range ch {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[x] = work(x)
		}()
	}
	wg.Wait()
}

// Passed passes the loop variable to the goroutine: the fix copies it
// where the goroutine started.
func Passed(ch <-chan int, out []int) { // want Passed:"blocks: ranges over a channel"
	var wg sync.WaitGroup // want `fan-out over a channel \(a goroutine per task and a WaitGroup\): rewrite it as par.Scope`
	for x := range ch {
		wg.Add(1)
		go func(x int) {
			defer wg.Done()
			out[x] = work(x)
		}(x)
	}
	wg.Wait()
}

type Node struct{ Kids []*Node }

// Walk starts a named task with the loop variable: the fix copies it.
func Walk(root *Node, visit func(*Node)) { // want Walk:"blocks: calls sync\\.WaitGroup\\.Wait"
	var wg sync.WaitGroup // want `fan-out from inside its tasks \(a goroutine per task and a WaitGroup\): rewrite it as par.Scope`
	var walk func(n *Node)
	walk = func(n *Node) {
		defer wg.Done()
		visit(n)
		for _, c := range n.Kids {
			wg.Add(1)
			go walk(c)
		}
	}
	wg.Add(1)
	go walk(root)
	wg.Wait()
}
