package bench

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/parloop/parloop/bench/workloads"
	"github.com/parloop/parloop/par"
	"github.com/sourcegraph/conc/pool"
	"golang.org/x/sync/errgroup"
)

// BenchmarkScopeSpawn spawns 10^6 tasks of about 1 µs from 1,000 tasks that
// each spawn 1,000 (the shape of dynamic parallelism): seq runs the
// same bodies in a loop, and bound runs its two halves on two goroutines at
// once (the most two workers can do), bound-closures the same with a
// closure made for each body, as Scope's spawns make them; par.ScopeOf
// spawns the bodies' indices instead of closures; the peers are a goroutine
// per task with a WaitGroup, errgroup with SetLimit(GOMAXPROCS), and conc's
// pool.
func BenchmarkScopeSpawn(b *testing.B) {
	outer, inner := 1000, 1000
	if testing.Short() {
		outer = 10
	}
	runs, check := scopeSpawnRuns(outer, inner)
	for _, impl := range runs {
		b.Run("impl="+impl.name, func(b *testing.B) {
			var pl *par.Pool
			if strings.HasPrefix(impl.name, "par.") {
				pl = par.Default()
			}
			m := start(b, pl)
			for range b.N {
				impl.run()
				if err := check(); err != nil {
					b.Fatalf("%s: %v", impl.name, err)
				}
			}
			m.stop()
		})
	}
}

// namedRun is one row of a benchmark: a name and what it runs.
type namedRun struct {
	name string
	run  func()
}

// scopeSpawnRuns are BenchmarkScopeSpawn's rows, and check, which reports
// a body that did not run since the last check.
func scopeSpawnRuns(outer, inner int) (runs []namedRun, check func() error) {
	// Each body marks its own cache line of ran, checked after each run: a
	// shared counter would cost every parallel row a contended atomic a
	// body, and marks that share lines would cost a row more the more
	// often it runs neighbouring bodies on different cores.
	type mark struct {
		ran bool
		_   [63]byte
	}
	ran := make([]mark, outer*inner)
	var sink atomic.Uint64
	body := func(i int) {
		if workloads.Work1us(uint64(i)) == 0 {
			sink.Add(1)
		}
		ran[i].ran = true
	}
	check = func() error {
		for i := range ran {
			if !ran[i].ran {
				return fmt.Errorf("body %d did not run", i)
			}
			ran[i].ran = false
		}
		return nil
	}
	return []namedRun{
		{"seq", func() {
			for j := range outer {
				for i := range inner {
					body(j*inner + i)
				}
			}
		}},
		{"bound", func() {
			// The loop's two halves on two goroutines at once: what two
			// workers can do with these bodies, and no scheduler.
			var wg sync.WaitGroup
			for h := range 2 {
				wg.Go(func() {
					for j := h * outer / 2; j < (h+1)*outer/2; j++ {
						for i := range inner {
							body(j*inner + i)
						}
					}
				})
			}
			wg.Wait()
		}},
		{"bound-closures", func() {
			// bound with the closure each task is: each half makes the
			// 1,000 closures of an outer task, as its spawns do, then
			// calls them; what two workers can do with the tasks the
			// caller wrote, allocations and collector included.
			var wg sync.WaitGroup
			for h := range 2 {
				wg.Go(func() {
					fs := make([]func(), inner)
					for j := h * outer / 2; j < (h+1)*outer/2; j++ {
						for i := range inner {
							fs[i] = func() { body(j*inner + i) }
						}
						for i := len(fs) - 1; i >= 0; i-- {
							fs[i]()
						}
					}
				})
			}
			wg.Wait()
		}},
		{"par.Scope", func() {
			par.Scope(func(s *par.Spawner) {
				for j := range outer {
					s.Go(func() {
						for i := range inner {
							s.Go(func() { body(j*inner + i) })
						}
					})
				}
			})
		}},
		{"par.ScopeOf", func() {
			// An argument k >= 0 is body k's task; -1-j is outer task j.
			par.ScopeOf(func(s *par.SpawnerOf[int]) {
				for j := range outer {
					s.Go(-1 - j)
				}
			}, func(s *par.SpawnerOf[int], k int) {
				if k >= 0 {
					body(k)
					return
				}
				j := -1 - k
				for i := range inner {
					s.Go(j*inner + i)
				}
			})
		}},
		{"wg-go", func() {
			var wg sync.WaitGroup
			for j := range outer {
				wg.Go(func() {
					for i := range inner {
						wg.Go(func() { body(j*inner + i) })
					}
				})
			}
			wg.Wait()
		}},
		{"errgroup-limit", func() {
			// SetLimit bounds the goroutines, so a task that spawns waits for
			// a slot: the outer tasks run on a goroutine each, the inner ones
			// under the limit.
			var outerG errgroup.Group
			var g errgroup.Group
			g.SetLimit(runtime.GOMAXPROCS(0))
			for j := range outer {
				outerG.Go(func() error {
					for i := range inner {
						g.Go(func() error { body(j*inner + i); return nil })
					}
					return nil
				})
			}
			_ = outerG.Wait()
			_ = g.Wait()
		}},
		{"conc-pool", func() {
			p := pool.New().WithMaxGoroutines(runtime.GOMAXPROCS(0))
			var outerWG sync.WaitGroup
			for j := range outer {
				outerWG.Go(func() {
					for i := range inner {
						p.Go(func() { body(j*inner + i) })
					}
				})
			}
			outerWG.Wait()
			p.Wait()
		}},
	}, check
}

