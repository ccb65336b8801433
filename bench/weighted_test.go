package bench

// Rows of the weights, Fold and tracing features: BenchmarkWeighted (the
// skewed workload split by weight), BenchmarkFoldDocs (word counts over
// documents of heavy-tailed sizes, one map per worker) and BenchmarkTraceOff
// (what runtime/trace integration and Track cost). cmd/report runs the first
// two in phase weighted and the third in phase trace, at GOMAXPROCS 1 and
// the largest.

import (
	"io"
	"runtime"
	"runtime/trace"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/parloop/parloop/bench/peers"
	"github.com/parloop/parloop/bench/workloads"
	"github.com/parloop/parloop/par"
)

// skewedSorted is the skewed workload with its costs in increasing order,
// as when items come sorted by size: static chunks by count then put most
// of the work in the last chunk.
var skewedSorted = sync.OnceValue(func() *workloads.Skewed {
	s := skewed()
	c := slices.Clone(s.Cost)
	slices.Sort(c)
	return &workloads.Skewed{Cost: c, Out: make([]uint64, len(c))}
})

// prefixSums returns p with p[i] = w[0] + ... + w[i-1].
func prefixSums(w []int64) []int64 {
	p := make([]int64, len(w)+1)
	for i, x := range w {
		p[i+1] = p[i] + x
	}
	return p
}

// staticWeighted runs rng over GOMAXPROCS contiguous chunks of equal
// weight, one goroutine each: the hand-written weighted split, cut by a
// binary search in prefix sums computed once (as par.Weighted computes
// them once per option).
func staticWeighted(prefix []int64, rng func(lo, hi int)) {
	n := len(prefix) - 1
	p := runtime.GOMAXPROCS(0)
	total := prefix[n]
	cut := func(k int) int {
		if k == p {
			return n
		}
		target := total * int64(k) / int64(p)
		return sort.Search(n, func(i int) bool { return prefix[i] >= target })
	}
	var wg sync.WaitGroup
	lo := 0
	for k := 1; k <= p; k++ {
		from, to := lo, max(lo, cut(k))
		if k < p {
			wg.Go(func() { rng(from, to) })
		} else {
			rng(from, to)
		}
		lo = to
	}
	wg.Wait()
}

// BenchmarkWeighted is the skewed workload (10,000 items of Pareto(1.2)
// cost; costs / 4 under -short) in its random order (work=skewed) and
// sorted by cost (work=skewed-sorted). impl=par.For+Weighted passes the
// known costs as weights, par.For+Weighted-wrong the costs reversed (on
// the sorted order, the heaviest weights on the cheapest items): stealing
// must still balance it. static cuts n into GOMAXPROCS chunks of equal
// count, static-weighted into chunks of equal weight (both hand-written).
// The Weighted options are built once, outside the timed loop. Targets:
// with good weights not slower than without, and faster than static.
func BenchmarkWeighted(b *testing.B) {
	for _, wk := range []struct {
		name string
		s    *workloads.Skewed
	}{{"skewed", skewed()}, {"skewed-sorted", skewedSorted()}} {
		s := wk.s
		n := len(s.Cost)
		costs := make([]int64, n)
		for i, c := range s.Cost {
			costs[i] = int64(c)
		}
		wrong := slices.Clone(costs)
		slices.Reverse(wrong)
		good, bad := par.Weighted(costs), par.Weighted(wrong)
		prefix := prefixSums(costs)
		impls := []struct {
			name string
			pool *par.Pool
			run  func()
		}{
			{"seq", nil, s.Plain},
			{"static", nil, func() { peers.Static(n, nil, s.Items) }},
			{"static-weighted", nil, func() { staticWeighted(prefix, s.Items) }},
			{"par.For", par.Default(), func() { par.For(n, s.Item) }},
			{"par.For+Weighted", par.Default(), func() { par.For(n, s.Item, good) }},
			{"par.For+Weighted-wrong", par.Default(), func() { par.For(n, s.Item, bad) }},
		}
		for _, impl := range impls {
			b.Run("work="+wk.name+"/impl="+impl.name, func(b *testing.B) {
				s.Reset()
				m := start(b, impl.pool)
				for range b.N {
					impl.run()
				}
				m.stop()
				check(b, s.Verify())
			})
		}
	}
}

