package par

// Saturation: whether the Go scheduler has more goroutines waiting for a P
// than there are Ps.
//
// When it has (64 goroutines each calling ForRange at once on 2 Ps, or a
// server whose goroutines keep every P busy), offering work costs and
// gains nothing: a thief can only run by taking a P from a goroutine that
// was waiting for it, and every CPU is busy already. So a piece does not
// split (worthSplitting), and an idle worker parks at once instead of
// spinning (slot.idle), which would hold a P that runnable goroutines
// need. With 64 callers at 2 Ps, spinning workers took 22% of the
// process's CPU and ForRange used 1.23x the CPU of the sequential loops.
//
// The answer comes from runtime/metrics (/sched/goroutines/runnable), which
// takes the scheduler's lock and costs about 0.4 µs on a worker, so it is
// read at most once per period, by whoever asks first after that, and the
// answer is reused in between. The period is saturationEvery (100 µs), or 50
// times what the last read cost if that is more, up to saturationMaxEvery
// (5 ms): reads cost at most 2% of one CPU. A read can cost far more than
// 0.4 µs: metrics.Read needs a deep stack, and on a new goroutine with a
// small one (64 callers, each a fresh goroutine) it first grows and copies
// that stack; with the scheduler's lock contended by goroutines starting and
// ending, reads took 5.9 µs on average there, 3% of the benchmark's CPU.
//
// Ordering: the answer is a hint, and so is the period. A reader may pair a
// new read time with the previous answer or period, or act on an answer up
// to one period (5 ms at most) old; the cost is one
// split or one spin made or skipped that the fresh answer would have
// decided otherwise, never a lost wake-up or a wrong result: a worker that
// parks instead of spinning still goes through the sleep protocol's
// re-check (sleep.go), and an unsplit piece runs on its owner.
//
// Pools wider than GOMAXPROCS (Workers(8) on 2 Ps, for bodies that block)
// do not consult it: their bodies wait rather than compute, and their
// spare workers exist to run while others wait.

import (
	"runtime/metrics"
	"sync"
	"sync/atomic"

	"github.com/parloop/parloop/par/internal/platform"
)

const (
	saturationEvery    = 100_000   // ns between reads of the metric, at least
	saturationMaxEvery = 5_000_000 // ns between reads, at most
	saturationCostX    = 50        // the period is at least this many times a read's cost
)

var saturation struct {
	at     atomic.Int64 // cputicks of the last read (0: never)
	every  atomic.Int64 // ticks between reads (0: saturationEvery)
	yes    atomic.Bool  // the last answer
	mu     sync.Mutex   // guards sample during a read
	sample [1]metrics.Sample
}

func init() {
	saturation.sample[0].Name = "/sched/goroutines/runnable:goroutines"
}

// saturated reports whether more goroutines than procs were waiting for a P
// at the last read, reading again first if that read is older than
// saturationEvery. now is the caller's cputicks.
func saturated(now int64, procs int) bool {
	at, every := saturation.at.Load(), saturation.every.Load()
	if every == 0 {
		every = platform.NsToTicks(saturationEvery)
	}
	if now-at < every || !saturation.at.CompareAndSwap(at, now) {
		return saturation.yes.Load()
	}
	saturation.mu.Lock()
	s := &saturation.sample[0]
	metrics.Read(saturation.sample[:])
	yes := s.Value.Kind() == metrics.KindUint64 && s.Value.Uint64() > uint64(procs)
	saturation.mu.Unlock()
	saturation.yes.Store(yes)
	cost := platform.Ticks() - now
	saturation.every.Store(min(max(saturationCostX*cost, platform.NsToTicks(saturationEvery)), platform.NsToTicks(saturationMaxEvery)))
	return yes
}

// saturatedHint is the last answer, without reading again however old it
// is: for a look that must cost next to nothing (plain.go).
func saturatedHint() bool { return saturation.yes.Load() }

// busyElsewhere reports whether layout l's pool should hold back from
// offering work or spinning because the Ps are saturated: only for pools no
// wider than GOMAXPROCS (see above).
func (l *layout) busyElsewhere(now int64) bool {
	return !l.wide() && !l.noSat && saturated(now, l.procs)
}

// wide reports whether the pool has more workers than GOMAXPROCS (a pool
// for bodies that block): such a pool ignores saturation, and its unlocked
// spinners yield (sleep.go).
func (l *layout) wide() bool { return l.active > l.procs }
