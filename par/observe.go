package par

import (
	"context"
	"fmt"
	"runtime/trace"
	"strings"
	"sync/atomic"
	"time"

	"github.com/parloop/parloop/par/internal/counters"
	"github.com/parloop/parloop/par/internal/platform"
	"github.com/parloop/parloop/par/internal/tracing"
)

// Observing calls and pools: Progress counters, added to after each grain,
// and runtime/trace's tasks and regions (internal/tracing says which), at a
// nil test per grain when unused; a pool's Stats, from its seats' counters
// (internal/counters).

// Progress counts the done items of the calls given it with Track, out of
// their total, for any goroutine to read while they run. The zero value is
// ready to use; one Progress may follow several calls, even at once.
type Progress struct {
	done, total atomic.Int64
}

// Done returns the number of items done so far: For, Map and ForErr
// bodies that returned, and for ForRange, Reduce, ReduceRange and Fold the
// items of the grains that finished.
func (p *Progress) Done() int64 { return p.done.Load() }

// Total returns the number of items of the tracked calls, counted as each
// starts.
func (p *Progress) Total() int64 { return p.total.Load() }

// Track reports the call's progress to p: Total grows by n when the call
// starts, and Done as items finish (after each grain of about 2 µs; per
// item with Blocking). It panics if p is nil.
func Track(p *Progress) Option {
	if p == nil {
		panic("par: Track(nil): no Progress given")
	}
	return Option{progress: p}
}

// traced is a call's trace state: nil Ctx if it started untraced.
type traced struct{ tracing.Call }

// startTrace makes the call on slot s (nil: none) a trace task, under the
// verb's context parent (or nil), if tracing (tc.Ctx is then set).
// The check inlines; the rest's frame would grow a fresh goroutine's stack
// even with tracing off.
func (tc *traced) startTrace(verb string, n int, s *slot, parent context.Context) {
	if trace.IsEnabled() {
		tc.startTask(verb, n, s, parent)
	}
}

// startTask is startTrace with tracing on, in s's call tree.
//
//go:noinline
func (tc *traced) startTask(verb string, n int, s *slot, parent context.Context) {
	var tree uint64
	if s != nil {
		tree = s.tree
	}
	tc.Start(verb, n, tree, parent)
}

// WorkerStats are the counters of one worker, or of the callers.
type WorkerStats struct {
	// Pieces counts range pieces and forked tasks run (forks run inline
	// are added when the task they ran in finishes).
	Pieces int64
	// Steals counts tasks taken from another worker's or caller's deque.
	Steals int64
	// FailedSteals counts steal attempts that found nothing or lost a race.
	FailedSteals int64
	// Splits counts ranges split in half to offer work.
	Splits int64
	// Busy is the time a worker spent running the tasks it took, added
	// when it runs out of work and every 64 pieces, or the time the callers
	// spent in their calls from outside the pool.
	Busy time.Duration
	// Idle is the time spent parked, waiting for work.
	Idle time.Duration
}

// Total is the sum of the workers' and the callers' counters.
func (s Stats) Total() WorkerStats {
	t := s.Callers
	for _, w := range s.Workers {
		t.Pieces += w.Pieces
		t.Steals += w.Steals
		t.FailedSteals += w.FailedSteals
		t.Splits += w.Splits
		t.Busy += w.Busy
		t.Idle += w.Idle
	}
	return t
}

// Stats is a snapshot of a pool's counters with the figures derived from
// them, which count the callers as one more participant next to the
// workers: a pool of parallelism P runs P-1 workers, and the caller is the
// P-th.
type Stats struct {
	Workers []WorkerStats // one entry per worker thread
	Callers WorkerStats   // work done by goroutines that called a verb from outside the pool

	// Imbalance is the largest busy time over the participants' mean busy
	// time: 1 when all were busy equally long, 2 when the busiest worked
	// twice the average. The usual target is below 1.2.
	Imbalance float64
	// Straggler is the largest busy time over the median (of an even
	// count, the mean of the middle two), as cmd/parloop-trace reports per
	// call: how far the slowest participant lagged (usual target: below 2).
	Straggler float64
	// Utilization is the participants' total busy time over their number
	// times Wall: the share of the pool's capacity that ran work, near 1
	// only while calls keep every participant busy.
	Utilization float64
	// StealRate is steals per piece run: 0 when every piece ran where it
	// was split off.
	StealRate float64
	// Wall is the time since the counters were last reset.
	Wall time.Duration
}

// String renders the snapshot as a table: the derived figures, then a line
// per worker and one for the callers.
func (s Stats) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "pool stats over %v: imbalance %.2f, straggler %.2f, utilization %.0f%%, steal rate %.3f\n",
		s.Wall.Round(time.Microsecond), s.Imbalance, s.Straggler, 100*s.Utilization, s.StealRate)
	fmt.Fprintf(&b, "  %-9s %10s %8s %13s %8s %12s %12s\n", "", "pieces", "steals", "failed steals", "splits", "busy", "idle")
	row := func(name string, w WorkerStats) {
		fmt.Fprintf(&b, "  %-9s %10d %8d %13d %8d %12v %12v\n", name, w.Pieces, w.Steals, w.FailedSteals, w.Splits,
			w.Busy.Round(time.Microsecond), w.Idle.Round(time.Microsecond))
	}
	for i, w := range s.Workers {
		row(fmt.Sprintf("worker %d", i), w)
	}
	row("callers", s.Callers)
	return b.String()
}

// snapshot reads seat counters c into a WorkerStats.
func snapshot(c *counters.Seat) WorkerStats {
	return WorkerStats{
		Pieces:       c.Pieces.Load(),
		Steals:       c.Steals.Load(),
		FailedSteals: c.FailedSteals.Load(),
		Splits:       c.Splits.Load(),
		Busy:         time.Duration(c.BusyNs.Load()),
		Idle:         time.Duration(c.IdleNs.Load()),
	}
}

// Stats returns a snapshot of the pool's counters since it started or the
// last ResetStats. A snapshot taken mid-call is approximate.
func (p *Pool) Stats() Stats {
	l := p.init()
	st := Stats{
		Wall:    time.Duration(platform.TicksToNs(counters.Since(0, &p.statsFrom))),
		Callers: snapshot(&p.callerStats),
	}
	calls, busyNs := p.crowdCounts.Sum() // crowded calls: a piece each
	st.Callers.Pieces += calls
	st.Callers.Busy += time.Duration(busyNs)
	var busy []int64 // ns per participant: the workers, and the callers if they ran any
	var pieces, steals int64
	for _, s := range l.workers[:l.active] {
		w := snapshot(s.stats)
		st.Workers = append(st.Workers, w)
		busy = append(busy, int64(w.Busy))
		pieces += w.Pieces
		steals += w.Steals
	}
	pieces += st.Callers.Pieces
	if st.Callers.Busy > 0 {
		busy = append(busy, int64(st.Callers.Busy))
	}
	sum := counters.Summarize(busy, int64(st.Wall), pieces, steals)
	st.Imbalance, st.Straggler, st.Utilization, st.StealRate = sum.Imbalance, sum.Straggler, sum.Utilization, sum.StealRate
	return st
}

// ResetStats zeroes the pool's counters and restarts the wall clock; a
// worker parked or busy at the reset counts its time from it.
func (p *Pool) ResetStats() {
	for _, s := range p.init().workers {
		s.stats.Reset()
	}
	p.callerStats.Reset()
	p.crowdCounts.Reset()
	p.statsFrom.Store(platform.Ticks())
}
