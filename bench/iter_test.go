package bench

// Rows of the iter package (parallel pipelines over Go iterators):
// BenchmarkIterSeqMap (an ordered Map over an iter.Seq, a 1 µs body),
// BenchmarkIterSeqMapCheap (the same, a 50 ns body), BenchmarkIterSlice
// (Filter+Map+Reduce over a slice against the par verbs), and, in
// iter_examples_test.go, BenchmarkIterPgrep (examples/pgrep's workload)
// and BenchmarkIterStream (examples/stream's, with the peak heap).
// cmd/report runs them in phases iter (GOMAXPROCS 1 and 2) and iter2
// (GOMAXPROCS 2).

import (
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/destel/rill"
	conciter "github.com/sourcegraph/conc/iter"
	"github.com/sourcegraph/conc/stream"
	"golang.org/x/sync/errgroup"

	"github.com/parloop/parloop/iter"
	"github.com/parloop/parloop/par"
)

// spinRounds returns f(v): rounds of xorshift-multiply from v, a serial
// chain the compiler cannot shorten.
func spinRounds(v uint64, rounds int) uint64 {
	x := v*0x9e3779b97f4a7c15 + 1
	for range rounds {
		x ^= x >> 29
		x *= 0xbf58476d1ce4e5b9
	}
	return x
}

// roundsPerUs is the number of spinRounds rounds that take a microsecond on
// this machine: the fastest of several timings, so that a descheduled
// timing does not shrink the bodies.
var roundsPerUs = sync.OnceValue(func() float64 {
	const rounds = 1 << 20
	best := time.Duration(1 << 62)
	for range 7 {
		t0 := time.Now()
		x := spinRounds(1, rounds)
		d := time.Since(t0)
		if x == 0 {
			d++ // keep x alive
		}
		best = min(best, d)
	}
	return rounds / (float64(best) / 1e3)
})

// body returns a stage of about d of CPU work.
func body(d time.Duration) func(uint64) uint64 {
	rounds := max(1, int(roundsPerUs()*float64(d)/1e3))
	return func(v uint64) uint64 { return spinRounds(v, rounds) }
}

// seqOf yields 0..n-1 as an iter.Seq: the sequential source.
func seqOf(n int) iter.Seq[uint64] {
	return func(yield func(uint64) bool) {
		for i := range n {
			if !yield(uint64(i)) {
				return
			}
		}
	}
}

// ordered is the consumer of an ordered run: a hash that depends on the
// order of the results (the unordered peers are checked by the sum).
type ordered struct{ h uint64 }

func (o *ordered) add(v uint64) { o.h = o.h*1099511628211 + v }

// seqMapImpl maps f over seq and hands the results to consume, in order
// unless ordered is false, with workers goroutines where it takes a count.
type seqMapImpl struct {
	name    string
	ordered bool
	run     func(seq iter.Seq[uint64], n int, f func(uint64) uint64, workers int, consume func(uint64))
}

// chanMap is the hand-written fan-out over channels: a producer goroutine
// numbers the items, workers goroutines map them, and, if ordered, the
// consumer puts them back in order with a reorder buffer (a map of the
// results that arrived early: at most the items in flight, 32 per worker
// in the two channels, plus one per worker).
func chanMap(seq iter.Seq[uint64], f func(uint64) uint64, workers int, ordered bool, consume func(uint64)) {
	type item struct {
		i int
		v uint64
	}
	in := make(chan item, 16*workers)
	out := make(chan item, 16*workers)
	go func() {
		i := 0
		for v := range seq {
			in <- item{i, v}
			i++
		}
		close(in)
	}()
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for it := range in {
				out <- item{it.i, f(it.v)}
			}
		})
	}
	go func() { wg.Wait(); close(out) }()
	if !ordered {
		for it := range out {
			consume(it.v)
		}
		return
	}
	early := map[int]uint64{}
	next := 0
	for it := range out {
		early[it.i] = it.v
		for {
			v, ok := early[next]
			if !ok {
				break
			}
			delete(early, next)
			consume(v)
			next++
		}
	}
}

