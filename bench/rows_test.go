package bench

// Rows of the issue on calls the main suite does not cover: few expensive
// items, blocking bodies, pprof labels, a nested unbalanced tree walk, and
// the cost of a small nested loop. cmd/report runs them in phases of their
// own (few, blocking, rows) and in the main phase (UTS, UTSAlloc).

import (
	"context"
	"fmt"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/parloop/parloop/bench/peers"
	"github.com/parloop/parloop/bench/workloads"
	"github.com/parloop/parloop/par"
)

// spinFor keeps the CPU busy until d has passed since it was called (a
// deadline on the wall clock, so a body costs d however fast the CPU).
func spinFor(d time.Duration) {
	for t0 := time.Now(); time.Since(t0) < d; {
	}
}

// fewImpl runs n items of cost work on pool p (the peers ignore p and run
// on goroutines of their own, at most workers at once where they take a
// limit) and returns the sum of the items' results.
type fewImpl struct {
	name string
	run  func(p *par.Pool, workers, n int, work func(i int) int, out []int) int
}

func sumInts(a []int) int {
	s := 0
	for _, v := range a {
		s += v
	}
	return s
}

var fewImpls = []fewImpl{
	{"par.For", func(p *par.Pool, _, n int, work func(int) int, out []int) int {
		par.For(n, func(i int) { out[i] += work(i) }, par.On(p))
		return sumInts(out)
	}},
	{"par.For+Grain1", func(p *par.Pool, _, n int, work func(int) int, out []int) int {
		par.For(n, func(i int) { out[i] += work(i) }, par.On(p), par.Grain(1))
		return sumInts(out)
	}},
	{"par.ForRange", func(p *par.Pool, _, n int, work func(int) int, out []int) int {
		par.ForRange(n, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				out[i] += work(i)
			}
		}, par.On(p))
		return sumInts(out)
	}},
	{"par.Map", func(p *par.Pool, _, n int, work func(int) int, out []int) int {
		for i := range out {
			out[i] = i
		}
		return sumInts(par.Map(out, work, par.On(p)))
	}},
	{"par.ReduceRange", func(p *par.Pool, _, n int, work func(int) int, _ []int) int {
		return par.ReduceRange(n, 0, func(lo, hi int) int {
			s := 0
			for i := lo; i < hi; i++ {
				s += work(i)
			}
			return s
		}, func(a, b int) int { return a + b }, par.On(p))
	}},
	{"par.ForErr", func(p *par.Pool, _, n int, work func(int) int, out []int) int {
		if err := par.ForErr(context.Background(), n, func(_ context.Context, i int) error {
			out[i] += work(i)
			return nil
		}, par.On(p)); err != nil {
			return -1
		}
		return sumInts(out)
	}},
	{"wg", func(_ *par.Pool, _, n int, work func(int) int, out []int) int {
		peers.WaitGroupPerItem(n, func(i int) { out[i] += work(i) }, nil)
		return sumInts(out)
	}},
	{"errgroup", func(_ *par.Pool, workers, n int, work func(int) int, out []int) int {
		if err := peers.ErrgroupLimit(workers, n, func(i int) error { out[i] += work(i); return nil }); err != nil {
			return -1
		}
		return sumInts(out)
	}},
}

