// Package fanoutscope has fan-outs whose tasks are spawned in loops over
// channels, maps and iterators, or from inside the tasks: par.Scope and
// par.ScopeErr.
package fanoutscope

import (
	"context"
	"iter"
	"os"
	"path/filepath"
	"sync"

	"golang.org/x/sync/errgroup"
)

func work(x int) int { return x * x }

// Drain starts a task per value received.
func Drain(ch <-chan int, out []int) { // want Drain:"blocks: ranges over a channel"
	var wg sync.WaitGroup // want `fan-out over a channel \(wg.Go\): rewrite it as par.Scope\(func\(s \*par.Spawner\) {...}\), which runs the tasks on the pool's workers with no goroutine each`
	for x := range ch {
		wg.Go(func() {
			out[x] = work(x)
		})
	}
	wg.Wait()
}

// Filtered skips some values, with Add(1) and a go statement.
func Filtered(ch <-chan int, out []int) { // want Filtered:"blocks: ranges over a channel"
	var wg sync.WaitGroup // want `fan-out over a channel \(a goroutine per task and a WaitGroup\): rewrite it as par.Scope`
	for x := range ch {
		if x < 0 {
			continue
		}
		// one task per value
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[x] = work(x)
		}()
	}
	wg.Wait()
}

// Values adds len(m) before the loop over the map.
func Values(m map[string]int, out map[string]*int) { // want Values:"blocks: calls sync\\.WaitGroup\\.Wait"
	var wg sync.WaitGroup // want `fan-out over a map \(a goroutine per task and a WaitGroup\): rewrite it as par.Scope`
	wg.Add(len(m))
	for k, v := range m {
		p := out[k]
		go func() {
			*p = work(v)
			wg.Done()
		}()
	}
	wg.Wait()
}

// Seq spawns over a function iterator, passing arguments to the goroutine.
func Seq(seq iter.Seq[int], out []int) { // want Seq:"blocks: calls sync\\.WaitGroup\\.Wait"
	wg := new(sync.WaitGroup) // want `fan-out over a function iterator \(a goroutine per task and a WaitGroup\): rewrite it as par.Scope`
	for x := range seq {
		wg.Add(1)
		go func(i, v int) {
			defer wg.Done()
			out[i] = v
		}(x, work(x))
	}
	wg.Wait()
}

type Node struct {
	Val  int
	Kids []*Node
}

// Walk visits a tree with a task per node: each task spawns its children.
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

// Nested spawns from a wg.Go task, and the arguments of a named task that
// change are evaluated where the goroutine started.
func Nested(groups [][]int, out []int) { // want Nested:"blocks: calls sync\\.WaitGroup\\.Wait"
	var wg sync.WaitGroup // want `fan-out from inside its tasks \(wg.Go\): rewrite it as par.Scope`
	for _, g := range groups {
		wg.Go(func() {
			for _, x := range g {
				wg.Go(func() {
					out[x] = work(x)
				})
			}
		})
	}
	wg.Wait()
}

// Errgroup drains a channel with a derived context and returns the Wait.
func Errgroup(ctx context.Context, ch <-chan int) error { // want Errgroup:"blocks: ranges over a channel"
	g, gctx := errgroup.WithContext(ctx) // want `fan-out over a channel \(errgroup.Go\): rewrite it as par.ScopeErr\(ctx, func\(ctx context.Context, s \*par.ErrSpawner\) error {...}\), which runs the tasks on the pool's workers with no goroutine each \(the caller helps while it waits\); after the first error no new task starts`
	for x := range ch {
		g.Go(func() error {
			if err := gctx.Err(); err != nil {
				return err
			}
			return check(x)
		})
	}
	return g.Wait()
}

func check(x int) error { return nil }

// Limited has a SetLimit around tasks that do not block: the bound goes.
func Limited(m map[int]bool) error {
	var g errgroup.Group // want `fan-out over a map \(errgroup.Go with SetLimit\): .*; SetLimit's bound is dropped: the tasks do not block, and the pool bounds the parallelism`
	g.SetLimit(4)
	for k := range m {
		g.Go(func() error { return check(k) })
	}
	if err := g.Wait(); err != nil {
		return err
	}
	return nil
}

// DirWalk reads a directory tree, a task per directory, under SetLimit:
// the tasks block, so the limit becomes par.Blocking's.
func DirWalk(ctx context.Context, root string, found func(string)) error { // want DirWalk:"blocks: calls os.ReadDir"
	g, ctx := errgroup.WithContext(ctx) // want `fan-out from inside its tasks \(errgroup.Go with SetLimit\): .*; the tasks block \(calls os.ReadDir\): par.Blocking\(8\) runs them on at most 8 goroutines of the scope's own, as SetLimit did`
	g.SetLimit(8)
	var walk func(dir string) error
	walk = func(dir string) error {
		entries, err := os.ReadDir(dir)
		if err != nil {
			return err
		}
		for _, e := range entries {
			p := filepath.Join(dir, e.Name())
			if e.IsDir() {
				g.Go(func() error { return walk(p) })
			} else {
				found(p)
			}
		}
		return ctx.Err()
	}
	g.Go(func() error { return walk(root) })
	return g.Wait()
}