var seqMapImpls = []seqMapImpl{
	{"seq", true, func(seq iter.Seq[uint64], _ int, f func(uint64) uint64, _ int, consume func(uint64)) {
		for v := range seq {
			consume(f(v))
		}
	}},
	{"iter", true, func(seq iter.Seq[uint64], _ int, f func(uint64) uint64, _ int, consume func(uint64)) {
		for v, err := range iter.Map(iter.From(seq), f).All() {
			if err != nil {
				panic(err)
			}
			consume(v)
		}
	}},
	{"iter+Unordered", false, func(seq iter.Seq[uint64], _ int, f func(uint64) uint64, _ int, consume func(uint64)) {
		for v, err := range iter.Map(iter.From(seq, iter.Unordered()), f).All() {
			if err != nil {
				panic(err)
			}
			consume(v)
		}
	}},
	{"chan-ordered", true, func(seq iter.Seq[uint64], _ int, f func(uint64) uint64, workers int, consume func(uint64)) {
		chanMap(seq, f, workers, true, consume)
	}},
	{"chan-unordered", false, func(seq iter.Seq[uint64], _ int, f func(uint64) uint64, workers int, consume func(uint64)) {
		chanMap(seq, f, workers, false, consume)
	}},
	// errgroup: a goroutine per item, at most workers at once, each
	// writing its result at its index in a slice made for n results; the
	// results are consumed after Wait.
	{"errgroup", true, func(seq iter.Seq[uint64], n int, f func(uint64) uint64, workers int, consume func(uint64)) {
		var g errgroup.Group
		g.SetLimit(workers)
		res := make([]uint64, n)
		i := 0
		for v := range seq {
			k := i
			g.Go(func() error { res[k] = f(v); return nil })
			i++
		}
		if err := g.Wait(); err != nil {
			panic(err)
		}
		for _, r := range res[:i] {
			consume(r)
		}
	}},
	// conc's iter works on slices: the Seq is collected first.
	{"conc-iter", true, func(seq iter.Seq[uint64], _ int, f func(uint64) uint64, workers int, consume func(uint64)) {
		in := slices.Collect(seq)
		out := conciter.Mapper[uint64, uint64]{MaxGoroutines: workers}.Map(in, func(v *uint64) uint64 { return f(*v) })
		for _, r := range out {
			consume(r)
		}
	}},
	// conc's stream: a task per item, at most workers at once, whose
	// callbacks run in submission order.
	{"conc-stream", true, func(seq iter.Seq[uint64], _ int, f func(uint64) uint64, workers int, consume func(uint64)) {
		s := stream.New().WithMaxGoroutines(workers)
		for v := range seq {
			s.Go(func() stream.Callback {
				r := f(v)
				return func() { consume(r) }
			})
		}
		s.Wait()
	}},
	{"rill-OrderedMap", true, func(seq iter.Seq[uint64], _ int, f func(uint64) uint64, workers int, consume func(uint64)) {
		out := rill.OrderedMap(rill.FromSeq(seq, nil), workers, func(v uint64) (uint64, error) { return f(v), nil })
		for r := range out {
			if r.Error != nil {
				panic(r.Error)
			}
			consume(r.Value)
		}
	}},
	{"rill-Map", false, func(seq iter.Seq[uint64], _ int, f func(uint64) uint64, workers int, consume func(uint64)) {
		out := rill.Map(rill.FromSeq(seq, nil), workers, func(v uint64) (uint64, error) { return f(v), nil })
		for r := range out {
			if r.Error != nil {
				panic(r.Error)
			}
			consume(r.Value)
		}
	}},
}

