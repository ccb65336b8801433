// Package peers holds the ways Go users parallelise loops and recursion
// today, written the way they are usually written, plus parloop's verbs
// behind the same interface. The benchmarks run every workload through every
// peer and verify each result.
package peers

import (
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/alitto/pond/v2"
	"github.com/panjf2000/ants/v2"
	"github.com/parloop/parloop/par"
	"github.com/sourcegraph/conc/iter"
	"golang.org/x/sync/errgroup"
)

// ChunksPerWorker sets the chunk size of the chunked peers (atomic counter,
// errgroup, ants, pond): a loop of n iterations on P = GOMAXPROCS is cut into
// chunks of max(1, n/(ChunksPerWorker*P)) iterations, so each worker takes
// about eight chunks and the dynamic peers can balance moderately uneven
// work. The static peer always cuts n into exactly P equal chunks.
const ChunksPerWorker = 8

// ChunkSize is the chunk size the chunked peers use for n iterations on p
// workers.
func ChunkSize(n, p int) int { return max(1, n/(ChunksPerWorker*p)) }

// Runner runs a loop of n iterations. elem is one iteration called through
// a func value; rng is the same work over [lo, hi) with the loop body inlined.
// Each peer uses the form its users would write: per-element peers call
// elem, chunked peers call rng.
type Runner func(n int, elem func(i int), rng func(lo, hi int))

// LoopPeer is one way of running a parallel loop.
type LoopPeer struct {
	Name    string
	Parloop bool // a parloop verb: the benchmarks read its pool's stats
	// Open creates whatever the peer keeps between calls (a pool), outside
	// the timed region. nested is the runner for a loop inside a body of
	// run: the same runner except for pools, where a body that blocks on
	// work queued to its own pool could deadlock, so nested loops get a
	// second pool.
	Open func() (run, nested Runner, close func())
}

func open(r Runner) func() (Runner, Runner, func()) {
	return func() (Runner, Runner, func()) { return r, r, func() {} }
}

// Loops returns the loop peers, parloop's last. perItem includes the
// goroutine-per-item peer (leave it out where n is in the millions: it would
// start millions of goroutines per call).
func Loops(perItem bool) []LoopPeer {
	ps := []LoopPeer{{Name: "seq-func", Open: open(SeqFunc)}}
	if perItem {
		ps = append(ps, LoopPeer{Name: "wg", Open: open(WaitGroupPerItem)})
	}
	return append(ps,
		LoopPeer{Name: "static", Open: open(Static)},
		LoopPeer{Name: "atomic", Open: open(AtomicChunks)},
		LoopPeer{Name: "errgroup", Open: open(Errgroup)},
		LoopPeer{Name: "conc", Open: open(Conc)},
		LoopPeer{Name: "ants", Open: openAnts},
		LoopPeer{Name: "pond", Open: openPond},
		LoopPeer{Name: "par.For", Parloop: true, Open: open(ParFor)},
		LoopPeer{Name: "par.ForRange", Parloop: true, Open: open(ParForRange)},
	)
}

// SeqFunc is the serial loop calling the body through a func value.
//
//go:noinline
func SeqFunc(n int, elem func(i int), _ func(lo, hi int)) {
	for i := 0; i < n; i++ {
		elem(i)
	}
}

// WaitGroupPerItem starts a goroutine per iteration with sync.WaitGroup.Go:
// the fan-out that parloop replaces.
func WaitGroupPerItem(n int, elem func(i int), _ func(lo, hi int)) {
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Go(func() { elem(i) })
	}
	wg.Wait()
}

// Static starts GOMAXPROCS goroutines, each running one of GOMAXPROCS equal
// contiguous chunks.
func Static(n int, _ func(i int), rng func(lo, hi int)) {
	p := runtime.GOMAXPROCS(0)
	var wg sync.WaitGroup
	for w := 0; w < p; w++ {
		lo, hi := w*n/p, (w+1)*n/p
		wg.Go(func() { rng(lo, hi) })
	}
	wg.Wait()
}

