package main

import (
	"sync"
	"sync/atomic"

	"github.com/parloop/parloop/par"
)

// A strategy searches g from src, doing rounds of work at each node it
// reaches, and returns what it found; every strategy finds the same. Those
// that use par run on pool.
type strategy struct {
	name   string
	search func(pool *par.Pool, g *Graph, src int32, rounds int) Result
	doc    string
}

var strategies = []strategy{
	{"scope", searchScope, "par.ScopeOf: a task per path, spawning a task for each other node it reaches first; a concurrent visited set"},
	{"sequential", searchSequential, "a worklist (a stack) on one goroutine, a plain visited set"},
	{"goroutines", searchGoroutines, "a goroutine per newly reached node and a WaitGroup, a concurrent visited set"},
}

// strategyNamed returns the strategy called name.
func strategyNamed(name string) (strategy, bool) {
	for _, s := range strategies {
		if s.name == name {
			return s, true
		}
	}
	return strategy{}, false
}

// searchSequential is the sequential search: a stack of nodes reached and
// not yet visited.
func searchSequential(_ *par.Pool, g *Graph, src int32, rounds int) Result {
	var r Result
	seen := newBitset(g.Len())
	seen.add(src)
	stack := []int32{src}
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		r.add(g.Key(v, rounds))
		for _, u := range g.Neighbours(v) {
			if seen.add(u) {
				stack = append(stack, u)
			}
		}
	}
	return r
}

// counters is a Result that tasks add to at once: shards, each on its own
// cache lines, so that two tasks rarely add to the same one at the same
// time, summed when the search is over. A task adds to the shard its first
// node picks.
type counters [64]struct {
	reached, marked, keySum atomic.Int64
	_                       [128 - 24]byte
}

func (c *counters) add(v int32, r Result) {
	s := &c[v&63]
	s.reached.Add(r.Reached)
	s.marked.Add(r.Marked)
	s.keySum.Add(int64(r.KeySum))
}

func (c *counters) load() Result {
	var r Result
	for i := range c {
		r.Reached += c[i].reached.Load()
		r.Marked += c[i].marked.Load()
		r.KeySum += uint64(c[i].keySum.Load())
	}
	return r
}

// searchScope searches with a scope: whoever claims a node in the visited
// set visits it. A task visits its node, spawns a task for each neighbour
// it claims but the last, and goes on with that one itself, so a path
// through the graph is one task and not a task per node; it adds what it
// found to the shared counters once, when it ends. ScopeOf passes each task
// its node, so a spawn makes no closure.
func searchScope(pool *par.Pool, g *Graph, src int32, rounds int) Result {
	seen := newAtomicBitset(g.Len())
	seen.add(src)
	var total counters
	par.ScopeOf(func(s *par.SpawnerOf[int32]) { s.Go(src) }, func(s *par.SpawnerOf[int32], v int32) {
		var r Result
		first := v
		for v >= 0 {
			r.add(g.Key(v, rounds))
			next := int32(-1)
			for _, u := range g.Neighbours(v) {
				if seen.add(u) {
					if next >= 0 {
						s.Go(next)
					}
					next = u
				}
			}
			v = next
		}
		total.add(first, r)
	}, par.On(pool))
	return total.load()
}

// searchGoroutines searches with a goroutine per node, the usual fan-out
// without a pool: whoever claims a node starts a goroutine to visit it.
func searchGoroutines(_ *par.Pool, g *Graph, src int32, rounds int) Result {
	seen := newAtomicBitset(g.Len())
	seen.add(src)
	var total counters
	var wg sync.WaitGroup
	var visit func(v int32)
	visit = func(v int32) {
		var r Result
		r.add(g.Key(v, rounds))
		total.add(v, r)
		for _, u := range g.Neighbours(v) {
			if seen.add(u) {
				wg.Go(func() { visit(u) })
			}
		}
	}
	visit(src)
	wg.Wait()
	return total.load()
}
