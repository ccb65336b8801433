package par

// Saturation: whether the Go scheduler has more goroutines waiting for a P
// than there are Ps (64 goroutines calling ForRange at once on 2 Ps, or a
// server keeping every P busy). Then offering work gains nothing, since a
// thief could only run by taking a P from a goroutine waiting for it: a
// piece does not split (offer.go), an idle worker parks without spinning
// (worker.go), and a call from outside may run crowded (plain.go).
//
// The answer comes from runtime/metrics (/sched/goroutines/runnable), which
// takes the scheduler's lock, so it is read at most once per period by
// whoever asks first, and reused in between. The period is saturationEvery,
// or saturationCostX times what the last read cost if that is more (a read
// on a fresh goroutine grows its stack first), up to saturationMaxEvery.
//
// Ordering: the answer and the period are hints. A reader may act on an
// answer up to one period old; the cost is one split or spin made or
// skipped that a fresh answer would have decided otherwise, never a lost
// wake-up (a worker that parks still re-checks, sleep.go) or a wrong
// result. Pools wider than GOMAXPROCS (bodies that block) do not consult
// it: their spare workers exist to run while others wait.

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
