package par

import (
	"slices"
	"time"

	"github.com/parloop/parloop/par/internal/platform"
	"golang.org/x/exp/stats"
)

func (c *slotStats) snapshot() WorkerStats {
	return WorkerStats{
		Pieces:       c.pieces.Load(),
		Steals:       c.steals.Load(),
		FailedSteals: c.failedSteals.Load(),
		Splits:       c.splits.Load(),
		Busy:         time.Duration(c.busyNs.Load()),
		Idle:         time.Duration(c.idleNs.Load()),
	}
}

func (c *slotStats) reset() {
	c.pieces.Store(0)
	c.steals.Store(0)
	c.failedSteals.Store(0)
	c.splits.Store(0)
	c.busyNs.Store(0)
	c.idleNs.Store(0)
}

// Stats returns a snapshot of the pool's counters since it started or the
// last ResetStats. A snapshot taken mid-call is approximate.
func (p *Pool) Stats() Stats {
	l := p.init()
	st := Stats{
		Wall:    time.Duration(platform.Nanotime() - p.statsFrom.Load()),
		Callers: p.callerStats.snapshot(),
	}
	calls, busyNs := p.crowdCounts.sum() // crowded calls: a piece each
	st.Callers.Pieces += calls
	st.Callers.Busy += time.Duration(busyNs)
	var busy []float64 // ns per participant
	var total time.Duration
	var pieces, steals int64
	for _, s := range l.workers[:l.active] {
		w := s.stats.snapshot()
		st.Workers = append(st.Workers, w)
		busy = append(busy, float64(w.Busy))
		total += w.Busy
		pieces += w.Pieces
		steals += w.Steals
	}
	pieces += st.Callers.Pieces
	if st.Callers.Busy > 0 {
		busy = append(busy, float64(st.Callers.Busy))
		total += st.Callers.Busy
	}
	if n := len(busy); n > 0 && total > 0 {
		// golang.org/x/exp/stats: Stats is off the scheduling path.
		longest := slices.Max(busy)
		st.Imbalance = longest / stats.Mean(busy)
		if median := stats.Median(busy); median > 0 {
			st.Straggler = longest / median
		}
		if st.Wall > 0 {
			st.Utilization = float64(total) / (float64(n) * float64(st.Wall))
		}
	}
	if pieces > 0 {
		st.StealRate = float64(steals) / float64(pieces)
	}
	return st
}

// ResetStats zeroes the pool's counters and restarts the wall clock.
func (p *Pool) ResetStats() {
	for _, s := range p.init().workers {
		s.stats.reset()
	}
	p.callerStats.reset()
	p.crowdCounts.reset()
	p.statsFrom.Store(platform.Nanotime())
}
