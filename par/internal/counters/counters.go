// Package counters holds par's statistics: the counters of each seat behind
// par.WorkerStats, the sharded counters of crowded calls, and the figures
// Pool.Stats derives from them.
//
// The counters are written on the scheduling paths, each update a single
// atomic add on a field, and read by Stats concurrently: a snapshot taken
// while calls run is approximate, each counter exact but not all taken at
// the same instant. Reset stores zeros the same way.
package counters

import (
	"slices"
	"sync/atomic"

	"github.com/parloop/parloop/par/internal/platform"

	"golang.org/x/exp/stats"
	"golang.org/x/sys/cpu"
)

// Seat holds the counters behind one par.WorkerStats: a worker's own,
// written by the worker, or its pool's callers', written by the guest seats
// held for the pool. The pads keep them off the cache lines of the fields
// around them.
type Seat struct {
	_                                    cpu.CacheLinePad
	Pieces, Steals, FailedSteals, Splits atomic.Int64
	BusyNs, IdleNs                       atomic.Int64
	_                                    cpu.CacheLinePad
}

// Reset zeroes the counters.
func (c *Seat) Reset() {
	c.Pieces.Store(0)
	c.Steals.Store(0)
	c.FailedSteals.Store(0)
	c.Splits.Store(0)
	c.BusyNs.Store(0)
	c.IdleNs.Store(0)
}

// Since is Between t0 and now.
func Since(t0 int64, from *atomic.Int64) int64 { return Between(t0, platform.Ticks(), from) }

// Between is the ticks (platform.Ticks) from t0, or from *from if later,
// to t1: with from the ticks of the pool's last reset, a park or a busy
// stretch under way at the reset counts from it.
func Between(t0, t1 int64, from *atomic.Int64) int64 { return max(t1-max(t0, from.Load()), 0) }

// Shards is the number of shards of Calls.
const Shards = 16

// Calls counts calls and their busy time, from any number of goroutines at
// once: each adds to the shard its goroutine key picks, one shard per cache
// line, so that concurrent callers seldom write the same line.
type Calls [Shards]struct {
	calls, busyNs atomic.Int64
	_             [48]byte
}

// Add counts one call of busyNs ns, made by the goroutine with key k, in
// the shard k picks.
func (c *Calls) Add(k uintptr, busyNs int64) {
	sh := &c[uint64(k)*0x9e3779b97f4a7c15>>60%Shards]
	sh.calls.Add(1)
	sh.busyNs.Add(busyNs)
}

// Sum returns the calls counted and their busy time in ns.
func (c *Calls) Sum() (calls, busyNs int64) {
	for i := range c {
		calls += c[i].calls.Load()
		busyNs += c[i].busyNs.Load()
	}
	return calls, busyNs
}

// Reset zeroes the counts.
func (c *Calls) Reset() {
	for i := range c {
		c[i].calls.Store(0)
		c[i].busyNs.Store(0)
	}
}

// Summary holds the figures derived from a pool's counters; par.Stats
// documents each.
type Summary struct {
	Imbalance, Straggler, Utilization, StealRate float64
}

// Summarize derives the figures from the participants' busy times in ns
// (one entry per participant), the wall time in ns they ran over, and the
// pieces run and steals made meanwhile:
//
//	Imbalance   = longest / mean busy time
//	Straggler   = longest / median busy time (of an even count, the mean
//	              of the middle two)
//	Utilization = total busy time / (participants × wall)
//	StealRate   = steals / pieces
//
// A figure whose divisor is 0 (no participant, no busy time, a median of
// 0, no wall time, no piece) is 0. It uses golang.org/x/exp/stats, the
// reference the balance metrics are defined by elsewhere (cmd/parloop-trace):
// Stats is off the scheduling path.
func Summarize(busyNs []int64, wallNs, pieces, steals int64) Summary {
	var s Summary
	var total int64
	busy := make([]float64, len(busyNs))
	for i, b := range busyNs {
		busy[i] = float64(b)
		total += b
	}
	if n := len(busy); n > 0 && total > 0 {
		longest := slices.Max(busy)
		s.Imbalance = longest / stats.Mean(busy)
		if median := stats.Median(busy); median > 0 {
			s.Straggler = longest / median
		}
		if wallNs > 0 {
			s.Utilization = float64(total) / (float64(n) * float64(wallNs))
		}
	}
	if pieces > 0 {
		s.StealRate = float64(steals) / float64(pieces)
	}
	return s
}
