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

// A strategy builds the term table of a corpus in parallel, from per-worker
// tables merged at the end, and reports how the work was spread.
type strategy struct {
	name  string
	about string
	inAll bool // one of -strategy all's
	build func(b *builder) (*table, spread)
}

// builder is what a build runs with.
type builder struct {
	c    *corpus
	P    int       // parallelism: goroutines of the hand-written strategies, workers of the pool
	pool *par.Pool // parloop's strategies run on it
	m    *meter    // progress, for the bar
}

// spread is how evenly a build kept its workers busy while it read and
// tokenised: for the hand-written strategies up to the last worker's end,
// for parloop's the whole par.Fold call (its merge included).
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

// buildSequential indexes every file in order on the calling goroutine.
func buildSequential(c *corpus, m *meter) *table {
	t := newTable()
	for i := range c.docs {
		c.indexFile(t, i, m)
		m.files.Add(1)
	}
	return t
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

// merge is how every strategy merges two workers' tables: shard by shard,
// with par.For over the shards on the builder's pool. It is the same for
// all, so that they differ only in how they split the files.
func (b *builder) merge(x, y *table) *table { return merger(onPool(b.pool))(x, y) }

// mergeTables merges the workers' tables, after reading their busy times.
func (b *builder) mergeTables(tabs []*table) (*table, []time.Duration) {
	busy := make([]time.Duration, len(tabs))
	for w, t := range tabs {
		busy[w] = t.busy
	}
	t := tabs[0]
	for _, u := range tabs[1:] {
		t = b.merge(t, u)
	}
	return t, busy
}

// buildStatic splits the files into P chunks of equal count, one goroutine
// each: the files' sizes, and so their costs, are ignored.
func buildStatic(b *builder) (*table, spread) {
	start := time.Now()
	n, c := len(b.c.docs), b.c
	chunk := (n + b.P - 1) / b.P
	tabs := make([]*table, b.P)
	var wg sync.WaitGroup
	for w := range tabs {
		t := newTable()
		tabs[w] = t
		lo, hi := min(w*chunk, n), min((w+1)*chunk, n)
		wg.Go(func() {
			for i := lo; i < hi; i++ {
				c.indexFile(t, i, b.m)
				b.m.files.Add(1)
			}
		})
	}
	wg.Wait()
	wall := time.Since(start)
	t, busy := b.mergeTables(tabs)
	return t, handSpread(busy, wall)
}

// buildDynamic runs P goroutines that take dynamicChunk files at a time
// from a shared atomic counter until none are left.
func buildDynamic(b *builder) (*table, spread) {
	start := time.Now()
	n, c := len(b.c.docs), b.c
	var next atomic.Int64
	tabs := make([]*table, b.P)
	var wg sync.WaitGroup
	for w := range tabs {
		t := newTable()
		tabs[w] = t
		wg.Go(func() {
			for {
				lo := int(next.Add(dynamicChunk)) - dynamicChunk
				if lo >= n {
					return
				}
				for i := lo; i < min(lo+dynamicChunk, n); i++ {
					c.indexFile(t, i, b.m)
					b.m.files.Add(1)
				}
			}
		})
	}
	wg.Wait()
	wall := time.Since(start)
	t, busy := b.mergeTables(tabs)
	return t, handSpread(busy, wall)
}

// buildSemaphore starts a goroutine per file, at most P at a time: the
// semaphore is a channel of P term tables, so a goroutine holds one while it
// reads and tokenises its file, and no table is used by two at once.
func buildSemaphore(b *builder) (*table, spread) {
	start := time.Now()
	c := b.c
	sem := make(chan *table, b.P)
	for range b.P {
		sem <- newTable()
	}
	var wg sync.WaitGroup
	for i := range c.docs {
		t := <-sem
		wg.Go(func() {
			c.indexFile(t, i, b.m)
			b.m.files.Add(1)
			sem <- t
		})
	}
	wg.Wait()
	close(sem)
	var tabs []*table
	for t := range sem {
		tabs = append(tabs, t)
	}
	wall := time.Since(start)
	t, busy := b.mergeTables(tabs)
	return t, handSpread(busy, wall)
}

// buildStealing is parloop's default: par.Fold over the files, one table
// per worker, merged at the end.
func buildStealing(b *builder) (*table, spread) {
	c := b.c
	return b.fold(func(t **table, lo, hi int) {
		for i := lo; i < hi; i++ {
			c.indexFile(*t, i, b.m)
		}
	})
}

// buildWeighted is parloop told each file's expected cost, its size:
// par.Fold over the files in order with par.Weighted(sizes), so that the
// pieces are cut at equal bytes rather than equal counts of files.
func buildWeighted(b *builder) (*table, spread) {
	c := b.c
	return b.fold(func(t **table, lo, hi int) {
		for i := lo; i < hi; i++ {
			c.indexFile(*t, i, b.m)
		}
	}, par.Weighted(c.sizes))
}

// buildLargestFirst is weighted partitioning as the seed of the example
// words it: by file size, largest first. par.Fold runs over the files
// sorted by decreasing size (c.bySize), with their sizes in that order as
// weights, so that the last pieces to run are the smallest files. The
// index is the same: a document keeps its number, and finish sorts the
// postings, which now come out of document order. It is not in -strategy
// all: it costs more than it balances (see the package documentation).
func buildLargestFirst(b *builder) (*table, spread) {
	c := b.c
	return b.fold(func(t **table, lo, hi int) {
		for k := lo; k < hi; k++ {
			c.indexFile(*t, int(c.bySize[k]), b.m)
		}
	}, par.Weighted(c.bySizeWeights))
}

// fold runs body over the files with par.Fold on the builder's pool, with
// opts besides, and takes the spread from the pool's counters.
func (b *builder) fold(body func(t **table, lo, hi int), opts ...par.Option) (*table, spread) {
	b.pool.ResetStats()
	opts = append(opts, par.On(b.pool), par.Track(&b.m.prog))
	t := par.Fold(len(b.c.docs), newTable, body, b.merge, opts...)
	st := b.pool.Stats()
	return t, spread{imbalance: st.Imbalance, utilization: st.Utilization, steals: st.Total().Steals, pool: st.String()}
}