// BenchmarkFewItems is n items of equal cost c, n = 2, 8, 32, c = 1 ms and
// 20 ms: pool=P2 is a pool of par.Workers(2) with bodies spinning the CPU
// for c; pool=P8sleep a pool of par.Workers(8) with bodies sleeping for c.
// The metric x-bound is the time per op over ceil(n/P)·c, the time of the
// best possible schedule on P workers (the goal: at most 1.1× plus 100 µs),
// where c is the larger of the cost asked for and item-ns, the median time
// of one item run alone on the benchmark's goroutine (a sleep overshoots).
// par.For+Grain1 passes the grain hint 1. Peers: a goroutine per item (wg,
// unbounded: its bound is c alone where the bodies sleep) and errgroup with
// SetLimit(P). -short keeps c = 1 ms.
// The report runs it with -benchtime 3x: one op is up to 330 ms.
func BenchmarkFewItems(b *testing.B) {
	costs := []time.Duration{time.Millisecond, 20 * time.Millisecond}
	if testing.Short() {
		costs = costs[:1]
	}
	type poolCase struct {
		name    string
		workers int
		sleep   bool
		pool    *par.Pool
	}
	pools := []*poolCase{{name: "P2", workers: 2}, {name: "P8sleep", workers: 8, sleep: true}}
	for _, pc := range pools {
		pc.pool = par.NewPool(par.Workers(pc.workers))
		defer pc.pool.Close()
	}
	for _, n := range []int{2, 8, 32} {
		for _, c := range costs {
			for _, pc := range pools {
				work := func(i int) int {
					if pc.sleep {
						time.Sleep(c)
					} else {
						spinFor(c)
					}
					return i + 1
				}
				want := n * (n + 1) / 2
				b.Run(fmt.Sprintf("n=%d/cost=%v/pool=%s", n, c, pc.name), func(b *testing.B) {
					// c is what an item asks for; the bound uses what one
					// costs run alone here, if more (a 1 ms sleep takes
					// 1.05-1.1 ms on this machine, whoever runs it).
					if !pc.sleep {
						warmCPUs(30 * time.Millisecond)
					}
					item := max(c, itemCost(func() { work(0) }))
					bound := time.Duration((n+pc.workers-1)/pc.workers) * item
					for _, impl := range fewImpls {
						b.Run("impl="+impl.name, func(b *testing.B) {
							out := make([]int, n)
							var pool *par.Pool
							if strings.HasPrefix(impl.name, "par.") {
								pool = pc.pool
							}
							bad, wrong := 0, false
							m := start(b, pool)
							for range b.N {
								clear(out)
								if got := impl.run(pc.pool, pc.workers, n, work, out); got != want {
									bad, wrong = got, true
								}
							}
							m.stop()
							if wrong {
								b.Fatalf("sum of the items' results %d, want %d", bad, want)
							}
							b.ReportMetric(float64(b.Elapsed())/float64(b.N)/float64(bound), "x-bound")
							b.ReportMetric(float64(item), "item-ns")
						})
					}
				})
			}
		}
	}
}

// warmCPUs keeps every P busy for d. After the CPUs have been idle (the
// cases with sleeping bodies), this VM's second vCPU runs slowly, or not
// at all, for a while: For(8) of 1 ms spinning items on 2 workers took
// 6.6-7.9 ms after 50 ms of idleness, one item stretching from 1 to 4.4 ms
// of wall time with no other goroutine to run, and 4.1 ms once both CPUs
// had spun for 20 ms first (5 ms was not enough). Without it, whichever
// implementation runs first in a CPU-bound case pays for that.
func warmCPUs(d time.Duration) {
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() { spinFor(d) })
	}
	wg.Wait()
}

// itemCost is the median time of 9 runs of f on the calling goroutine.
func itemCost(f func()) time.Duration {
	var d [9]time.Duration
	for i := range d {
		t0 := time.Now()
		f()
		d[i] = time.Since(t0)
	}
	slices.Sort(d[:])
	return d[len(d)/2]
}

// blockingLimit is the concurrency of every bounded fan-out of
// BenchmarkBlocking.
const blockingLimit = 64

