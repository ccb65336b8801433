package main

import (
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/parloop/parloop/par"
	"golang.org/x/exp/stats"
)

// A strategy runs the first phase of a build in parallel: it reads and
// tokenises every file of the corpus into per-worker bins, and reports how
// the work was spread. The second phase is the same for every strategy
// (par.For over the partitions), so that they differ only in how they
// split the files.
type strategy struct {
	name  string
	about string
	inAll bool // one of -strategy all's
	build func(b *builder) ([]*bins, spread)
}

// builder is what a build runs with.
type builder struct {
	c    *corpus
	P    int       // parallelism: goroutines of the hand-written strategies, workers of the pool
	pool *par.Pool // parloop's strategies run on it
	m    *meter    // progress, for the bar
}

// spread is how evenly a build kept its workers busy in the first phase,
// while they read and tokenised: for the hand-written strategies up to the
// last worker's end, for parloop's over the par.Fold call.
type spread struct {
	imbalance   float64 // max over mean of the workers' busy time
	utilization float64 // sum of busy time over P times the wall time
	steals      int64   // parloop's steals; -1 for the hand-written strategies
	pool        string  // parloop's Pool.Stats, rendered; "" for the others
}

// dynamicChunk is how many files a goroutine of the dynamic strategy takes
// from the shared counter at a time.
const dynamicChunk = 16

var strategies = []strategy{
	{"static", "equal chunks by count on P goroutines", true, buildStatic},
	{"dynamic", "P goroutines taking chunks of 16 files from an atomic counter", true, buildDynamic},
	{"semaphore", "a goroutine per file, a semaphore of P around read+tokenise", true, buildSemaphore},
	{"stealing", "par.Fold, parloop's default", true, buildStealing},
	{"weighted", "par.Fold with par.Weighted(file sizes)", true, buildWeighted},
	{"largest-first", "par.Fold over the files largest first, with par.Weighted(sizes)", false, buildLargestFirst},
}

// strategyList names the strategies, for messages.
func strategyList() string {
	var names []string
	for _, s := range strategies {
		names = append(names, s.name)
	}
	return strings.Join(names, ", ")
}

func strategyNamed(name string) (strategy, bool) {
	for _, s := range strategies {
		if s.name == name {
			return s, true
		}
	}
	return strategy{}, false
}

// buildSequential reads and tokenises every file in order on the calling
// goroutine, into one set of bins.
func buildSequential(c *corpus, m *meter) *bins {
	b := newBins()
	for i := range c.docs {
		c.indexFile(b, i, m)
		m.files.Add(1)
	}
	return b
}

// handSpread measures a hand-written build: busy[w] is the time worker w
// spent indexing files, wall the time until the last worker was done. The
// imbalance is the largest busy time over the mean (golang.org/x/exp/stats,
// as for every balance figure of the example and of cmd/parloop-trace).
func handSpread(busy []time.Duration, wall time.Duration) spread {
	s := spread{steals: -1}
	if len(busy) == 0 {
		return s
	}
	b := make([]float64, len(busy))
	for i, d := range busy {
		b[i] = float64(d)
	}
	if mean := stats.Mean(b); mean > 0 {
		s.imbalance = slices.Max(b) / mean
		if wall > 0 {
			s.utilization = mean / float64(wall)
		}
	}
	return s
}

// handBuilt measures a hand-written build's workers' bins, the first
// phase having taken wall.
func handBuilt(ws []*bins, wall time.Duration) ([]*bins, spread) {
	busy := make([]time.Duration, len(ws))
	for w, b := range ws {
		busy[w] = b.busy
	}
	return ws, handSpread(busy, wall)
}

// buildStatic splits the files into P chunks of equal count, one goroutine
// each: the files' sizes, and so their costs, are ignored.
func buildStatic(b *builder) ([]*bins, spread) {
	start := time.Now()
	n, c := len(b.c.docs), b.c
	chunk := (n + b.P - 1) / b.P
	ws := make([]*bins, b.P)
	var wg sync.WaitGroup
	for w := range ws {
		bw := newBins()
		ws[w] = bw
		lo, hi := min(w*chunk, n), min((w+1)*chunk, n)
		wg.Go(func() {
			for i := lo; i < hi; i++ {
				c.indexFile(bw, i, b.m)
				b.m.files.Add(1)
			}
		})
	}
	wg.Wait()
	return handBuilt(ws, time.Since(start))
}