// benchSeqMap runs the impls named in keep over n items of a body of cost
// d, checking each run's results against the sequential loop's (their
// order-dependent hash, or their sum for the unordered impls).
func benchSeqMap(b *testing.B, n int, d time.Duration, keep func(string) bool) {
	f := body(d)
	var want ordered
	var wantSum uint64
	for v := range seqOf(n) {
		r := f(v)
		want.add(r)
		wantSum += r
	}
	workers := runtime.GOMAXPROCS(0)
	for _, impl := range seqMapImpls {
		if !keep(impl.name) {
			continue
		}
		b.Run("impl="+impl.name, func(b *testing.B) {
			m := start(b, poolFor(strings.HasPrefix(impl.name, "iter")))
			for range b.N {
				var got ordered
				var sum uint64
				impl.run(seqOf(n), n, f, workers, func(v uint64) { got.add(v); sum += v })
				if sum != wantSum || (impl.ordered && got != want) {
					b.Fatalf("%s: results differ from the sequential loop's (sum %d, want %d)", impl.name, sum, wantSum)
				}
			}
			m.stop()
			b.ReportMetric(float64(m.b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/item")
		})
	}
}

// BenchmarkIterSeqMap is an ordered Map over an iter.Seq of 1M items
// (100k under -short) with a body of about 1 µs of CPU work (rounds of
// xorshift-multiply, calibrated at start), consumed in order by an
// order-dependent hash on the calling goroutine. Targets at 2 workers:
// impl=iter at least 1.8× faster than seq, and at least 3× faster than
// rill-OrderedMap and conc-stream.
func BenchmarkIterSeqMap(b *testing.B) {
	benchSeqMap(b, shortOr(1_000_000, 100_000), time.Microsecond, func(string) bool { return true })
}

// BenchmarkIterSeqMapCheap is BenchmarkIterSeqMap with a 50 ns body, over
// the impls that do not start a goroutine per item. Target at 1 worker:
// impl=iter within 30 ns an item of seq (the bridge's cost per item), so
// not slower than seq at 2.
func BenchmarkIterSeqMapCheap(b *testing.B) {
	benchSeqMap(b, shortOr(1_000_000, 200_000), 50*time.Nanosecond, func(name string) bool {
		return name != "errgroup" && name != "conc-stream"
	})
}

// BenchmarkIterSlice is Filter+Map+Reduce over a slice of 10M ints (2M
// under -short): keep the items not divisible by 3, square them and sum,
// as an iter pipeline (impl=iter), as the equivalent par verbs
// (impl=par.ReduceRange, filter and map in the leaf;
// impl=par.ReduceRange+calls, the same leaf calling the three functions
// without inlining them; impl=par.Map+Reduce, par.Map with the filter
// folded in, then par.Reduce) and as a loop (impl=seq). Target at 2 workers: iter within 10% of par.ReduceRange.
func BenchmarkIterSlice(b *testing.B) {
	n := shortOr(10_000_000, 2_000_000)
	xs := make([]uint64, n)
	for i := range xs {
		xs[i] = uint64(i)
	}
	keep := func(x uint64) bool { return x%3 != 0 }
	sq := func(x uint64) uint64 { return x * x }
	add := func(a, b uint64) uint64 { return a + b }
	leaf := func(lo, hi int) uint64 {
		s := uint64(0)
		for _, x := range xs[lo:hi] {
			if keep(x) {
				s += sq(x)
			}
		}
		return s
	}
	want := leaf(0, n)
	impls := []struct {
		name string
		run  func() uint64
	}{
		{"seq", func() uint64 { return leaf(0, n) }},
		{"par.ReduceRange", func() uint64 { return par.ReduceRange(n, 0, leaf, add) }},
		// The same leaf calling keep, sq and add through func values the
		// compiler cannot see into, so that none is inlined, as none can
		// be in a pipeline: what a pipeline of func values costs at best.
		{"par.ReduceRange+calls", func() uint64 {
			keep, sq, add := opaque(keep), opaque(sq), opaque(add)
			return par.ReduceRange(n, 0, func(lo, hi int) uint64 {
				s := uint64(0)
				for _, x := range xs[lo:hi] {
					if keep(x) {
						s = add(s, sq(x))
					}
				}
				return s
			}, add)
		}},
		{"par.Map+Reduce", func() uint64 {
			m := par.Map(xs, func(x uint64) uint64 {
				if keep(x) {
					return sq(x)
				}
				return 0
			})
			return par.Reduce(m, 0, add)
		}},
		{"iter", func() uint64 {
			s, err := iter.Map(iter.Slice(xs).Filter(keep), sq).Reduce(0, add)
			if err != nil {
				panic(err)
			}
			return s
		}},
	}
	for _, impl := range impls {
		b.Run("impl="+impl.name, func(b *testing.B) {
			m := start(b, poolFor(impl.name != "seq"))
			for range b.N {
				if got := impl.run(); got != want {
					b.Fatalf("%s: sum %d, want %d", impl.name, got, want)
				}
			}
			m.stop()
		})
	}
}

// opaque returns v through a call the compiler does not inline, so that it
// cannot tell which function a func value v is.
//
//go:noinline
func opaque[T any](v T) T { return v }

// BenchmarkIterReduce is Reduce over the results of a Map, summing with +
// and checked against the sequential loop (impl=seq): over an iter.Seq of 1M
// items (200k under -short) with a body of 1 µs (src=Seq/body=1us) and of
// 50 ns (src=Seq/body=50ns), and over Range with a 50 ns body (src=Range,
// 4M items, 1M under -short), where the Map folds its results in its own
// loop. impl=iter is Reduce; impl=iter.Sum is Sum over the same pipeline,
// which needs no order and folds into an accumulator per runner: the
// difference is what Reduce's order costs.
func BenchmarkIterReduce(b *testing.B) {
	add := func(a, b uint64) uint64 { return a + b }
	for _, c := range []struct {
		name    string
		n       int
		d       time.Duration
		indexed bool
	}{
		{"src=Seq/body=1us", shortOr(1_000_000, 200_000), time.Microsecond, false},
		{"src=Seq/body=50ns", shortOr(1_000_000, 200_000), 50 * time.Nanosecond, false},
		{"src=Range/body=50ns", shortOr(4_000_000, 1_000_000), 50 * time.Nanosecond, true},
	} {
		f := body(c.d)
		want := uint64(0)
		for i := range c.n {
			want += f(uint64(i))
		}
		pipe := func() iter.Pipe[uint64] {
			if c.indexed {
				return iter.Map(iter.Map(iter.Range(c.n), func(i int) uint64 { return uint64(i) }), f)
			}
			return iter.Map(iter.From(seqOf(c.n)), f)
		}
		impls := []struct {
			name string
			run  func() (uint64, error)
		}{
			{"seq", func() (uint64, error) {
				s := uint64(0)
				for v := range seqOf(c.n) {
					s += f(v)
				}
				return s, nil
			}},
			{"iter", func() (uint64, error) { return pipe().Reduce(0, add) }},
			{"iter.Sum", func() (uint64, error) { return iter.Sum(pipe()) }},
		}
		for _, impl := range impls {
			b.Run(c.name+"/impl="+impl.name, func(b *testing.B) {
				m := start(b, poolFor(impl.name != "seq"))
				for range b.N {
					got, err := impl.run()
					check(b, err)
					if got != want {
						b.Fatalf("%s: sum %d, want %d", impl.name, got, want)
					}
				}
				m.stop()
				b.ReportMetric(float64(m.b.Elapsed().Nanoseconds())/float64(b.N)/float64(c.n), "ns/item")
			})
		}
	}
}
