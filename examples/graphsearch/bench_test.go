package main

import (
	"sync"
	"testing"

	"github.com/parloop/parloop/par"
)

// benchGraph is the command's default graph, generated once.
var benchGraph = sync.OnceValue(func() *Graph { return Generate(1_000_000, 1) })

// BenchmarkSearch times each strategy on the command's default graph and
// work, and the bound two workers set: compare them with benchstat,
// alternated by -count.
func BenchmarkSearch(b *testing.B) {
	g := benchGraph()
	pool := par.NewPool()
	defer pool.Close()
	for _, s := range strategies {
		b.Run(s.name, func(b *testing.B) {
			for b.Loop() {
				s.search(pool, g, 0, 8)
			}
		})
	}
	// Two sequential searches at once, on two goroutines: twice the work
	// with no scheduler and no sharing, so 2 × sequential / bound is the
	// most a search on two workers can gain over the sequential one here.
	b.Run("bound", func(b *testing.B) {
		for b.Loop() {
			var wg sync.WaitGroup
			for range 2 {
				wg.Go(func() { searchSequential(pool, g, 0, 8) })
			}
			wg.Wait()
		}
	})
}

// BenchmarkKeys is the search's work without the graph: the keys of the
// first 10^5 nodes as a loop, with par.For, and with a Scope whose body
// spawns a task per node. It shows what the machine gives two workers on
// this work at the time (the For), and what a task costs over its body.
func BenchmarkKeys(b *testing.B) {
	g := benchGraph()
	pool := par.NewPool()
	defer pool.Close()
	const n = 100_000
	b.Run("loop", func(b *testing.B) {
		for b.Loop() {
			var sum uint64
			for v := range int32(n) {
				sum += g.Key(v, 8)
			}
			sink = sum
		}
	})
	b.Run("For", func(b *testing.B) {
		for b.Loop() {
			par.For(n, func(i int) { g.Key(int32(i), 8) }, par.On(pool))
		}
	})
	b.Run("Scope", func(b *testing.B) {
		for b.Loop() {
			par.Scope(func(s *par.Spawner) {
				for v := range int32(n) {
					s.Go(func() { g.Key(v, 8) })
				}
			}, par.On(pool))
		}
	})
}

var sink uint64