// BenchmarkBlocking is the 500-file case: 500 bodies, each reading a 4 KB
// file and sleeping 2 ms (I/O latency). work=files compares plain par.For
// (its bodies hold the pool's workers), par.For and par.ForErr with
// Blocking(64), a goroutine per file (wg), 64 goroutines taking indices
// from a channel (chan64) and errgroup with SetLimit(64) (errgroup64); the
// goal is par with Blocking within 2× of the best hand-written fan-out at
// limit 64. work=cpu-alongside times a CPU-bound par.For (the uniform
// loop; 1M under -short) on the default pool alone, and while another
// goroutine runs the 500-file loop with Blocking(64) over and over on the
// same pool (with-files), and while the hand-written chan64 fan-out runs
// it instead (with-chan64). The file loop's own CPU use (reads, wake-ups)
// slows any CPU loop on 2 cores, whoever runs it; the claim is that the
// CPU loop keeps its speed, that is, the pool running the file loop costs
// it no more than the hand-written fan-out does (with-files against
// with-chan64, at most 1.10×).
func BenchmarkBlocking(b *testing.B) {
	f, err := workloads.NewFiles(b.TempDir(), workloads.FilesN, workloads.FilesSize, workloads.FilesLatency)
	check(b, err)
	n := len(f.Paths)
	ctx := context.Background()
	readErr := func(_ context.Context, i int) error { return f.Read(i) }
	impls := []struct {
		name string
		pool *par.Pool
		run  func() error
	}{
		{"par.For", par.Default(), func() error { par.For(n, f.Elem); return nil }},
		{"par.For+Blocking64", par.Default(), func() error { par.For(n, f.Elem, par.Blocking(blockingLimit)); return nil }},
		{"par.ForErr+Blocking64", par.Default(), func() error { return par.ForErr(ctx, n, readErr, par.Blocking(blockingLimit)) }},
		{"wg", nil, func() error { peers.WaitGroupPerItem(n, f.Elem, nil); return nil }},
		{"chan64", nil, func() error { peers.ChanFanOut(blockingLimit, n, f.Elem); return nil }},
		{"errgroup64", nil, func() error { return peers.ErrgroupLimit(blockingLimit, n, f.Read) }},
	}
	for _, impl := range impls {
		b.Run("work=files/impl="+impl.name, func(b *testing.B) {
			var err error
			m := start(b, impl.pool)
			for range b.N {
				m.pause()
				f.Reset()
				m.resume()
				if e := impl.run(); e != nil && err == nil {
					err = e
				}
			}
			m.stop()
			check(b, err)
			check(b, f.Verify())
		})
	}

	w := workloads.UniformInto(uniformBuf()[:shortOr(workloads.UniformN, workloads.UniformN/10)])
	// cpuLoop times the CPU loop and returns its verification.
	cpuLoop := func(b *testing.B) error {
		w.Reset()
		m := start(b, par.Default())
		for range b.N {
			par.For(w.N, w.Elem)
		}
		m.stop()
		return w.Verify()
	}
	b.Run("work=cpu-alongside/impl=alone", func(b *testing.B) { check(b, cpuLoop(b)) })
	// with-files runs the 500-file loop with Blocking(64) on the default
	// pool, over and over, while the CPU loop is timed; with-chan64 runs the
	// hand-written chan64 fan-out instead, for the CPU time the file loop
	// takes whoever runs it (reads, sleeps and wake-ups).
	alongside := func(name string, files func()) {
		b.Run("work=cpu-alongside/impl="+name, func(b *testing.B) {
			stop := make(chan struct{})
			started := make(chan struct{})
			done := make(chan error, 1)
			loops := 0
			go func() {
				var err error
				for first := true; ; first = false {
					f.Reset()
					if first {
						close(started)
					}
					files()
					loops++
					if err == nil {
						err = f.Verify()
					}
					select {
					case <-stop:
						done <- err
						return
					default:
					}
				}
			}()
			<-started
			err := cpuLoop(b)
			close(stop)
			check(b, <-done) // the file loops, stopped before any b.Fatal
			check(b, err)
			b.ReportMetric(float64(loops), "file-loops")
		})
	}
	alongside("with-files", func() { par.For(n, f.Elem, par.Blocking(blockingLimit)) })
	alongside("with-chan64", func() { peers.ChanFanOut(blockingLimit, n, f.Elem) })
}

// BenchmarkLabels is the uniform loop (1M under -short) called inside
// pprof.Do with a label set, against the same call without labels: the
// labels should cost nothing measurable.
func BenchmarkLabels(b *testing.B) {
	w := workloads.UniformInto(uniformBuf()[:shortOr(workloads.UniformN, workloads.UniformN/10)])
	ctx := context.Background()
	labels := pprof.Labels("req", "x")
	runLoopOp(b, "impl=nolabels", w, par.Default(), func() { par.For(w.N, w.Elem) })
	runLoopOp(b, "impl=labels", w, par.Default(), func() {
		pprof.Do(ctx, labels, func(context.Context) { par.For(w.N, w.Elem) })
	})
}

// uts is the unbalanced tree of BenchmarkUTS (343,524 nodes; 22,343 under
// -short), utsWant its serial count.
var (
	uts = sync.OnceValue(func() *workloads.UTS {
		seed := uint64(workloads.UTSSeed)
		if testing.Short() {
			seed = workloads.UTSShortSeed
		}
		return workloads.NewUTS(workloads.UTSRootKids, seed, workloads.UTSWork, false)
	})
	utsWant = sync.OnceValue(func() workloads.UTSCount { t := uts(); return t.Seq(t.Root(), 0) })
)

