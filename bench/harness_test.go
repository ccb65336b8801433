package bench

import (
	"fmt"
	"math"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/parloop/parloop/bench/peers"
	"github.com/parloop/parloop/bench/workloads"
	"github.com/parloop/parloop/par"
)

// meter wraps the timed loop of one sub-benchmark: it reports allocations,
// process CPU time per op (which shows spinning that wall time hides) and,
// for a parloop peer, the scheduler metrics of its pool.
type meter struct {
	b      *testing.B
	pool   *par.Pool
	cpu    time.Duration // CPU time accumulated while running
	cpuAt  time.Duration // CPU clock at the last resume
	paused bool
}

// start resets the pool's stats and the benchmark timer. pool is nil for a
// peer that is not parloop.
func start(b *testing.B, pool *par.Pool) *meter {
	b.ReportAllocs()
	if pool != nil {
		warm(pool)
		pool.ResetStats()
	}
	m := &meter{b: b, pool: pool}
	b.ResetTimer()
	m.cpuAt = cpuTime()
	return m
}

// warm runs a little parallel work on p so that its workers have started
// (threads created, locked, pinned) before the timer does: the suite
// measures loops on a running pool, not a pool's start.
func warm(p *par.Pool) {
	sink := make([]uint64, 256)
	par.For(len(sink), func(i int) {
		x := uint64(i)
		for range 2000 {
			x = x*0x9e3779b97f4a7c15 + 1
		}
		sink[i] = x
	}, par.On(p))
	par.Join(func() {}, func() {}, par.On(p))
}

// pause stops the clocks around untimed per-op preparation.
func (m *meter) pause() {
	m.b.StopTimer()
	m.cpu += cpuTime() - m.cpuAt
	m.paused = true
}

func (m *meter) resume() {
	m.paused = false
	m.cpuAt = cpuTime()
	m.b.StartTimer()
}

// stop ends the timed region and reports the metrics.
func (m *meter) stop() {
	var s par.Stats
	if m.pool != nil {
		s = m.pool.Stats()
	}
	if !m.paused {
		m.b.StopTimer()
		m.cpu += cpuTime() - m.cpuAt
	}
	n := float64(m.b.N)
	if m.cpu > 0 {
		m.b.ReportMetric(float64(m.cpu.Nanoseconds())/n, "cpu-ns/op")
	}
	if m.pool != nil {
		reportStats(m.b, s)
	}
}

// reportStats turns a stats snapshot into benchmark metrics. Per-op counts
// are divided by b.N; ratios are reported as they are.
func reportStats(b *testing.B, s par.Stats) {
	n := float64(b.N)
	metric := func(v float64, unit string) {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			b.ReportMetric(v, unit)
		}
	}
	metric(s.Imbalance, "imbalance")
	metric(s.Straggler, "straggler")
	metric(s.Utilization, "util")
	metric(s.StealRate, "stealrate")
	var pieces, steals, failed, splits int64
	var idle time.Duration
	for i, w := range s.Workers {
		pieces += w.Pieces
		steals += w.Steals
		failed += w.FailedSteals
		splits += w.Splits
		idle += w.Idle
		metric(float64(w.Pieces)/n, fmt.Sprintf("w%d-pieces/op", i))
		metric(float64(w.Steals)/n, fmt.Sprintf("w%d-steals/op", i))
	}
	metric(float64(s.Callers.Pieces)/n, "caller-pieces/op")
	metric(float64(pieces)/n, "pieces/op")
	metric(float64(steals)/n, "steals/op")
	metric(float64(failed)/n, "failsteals/op")
	metric(float64(splits)/n, "splits/op")
	metric(float64(idle.Nanoseconds())/n, "idle-ns/op")
}

func check(b *testing.B, err error) {
	b.Helper()
	if err != nil {
		b.Fatal(err)
	}
}

// poolFor is the pool whose stats a peer's run shows: the default pool for
// parloop peers, none for the others.
func poolFor(parloop bool) *par.Pool {
	if parloop {
		return par.Default()
	}
	return nil
}