// buildDynamic runs P goroutines that take dynamicChunk files at a time
// from a shared atomic counter until none are left.
func buildDynamic(b *builder) ([]*bins, spread) {
	start := time.Now()
	n, c := len(b.c.docs), b.c
	var next atomic.Int64
	ws := make([]*bins, b.P)
	var wg sync.WaitGroup
	for w := range ws {
		bw := newBins()
		ws[w] = bw
		wg.Go(func() {
			for {
				lo := int(next.Add(dynamicChunk)) - dynamicChunk
				if lo >= n {
					return
				}
				for i := lo; i < min(lo+dynamicChunk, n); i++ {
					c.indexFile(bw, i, b.m)
					b.m.files.Add(1)
				}
			}
		})
	}
	wg.Wait()
	return handBuilt(ws, time.Since(start))
}

// buildSemaphore starts a goroutine per file, at most P at a time: the
// semaphore is a channel of P workers' bins, so a goroutine holds one
// while it reads and tokenises its file, and no bins are used by two at
// once.
func buildSemaphore(b *builder) ([]*bins, spread) {
	start := time.Now()
	c := b.c
	sem := make(chan *bins, b.P)
	for range b.P {
		sem <- newBins()
	}
	var wg sync.WaitGroup
	for i := range c.docs {
		bw := <-sem
		wg.Go(func() {
			c.indexFile(bw, i, b.m)
			b.m.files.Add(1)
			sem <- bw
		})
	}
	wg.Wait()
	close(sem)
	var ws []*bins
	for bw := range sem {
		ws = append(ws, bw)
	}
	return handBuilt(ws, time.Since(start))
}

// buildStealing is parloop's default: par.Fold over the files, bins of
// its own for each worker.
func buildStealing(b *builder) ([]*bins, spread) {
	c := b.c
	return b.fold(func(bw *bins, lo, hi int) {
		for i := lo; i < hi; i++ {
			c.indexFile(bw, i, b.m)
		}
	})
}

// buildWeighted is parloop told each file's expected cost, its size:
// par.Fold over the files in order with par.Weighted(sizes), so that the
// pieces are cut at equal bytes rather than equal counts of files.
func buildWeighted(b *builder) ([]*bins, spread) {
	c := b.c
	return b.fold(func(bw *bins, lo, hi int) {
		for i := lo; i < hi; i++ {
			c.indexFile(bw, i, b.m)
		}
	}, par.Weighted(c.sizes))
}

// buildLargestFirst is weighted partitioning as the seed of the example
// words it: by file size, largest first. par.Fold runs over the files
// sorted by decreasing size (c.bySize), with their sizes in that order as
// weights, so that the last pieces to run are the smallest files. The
// index is the same: a document keeps its number; but the files are read
// out of directory order, and a worker's documents are rarely consecutive,
// so its bins hold a run per file. It is not in -strategy all: it costs
// more than it balances (see the package documentation).
func buildLargestFirst(b *builder) ([]*bins, spread) {
	c := b.c
	return b.fold(func(bw *bins, lo, hi int) {
		for k := lo; k < hi; k++ {
			c.indexFile(bw, int(c.bySize[k]), b.m)
		}
	}, par.Weighted(c.bySizeWeights))
}

// fold runs body over the files with par.Fold on the builder's pool, with
// opts besides, each worker with bins of its own (the fold's merge only
// collects them), and takes the spread from the pool's counters.
func (b *builder) fold(body func(bw *bins, lo, hi int), opts ...par.Option) ([]*bins, spread) {
	b.pool.ResetStats()
	opts = append(opts, par.On(b.pool), par.Track(&b.m.prog))
	ws := par.Fold(len(b.c.docs),
		func() []*bins { return []*bins{newBins()} },
		func(acc *[]*bins, lo, hi int) { body((*acc)[0], lo, hi) },
		func(x, y []*bins) []*bins { return append(x, y...) },
		opts...)
	st := b.pool.Stats()
	return ws, spread{imbalance: st.Imbalance, utilization: st.Utilization, steals: st.Total().Steals, pool: st.String()}
}