// BenchmarkScopeTask is a scope task's cost over its body: a scope of 1,000
// tasks whose body adds one, at parallelism 1 (ns/task), against the same
// 1,000 calls in a loop; par.Scope spawns one closure made once, par.ScopeOf
// an empty argument.
func BenchmarkScopeTask(b *testing.B) {
	const tasks = 1000
	var count atomic.Int64
	f := func() { count.Add(1) }
	p := par.NewPool(par.Workers(1))
	defer p.Close()
	b.Run("impl=loop", func(b *testing.B) {
		m := start(b, nil)
		for range b.N {
			for range tasks {
				f()
			}
		}
		m.stop()
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*tasks), "ns/task")
	})
	b.Run("impl=par.Scope", func(b *testing.B) {
		m := start(b, p)
		for range b.N {
			par.Scope(func(s *par.Spawner) {
				for range tasks {
					s.Go(f)
				}
			}, par.On(p))
		}
		m.stop()
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*tasks), "ns/task")
	})
	b.Run("impl=par.ScopeOf", func(b *testing.B) {
		task := func(_ *par.SpawnerOf[struct{}], _ struct{}) { f() }
		m := start(b, p)
		for range b.N {
			par.ScopeOf(func(s *par.SpawnerOf[struct{}]) {
				for range tasks {
					s.Go(struct{}{})
				}
			}, task, par.On(p))
		}
		m.stop()
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*tasks), "ns/task")
	})
}

// BenchmarkCrawl searches a graph of 200,000 nodes whose links are found by
// visiting a node (workloads.Crawl: about half a microsecond each), with a
// visited set: seq is a worklist; par.Scope spawns a task per newly seen
// node, and par.ScopeOf the node itself; wg-go starts a goroutine per node; par.For-nested runs a nested For
// over each node's new neighbours (the shape that nests as deep as the
// search goes).
func BenchmarkCrawl(b *testing.B) {
	c := workloads.NewCrawl(200_000)
	if testing.Short() {
		c = workloads.NewCrawl(20_000)
	}
	want := c.Seq()
	for _, impl := range []struct {
		name string
		run  func() int
	}{
		{"seq", c.Seq},
		{"par.Scope", func() int { return crawlScope(c) }},
		{"par.ScopeOf", func() int { return crawlScopeOf(c) }},
		{"wg-go", func() int { return crawlGo(c) }},
		{"par.For-nested", func() int { return crawlFor(c) }},
	} {
		b.Run("impl="+impl.name, func(b *testing.B) {
			var pl *par.Pool
			if impl.name[:3] == "par" {
				pl = par.Default()
			}
			m := start(b, pl)
			for range b.N {
				if got := impl.run(); got != want {
					b.Fatalf("%s reached %d nodes, want %d", impl.name, got, want)
				}
			}
			m.stop()
		})
	}
}