func benchUTS(b *testing.B, t *workloads.UTS) {
	want := utsWant()
	for _, w := range peers.UTSWalks() {
		b.Run("peer="+w.Name, func(b *testing.B) {
			var got workloads.UTSCount
			bad := false
			m := start(b, poolFor(w.Parloop))
			for range b.N {
				got = w.Count(t)
				bad = bad || got != want
			}
			m.stop()
			if bad {
				b.Fatalf("tree walk: %+v (last run), want %+v", got, want)
			}
		})
	}
}

// BenchmarkUTS counts the nodes of a UTS-like geometric unbalanced tree
// (see workloads.UTS) with a parallel loop over every node's children,
// nested as deep as the tree: par.ReduceRange, par.For with atomic counters,
// par.BothOf forking the children in halves, and a goroutine per child above
// depth 3 (wg-cutoff). Goal: the nested For and ReduceRange walks >= 1.8×
// seq at 2 workers.
func BenchmarkUTS(b *testing.B) { benchUTS(b, uts()) }

// BenchmarkUTSAlloc is BenchmarkUTS with a small node struct allocated on
// the heap at every node, as walks of real trees do.
func BenchmarkUTSAlloc(b *testing.B) {
	t := *uts()
	t.Alloc = true
	benchUTS(b, &t)
}

// BenchmarkNestedSmall is the cost of a small nested loop: inside one body
// (a par.For of n=1 on the default pool), par.For(8, f) with a trivial f,
// against impl=base, the loop of 8 calls to the same func value. ns/op is
// per nested call; the goal is parloop − base <= 100 ns at GOMAXPROCS=1.
func BenchmarkNestedSmall(b *testing.B) {
	a := make([]int, 8)
	f := func(i int) { a[i]++ }
	sub := func(name string, inner func()) {
		b.Run("impl="+name, func(b *testing.B) {
			clear(a)
			m := start(b, par.Default())
			par.For(1, func(int) {
				for range b.N {
					inner()
				}
			})
			m.stop()
			for i, v := range a {
				if v != b.N {
					b.Fatalf("a[%d] = %d after %d nested loops", i, v, b.N)
				}
			}
		})
	}
	sub("base", func() { peers.SeqFunc(len(a), f, nil) })
	sub("parloop", func() { par.For(len(a), f) })
}

// BenchmarkLongFirstItem is 1,000 items whose first is half the work (20 ms
// of spinning, then 999 items of 20 µs): the rest of a piece behind a long
// grain (par/internal/cut). The best schedule on P workers takes max(20 ms,
// 40 ms/P); item-ns reports it. seq is the loop; static cuts n into
// GOMAXPROCS equal chunks (the first holds the long item); atomic-1 is
// GOMAXPROCS goroutines pulling one index at a time, which the long item
// cannot hold back. par.For-after-idle sleeps 20 ms (untimed) before each
// call, so that the pool's workers have parked when it starts.
func BenchmarkLongFirstItem(b *testing.B) {
	const n = 1000
	cost := func(i int) time.Duration {
		if i == 0 {
			return 20 * time.Millisecond
		}
		return 20 * time.Microsecond
	}
	body := func(i int) { spinFor(cost(i)) }
	run := func(name string, pool *par.Pool, loop func()) {
		b.Run("impl="+name, func(b *testing.B) {
			idle := strings.HasSuffix(name, "-after-idle")
			m := start(b, pool)
			for range b.N {
				if idle {
					b.StopTimer()
					time.Sleep(20 * time.Millisecond)
					b.StartTimer()
				}
				loop()
			}
			m.stop()
			procs := runtime.GOMAXPROCS(0)
			b.ReportMetric(float64(max(20*time.Millisecond, 40*time.Millisecond/time.Duration(procs))), "best-ns")
		})
	}
	run("seq", nil, func() {
		for i := range n {
			body(i)
		}
	})
	run("static", nil, func() {
		peers.Static(n, body, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				body(i)
			}
		})
	})
	run("atomic-1", nil, func() {
		var next atomic.Int64
		var wg sync.WaitGroup
		for range runtime.GOMAXPROCS(0) {
			wg.Go(func() {
				for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
					body(i)
				}
			})
		}
		wg.Wait()
	})
	run("par.For", par.Default(), func() { par.For(n, body) })
	run("par.For-after-idle", par.Default(), func() { par.For(n, body) })
}