// docs is the document set of BenchmarkFoldDocs (5,000 documents, about
// 67 MB; 6 MB under -short), docsWant the summary of its serial count.
var (
	docs = sync.OnceValue(func() *workloads.Docs {
		return workloads.NewDocs(workloads.DocsN, workloads.DocsAlpha, workloads.DocsMin,
			shortOr(workloads.DocsMax, workloads.DocsShortM), workloads.DocsSeed)
	})
	docsWant = sync.OnceValue(func() workloads.CountsSum {
		d := docs()
		m := workloads.Counts{}
		d.CountWords(m, 0, d.N())
		return workloads.Summarize(m)
	})
)

// countsByGoroutines runs P goroutines (P = GOMAXPROCS), each counting the
// documents next hands it into a map of its own, and merges the maps.
func countsByGoroutines(d *workloads.Docs, maps *atomic.Int64, next func(k, p int) func() (lo, hi int, ok bool)) workloads.Counts {
	p := runtime.GOMAXPROCS(0)
	res := make([]workloads.Counts, p)
	var wg sync.WaitGroup
	for k := range p {
		wg.Go(func() {
			maps.Add(1)
			m := workloads.Counts{}
			for take := next(k, p); ; {
				lo, hi, ok := take()
				if !ok {
					break
				}
				d.CountWords(m, lo, hi)
			}
			res[k] = m
		})
	}
	wg.Wait()
	var out workloads.Counts
	for _, m := range res {
		out = workloads.MergeCounts(out, m)
	}
	return out
}

// BenchmarkFoldDocs counts the words of 5,000 synthetic documents whose
// sizes follow a truncated Pareto law from 10 bytes to 1 MB (about 67 MB in
// all; at most 32 KB each, 6 MB in all, under -short) into a map of counts.
// impl=seq is one map; par.Fold one map per worker (par.Fold+Weighted with
// the documents' sizes as weights); par.ReduceRange one map per piece,
// merged in order (the way before Fold); static GOMAXPROCS goroutines over
// equal chunks by count, a map each; dynamic GOMAXPROCS goroutines taking
// one document at a time from an atomic counter, a map each. The metric
// maps/op counts the maps made per op. Every result's word count, distinct
// words and checksum are checked against seq's.
func BenchmarkFoldDocs(b *testing.B) {
	d := docs()
	n := d.N()
	want := docsWant()
	byWeight := par.Weighted(d.Sizes())
	var maps atomic.Int64
	newMap := func() workloads.Counts { maps.Add(1); return workloads.Counts{} }
	fold := func(acc *workloads.Counts, lo, hi int) { d.CountWords(*acc, lo, hi) }
	impls := []struct {
		name string
		pool *par.Pool
		run  func() workloads.Counts
	}{
		{"seq", nil, func() workloads.Counts {
			m := newMap()
			d.CountWords(m, 0, n)
			return m
		}},
		{"par.Fold", par.Default(), func() workloads.Counts {
			return par.Fold(n, newMap, fold, workloads.MergeCounts)
		}},
		{"par.Fold+Weighted", par.Default(), func() workloads.Counts {
			return par.Fold(n, newMap, fold, workloads.MergeCounts, byWeight)
		}},
		{"par.ReduceRange", par.Default(), func() workloads.Counts {
			return par.ReduceRange(n, nil, func(lo, hi int) workloads.Counts {
				m := newMap()
				d.CountWords(m, lo, hi)
				return m
			}, workloads.MergeCounts)
		}},
		{"static", nil, func() workloads.Counts {
			return countsByGoroutines(d, &maps, func(k, p int) func() (int, int, bool) {
				done := false
				return func() (int, int, bool) {
					if done {
						return 0, 0, false
					}
					done = true
					return k * n / p, (k + 1) * n / p, true
				}
			})
		}},
		{"dynamic", nil, func() workloads.Counts {
			var next atomic.Int64
			return countsByGoroutines(d, &maps, func(int, int) func() (int, int, bool) {
				return func() (int, int, bool) {
					i := int(next.Add(1)) - 1
					return i, i + 1, i < n
				}
			})
		}},
	}
	for _, impl := range impls {
		b.Run("impl="+impl.name, func(b *testing.B) {
			var got workloads.CountsSum
			bad := false
			m := start(b, impl.pool)
			maps.Store(0)
			for range b.N {
				res := impl.run()
				m.pause()
				if got = workloads.Summarize(res); got != want {
					bad = true
				}
				m.resume()
			}
			made := maps.Load()
			m.stop()
			if bad {
				b.Fatalf("word count %v (last run), want %v", got, want)
			}
			b.ReportMetric(float64(made)/float64(b.N), "maps/op")
		})
	}
}