func crawlScope(c *workloads.Crawl) int {
	seen := make([]atomic.Bool, c.N)
	seen[0].Store(true)
	var reached atomic.Int64
	par.Scope(func(s *par.Spawner) {
		var visit func(v int32)
		visit = func(v int32) {
			reached.Add(crawlChain(c, seen, v, func(w int32) { s.Go(func() { visit(w) }) }))
		}
		visit(0)
	})
	return int(reached.Load())
}

// crawlScopeOf is crawlScope with the node passed to ScopeOf's task instead
// of captured by a closure per task.
func crawlScopeOf(c *workloads.Crawl) int {
	seen := make([]atomic.Bool, c.N)
	seen[0].Store(true)
	var reached atomic.Int64
	par.ScopeOf(func(s *par.SpawnerOf[int32]) { s.Go(0) }, func(s *par.SpawnerOf[int32], v int32) {
		reached.Add(crawlChain(c, seen, v, s.Go))
	})
	return int(reached.Load())
}

// crawlChain visits v and goes on with one newly seen neighbour of each
// node it visits, spawning the others; it returns how many nodes it
// visited.
func crawlChain(c *workloads.Crawl, seen []atomic.Bool, v int32, spawn func(w int32)) int64 {
	var buf [8]int32
	n := int64(0)
	for {
		n++
		next := int32(-1)
		for _, w := range c.Visit(v, buf[:0]) {
			if !seen[w].Load() && seen[w].CompareAndSwap(false, true) {
				if next < 0 {
					next = w // go on with one, spawn the others
				} else {
					spawn(w)
				}
			}
		}
		if next < 0 {
			return n
		}
		v = next
	}
}

func crawlGo(c *workloads.Crawl) int {
	seen := make([]atomic.Bool, c.N)
	seen[0].Store(true)
	var reached atomic.Int64
	var wg sync.WaitGroup
	var visit func(v int32)
	visit = func(v int32) {
		var buf [8]int32
		reached.Add(1)
		for _, w := range c.Visit(v, buf[:0]) {
			if !seen[w].Load() && seen[w].CompareAndSwap(false, true) {
				wg.Go(func() { visit(w) })
			}
		}
	}
	visit(0)
	wg.Wait()
	return int(reached.Load())
}

func crawlFor(c *workloads.Crawl) int {
	seen := make([]atomic.Bool, c.N)
	seen[0].Store(true)
	var reached atomic.Int64
	var visit func(v int32)
	visit = func(v int32) {
		var buf [8]int32
		reached.Add(1)
		var fresh []int32
		for _, w := range c.Visit(v, buf[:0]) {
			if !seen[w].Load() && seen[w].CompareAndSwap(false, true) {
				fresh = append(fresh, w)
			}
		}
		par.For(len(fresh), func(i int) { visit(fresh[i]) })
	}
	visit(0)
	return int(reached.Load())
}

// treeScope counts a published tree with a scope task per subtree of the
// root's children... each task walks its node and spawns its children but
// the first, which it goes on with.
func treeScope(root workloads.SHA1Node) int {
	var total atomic.Int64
	par.Scope(func(s *par.Spawner) {
		var visit func(n workloads.SHA1Node)
		visit = func(n workloads.SHA1Node) {
			c := int64(0)
			for {
				c++
				k := n.Kids()
				if k == 0 {
					break
				}
				for i := 1; i < k; i++ {
					child := n.Child(i)
					s.Go(func() { visit(child) })
				}
				n = n.Child(0)
			}
			total.Add(c)
		}
		visit(root)
	})
	return int(total.Load())
}