// benchLoop runs a loop workload through seq (the plain loop) and every loop
// peer, verifying each.
func benchLoop(b *testing.B, w *workloads.Loop, perItem bool) {
	runLoopOp(b, "peer=seq", w, nil, w.Plain)
	for _, p := range peers.Loops(perItem) {
		b.Run("peer="+p.Name, func(b *testing.B) {
			run, _, closePeer := p.Open()
			defer closePeer()
			w.Reset()
			m := start(b, poolFor(p.Parloop))
			for range b.N {
				run(w.N, w.Elem, w.Range)
			}
			m.stop()
			check(b, w.Verify())
		})
	}
}

// forkWork is a recursive workload for benchFork.
type forkWork struct {
	prepare func()                       // untimed, before every op (may be nil)
	plain   func()                       // the plain serial recursion
	joined  func(workloads.Joiner, bool) // the recursion through a joiner; true: the hand-tuned cutoff
	verify  func() error
	extra   []namedFunc // more parloop variants
	skip    []string    // fork peers left out
}

type namedFunc struct {
	name string
	f    func()
}

func (w *forkWork) op(m *meter, f func()) {
	if w.prepare != nil {
		m.pause()
		w.prepare()
		m.resume()
	}
	f()
}

// benchFork runs a recursive workload through seq and every fork peer.
func benchFork(b *testing.B, w *forkWork) {
	sub := func(name string, pool *par.Pool, f func()) {
		b.Run("peer="+name, func(b *testing.B) {
			m := start(b, pool)
			for range b.N {
				w.op(m, f)
			}
			m.stop()
			check(b, w.verify())
		})
	}
	sub("seq", nil, w.plain)
	for _, p := range peers.Forks() {
		if slices.Contains(w.skip, p.Name) {
			continue
		}
		b.Run("peer="+p.Name, func(b *testing.B) {
			join, closePeer := p.Open()
			defer closePeer()
			m := start(b, poolFor(p.Parloop))
			for range b.N {
				w.op(m, func() { w.joined(join, p.HandCutoff) })
			}
			m.stop()
			check(b, w.verify())
		})
	}
	for _, e := range w.extra {
		sub(e.name, par.Default(), e.f)
	}
}

// shortOr is full, or short under -short. The quick report runs with -short
// to stay within its time budget: the heaviest workloads shrink (mandelbrot
// 512x512, quicksort 1M, skewed costs / 4, tree 500 root children) and the
// per-fork goroutine peers leave fib(30). The full run and CI use the sizes
// of the issue.
func shortOr(full, short int) int {
	if testing.Short() {
		return short
	}
	return full
}

// Shared inputs, made once per process: the big ones would otherwise be
// allocated again for every -count repetition.
var (
	uniformBuf = sync.OnceValue(func() []float64 { return make([]float64, workloads.UniformN) })
	mandel     = sync.OnceValue(func() *workloads.Mandel {
		n := shortOr(workloads.MandelSize, workloads.MandelSize/2)
		return workloads.NewMandel(n, n, workloads.MandelMaxIter)
	})
	skewed = sync.OnceValue(func() *workloads.Skewed {
		return workloads.NewSkewed(workloads.SkewedN, workloads.SkewedAlpha, shortOr(workloads.SkewedMin, workloads.SkewedMin/4))
	})
	tree = sync.OnceValue(func() *workloads.Tree {
		return workloads.NewTree(shortOr(workloads.TreeRootKids, 500), workloads.TreeM, workloads.TreeQ, workloads.TreeWork, workloads.TreeSeed)
	})
)

// reproLog appends "name GOMAXPROCS bits" lines to the file named by
// PARLOOP_BENCH_REPRO, so that the report can tell whether a reduction is
// bitwise the same across runs and worker counts.
func reproLog(name string, procs int, sums []float64) {
	path := os.Getenv("PARLOOP_BENCH_REPRO")
	if path == "" {
		return
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return
	}
	defer f.Close()
	slices.Sort(sums)
	for _, s := range slices.Compact(sums) {
		fmt.Fprintf(f, "%s\t%d\t%016x\n", name, procs, math.Float64bits(s))
	}
}