// BenchmarkTraceOff is the tiny loop (n = 1,000) and the uniform loop (10M;
// 1M under -short) through par.For and par.ForRange with no execution
// trace running, against the same calls with a par.Progress tracked
// (+Track) and, for scale, with runtime/trace on, writing to io.Discard
// (+tracing: a trace task per call and a region per piece). seq-func and
// seq are the serial loops (through a func value, and inline). The report
// pairs them by round, as the goals.
func BenchmarkTraceOff(b *testing.B) {
	works := []*workloads.Loop{
		workloads.Tiny(workloads.TinyN),
		workloads.UniformInto(uniformBuf()[:shortOr(workloads.UniformN, workloads.UniformN/10)]),
	}
	for _, w := range works {
		type variant struct {
			name  string
			pool  *par.Pool
			track bool
			trace bool
			run   func(opts ...par.Option)
		}
		forFn := func(opts ...par.Option) { par.For(w.N, w.Elem, opts...) }
		rangeFn := func(opts ...par.Option) { par.ForRange(w.N, w.Range, opts...) }
		vs := []variant{
			{name: "seq-func", run: func(...par.Option) { peers.SeqFunc(w.N, w.Elem, nil) }},
			{name: "par.For", pool: par.Default(), run: forFn},
			{name: "par.For+Track", pool: par.Default(), track: true, run: forFn},
			{name: "par.For+tracing", pool: par.Default(), trace: true, run: forFn},
			{name: "seq", run: func(...par.Option) { w.Plain() }},
			{name: "par.ForRange", pool: par.Default(), run: rangeFn},
			{name: "par.ForRange+Track", pool: par.Default(), track: true, run: rangeFn},
			{name: "par.ForRange+tracing", pool: par.Default(), trace: true, run: rangeFn},
		}
		for _, v := range vs {
			b.Run("work="+w.Name+"/impl="+v.name, func(b *testing.B) {
				if v.trace {
					if trace.IsEnabled() {
						b.Skip("an execution trace is already running")
					}
					check(b, trace.Start(io.Discard))
					defer trace.Stop()
				} else if trace.IsEnabled() {
					b.Skip("an execution trace is running: this row is about tracing off")
				}
				var prog par.Progress
				var opts []par.Option
				if v.track {
					opts = append(opts, par.Track(&prog))
				}
				w.Reset()
				m := start(b, v.pool)
				for range b.N {
					v.run(opts...)
				}
				m.stop()
				check(b, w.Verify())
				if v.track {
					if want := int64(b.N) * int64(w.N); prog.Total() != want || prog.Done() != want {
						b.Fatalf("progress: done %d of %d after %d calls of %d, want %d of %d", prog.Done(), prog.Total(), b.N, w.N, want, want)
					}
				}
			})
		}
	}
}
