package par

import (
	"time"

	"github.com/parloop/parloop/par/internal/counters"
	"github.com/parloop/parloop/par/internal/platform"
)

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
		Wall:    time.Duration(platform.Nanotime() - p.statsFrom.Load()),
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

// ResetStats zeroes the pool's counters and restarts the wall clock.
func (p *Pool) ResetStats() {
	for _, s := range p.init().workers {
		s.stats.Reset()
	}
	p.callerStats.Reset()
	p.crowdCounts.Reset()
	p.statsFrom.Store(platform.Nanotime())
}
