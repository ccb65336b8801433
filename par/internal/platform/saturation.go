package platform

import (
	"runtime/metrics"
	"sync"
	"sync/atomic"
)

// Whether the Go scheduler has more goroutines waiting for a P than there
// are Ps, from runtime/metrics (/sched/goroutines/runnable). A read takes
// the scheduler's lock (and on a fresh goroutine grows its stack first), so
// the answer is read at most once per period, by whoever asks first after
// it, and reused in between. The period is saturationEvery, or
// saturationCostX times what the last read cost if that is more, up to
// saturationMaxEvery. The answer and the period are hints: a reader may act
// on an answer up to one period old.

const (
	saturationEvery    = 100_000   // ns between reads of the metric, at least
	saturationMaxEvery = 5_000_000 // ns between reads, at most
	saturationCostX    = 50        // the period is at least this many times a read's cost
)

var saturation struct {
	at     atomic.Int64 // Ticks of the last read (0: never)
	every  atomic.Int64 // ticks between reads (0: saturationEvery)
	yes    atomic.Bool  // the last answer
	mu     sync.Mutex   // guards sample during a read
	sample [1]metrics.Sample
}

func init() {
	saturation.sample[0].Name = "/sched/goroutines/runnable:goroutines"
}

// Saturated reports whether more goroutines than procs were waiting for a
// P at the last read, reading again first if that read is older than the
// period. now is the caller's Ticks.
func Saturated(now int64, procs int) bool {
	at, every := saturation.at.Load(), saturation.every.Load()
	if every == 0 {
		every = NsToTicks(saturationEvery)
	}
	if now-at < every || !saturation.at.CompareAndSwap(at, now) {
		return saturation.yes.Load()
	}
	saturation.mu.Lock()
	s := &saturation.sample[0]
	metrics.Read(saturation.sample[:])
	yes := s.Value.Kind() == metrics.KindUint64 && s.Value.Uint64() > uint64(procs)
	if saturation.at.Load() != now { // FixSaturation (or a later read) moved the date: its answer stands
		saturation.mu.Unlock()
		return saturation.yes.Load()
	}
	saturation.yes.Store(yes) // under mu, so that FixSaturation's answer comes after any read's
	saturation.mu.Unlock()
	cost := Ticks() - now
	saturation.every.Store(min(max(saturationCostX*cost, NsToTicks(saturationEvery)), NsToTicks(saturationMaxEvery)))
	return yes
}

// SaturatedHint is the last answer, without reading again however old it
// is: for a look that must cost next to nothing.
func SaturatedHint() bool { return saturation.yes.Load() }

// FixSaturation makes the answer yes until restore is called: the last read
// is dated in the far future, so nobody reads again. For tests, which must
// not run in parallel with others meanwhile.
func FixSaturation(yes bool) (restore func()) {
	saturation.mu.Lock()
	saturation.yes.Store(yes)
	saturation.at.Store(1 << 62)
	saturation.mu.Unlock()
	return func() { saturation.at.Store(0) }
}