// AtomicChunks starts GOMAXPROCS goroutines that pull chunks of
// ChunkSize(n, GOMAXPROCS) iterations from a shared atomic counter: the
// competent hand-written baseline.
func AtomicChunks(n int, _ func(i int), rng func(lo, hi int)) {
	p := runtime.GOMAXPROCS(0)
	c := ChunkSize(n, p)
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < p; w++ {
		wg.Go(func() {
			for {
				lo := int(next.Add(int64(c))) - c
				if lo >= n {
					return
				}
				rng(lo, min(lo+c, n))
			}
		})
	}
	wg.Wait()
}

// Errgroup runs one errgroup goroutine per chunk with SetLimit(GOMAXPROCS).
func Errgroup(n int, _ func(i int), rng func(lo, hi int)) {
	p := runtime.GOMAXPROCS(0)
	c := ChunkSize(n, p)
	var g errgroup.Group
	g.SetLimit(p)
	for lo := 0; lo < n; lo += c {
		hi := min(lo+c, n)
		g.Go(func() error { rng(lo, hi); return nil })
	}
	_ = g.Wait()
}

// Conc is conc's iter.ForEachIdx: GOMAXPROCS goroutines taking one element at
// a time from a shared counter. It needs a slice; a slice of struct{}
// allocates nothing.
func Conc(n int, elem func(i int), _ func(lo, hi int)) {
	idx := make([]struct{}, n)
	iter.ForEachIdx(idx, func(i int, _ *struct{}) { elem(i) })
}

// ParFor is par.For on the default pool (or, inside a body, on the pool that
// runs it).
func ParFor(n int, elem func(i int), _ func(lo, hi int)) { par.For(n, elem) }

// ParForRange is par.ForRange.
func ParForRange(n int, _ func(i int), rng func(lo, hi int)) { par.ForRange(n, rng) }

// antsRunner submits one task per chunk to an ants pool of GOMAXPROCS
// goroutines.
func antsRunner(pool *ants.Pool) Runner {
	return func(n int, _ func(i int), rng func(lo, hi int)) {
		c := ChunkSize(n, runtime.GOMAXPROCS(0))
		var wg sync.WaitGroup
		for lo := 0; lo < n; lo += c {
			hi := min(lo+c, n)
			wg.Add(1)
			if err := pool.Submit(func() { rng(lo, hi); wg.Done() }); err != nil {
				panic(err)
			}
		}
		wg.Wait()
	}
}

func openAnts() (Runner, Runner, func()) {
	outer, err := ants.NewPool(runtime.GOMAXPROCS(0))
	if err != nil {
		panic(err)
	}
	inner, err := ants.NewPool(runtime.GOMAXPROCS(0))
	if err != nil {
		panic(err)
	}
	return antsRunner(outer), antsRunner(inner), func() { outer.Release(); inner.Release() }
}

// pondRunner submits one task per chunk to a pond task group.
func pondRunner(pool pond.Pool) Runner {
	return func(n int, _ func(i int), rng func(lo, hi int)) {
		c := ChunkSize(n, runtime.GOMAXPROCS(0))
		g := pool.NewGroup()
		for lo := 0; lo < n; lo += c {
			hi := min(lo+c, n)
			g.Submit(func() { rng(lo, hi) })
		}
		if err := g.Wait(); err != nil {
			panic(err)
		}
	}
}

func openPond() (Runner, Runner, func()) {
	outer := pond.NewPool(runtime.GOMAXPROCS(0))
	inner := pond.NewPool(runtime.GOMAXPROCS(0))
	return pondRunner(outer), pondRunner(inner), func() { outer.StopAndWait(); inner.StopAndWait() }
}

// ChanFanOut starts limit goroutines (fewer if n is smaller) that take
// indices from a channel: the bounded fan-out written by hand for bodies
// that block.
func ChanFanOut(limit, n int, elem func(i int)) {
	idx := make(chan int)
	var wg sync.WaitGroup
	for range min(limit, n) {
		wg.Go(func() {
			for i := range idx {
				elem(i)
			}
		})
	}
	for i := range n {
		idx <- i
	}
	close(idx)
	wg.Wait()
}

// ErrgroupLimit runs one errgroup goroutine per iteration with
// SetLimit(limit), returning the first error.
func ErrgroupLimit(limit, n int, body func(i int) error) error {
	var g errgroup.Group
	g.SetLimit(limit)
	for i := range n {
		g.Go(func() error { return body(i) })
	}
	return g.Wait()
}
