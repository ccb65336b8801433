package fanout

import (
	"os"
	"sync"
)

type Tree struct {
	Val         int
	Left, Right *Tree
	Kids        []*Tree
	Path        string
}

// SumTree starts a goroutine per child and waits at every level.
func SumTree(t *Tree) int { // want SumTree:"blocks: calls sync\\.WaitGroup\\.Wait"
	if t == nil {
		return 0
	}
	var l, r int
	var wg sync.WaitGroup // want `recursive fan-out \(SumTree starts 2 goroutines that call SumTree again and waits for them with a WaitGroup at every level\): rewrite it as par.Join, which nests the calls on the pool's workers \(a fork nobody steals runs inline\) instead of a goroutine per node`
	wg.Add(2)
	go func() {
		defer wg.Done()
		l = SumTree(t.Left)
	}()
	go func() {
		defer wg.Done()
		r = SumTree(t.Right)
	}()
	wg.Wait()
	return l + r + t.Val
}

// SumHalf runs one side itself.
func SumHalf(t *Tree) int { // want SumHalf:"blocks: calls sync\\.WaitGroup\\.Wait"
	if t == nil {
		return 0
	}
	var l, r int
	var wg sync.WaitGroup // want `recursive fan-out \(SumHalf starts a goroutine that calls SumHalf again and waits for it with a WaitGroup at every level\): rewrite it as par.Join`
	wg.Add(1)
	go func() {
		defer wg.Done()
		l = SumHalf(t.Left)
	}()
	r = SumHalf(t.Right)
	wg.Wait()
	return l + r + t.Val
}

// Three forks three ways: par.Invoke.
func Three(t *Tree, out []int) { // want Three:"blocks: calls sync\\.WaitGroup\\.Wait"
	if t == nil || len(t.Kids) < 3 {
		return
	}
	var wg sync.WaitGroup // want `rewrite it as par.Invoke`
	wg.Go(func() { Three(t.Kids[0], out) })
	wg.Go(func() { Three(t.Kids[1], out) })
	wg.Go(func() { Three(t.Kids[2], out) })
	wg.Wait()
	out[t.Val] = t.Val
}

// Walk starts a goroutine per child in a loop: par.For, nested.
func Walk(t *Tree, visit func(*Tree)) { // want Walk:"blocks: calls sync\\.WaitGroup\\.Wait"
	visit(t)
	var wg sync.WaitGroup
	for _, k := range t.Kids { // want `recursive fan-out loop \(a goroutine per item and a WaitGroup\) can be par.For\(len\(t.Kids\), ...\): the body does not block \(Walk calls itself in the goroutines, a WaitGroup per level: nested par.For calls share the pool's workers instead of a goroutine per node\)`
		wg.Add(1)
		go func() {
			defer wg.Done()
			Walk(k, visit)
		}()
	}
	wg.Wait()
}

// ReadTree reads a file at every node: it blocks besides its Wait.
func ReadTree(t *Tree) int { // want ReadTree:"blocks: calls os.ReadFile"
	b, _ := os.ReadFile(t.Path)
	n := len(b)
	if t.Left == nil {
		return n
	}
	var l, r int
	var wg sync.WaitGroup // want `recursive fan-out \(ReadTree starts 2 goroutines .*no fix is offered: ReadTree blocks besides its own Wait \(calls os.ReadFile\)`
	wg.Add(2)
	go func() { defer wg.Done(); l = ReadTree(t.Left) }()
	go func() { defer wg.Done(); r = ReadTree(t.Right) }()
	wg.Wait()
	return n + l + r
}

// NotRecursive forks two calls of something else: not reported here.
func NotRecursive(a, b []int) (int, int) { // want NotRecursive:"blocks: calls sync\\.WaitGroup\\.Wait"
	var x, y int
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); x = len(a) }()
	go func() { defer wg.Done(); y = len(b) }()
	wg.Wait()
	return x, y
}

// ReadAll reads a file at every node and starts a goroutine per child:
// par.For with par.Blocking, nested.
func ReadAll(t *Tree, out chan<- []byte) { // want ReadAll:"blocks: calls os.ReadFile"
	b, _ := os.ReadFile(t.Path)
	_ = b
	var wg sync.WaitGroup
	for _, k := range t.Kids { // want `recursive fan-out loop \(a goroutine per item and a WaitGroup\) whose body blocks \(calls os.ReadFile\): rewrite it as par.For\(len\(t.Kids\), ...\) with par.Blocking\(max\(1, len\(t.Kids\)\)\), which runs blocking bodies on goroutines of their own, not a plain par.For \(ReadAll calls itself in the goroutines, a WaitGroup per level, and blocks besides`
		wg.Add(1)
		go func() {
			defer wg.Done()
			ReadAll(k, out)
		}()
	}
	wg.Wait()
}
