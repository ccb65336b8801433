package par

// Plain runs: a call run as a loop on its caller, with no frame, no task
// and no clock per grain (route.go says when), in one go when nothing could
// take a part of it, or, for a crowded call, in doubling chunks until it
// hands the rest to a framed run (par/internal/crowd). (A nested call on a
// slot that offers work is run plainly by its verb: route.go's direct.)
//
// Crowded calls: from outside the pool, on the default pool, while the Ps
// are saturated (pool.go). Never crowded: calls on another pool
// (with no seat, its bodies' nested calls could not find it), from a seat,
// with Track or Weighted, or while tracing, and pools wider than
// GOMAXPROCS. A crowded call is one of the callers' pieces in Stats.

import (
	"runtime/trace"

	"github.com/parloop/parloop/par/internal/crowd"
	"github.com/parloop/parloop/par/internal/platform"
)

// runPlain is plainCall's run in chunks, c holding the chunk running: of
// the Grain hint (at least 1), doubling, while the crowd (cw) stays; for
// Track alone, of 256 indices of a per-index body (else the whole range),
// so that the count moves as the run does.
func runPlain[T any](b *job[T], sp *spec, cw *crowdWatch, lo, n int, c *catcher) (next int, acc T, have bool, err error) {
	size := n - lo
	if cw != nil {
		size = max(sp.grain, 1)
	} else if sp.progress != nil && b.each != nil {
		size = 256 // Track counts per chunk, not per item
	}
	for lo < n {
		hi := lo + min(size, n-lo)
		c.lo, c.hi = lo, hi
		v, err := b.run(lo, hi, nil)
		if sp.progress != nil {
			sp.progress.Add(int64(hi - lo))
		}
		if b.combine != nil {
			if have {
				c.lo, c.hi = -1, -1 // a panic in combine is outside the bodies
				acc = b.combine(acc, v)
			} else {
				acc, have = v, true
			}
		}
		if err != nil {
			return n, acc, have, b.settle(err)
		}
		lo = hi
		if lo < n && cw != nil && !cw.still(lo, &size) {
			break
		}
	}
	return lo, acc, have, nil
}

// settle is a plain run's outcome of a body's error: a done context
// (errCtxDone) only ends the run; another error cancels the bodies'
// context and is the call's.
func (b *job[T]) settle(err error) error {
	switch {
	case err == nil:
	case err == errCtxDone:
		err = nil
	default:
		b.cancel()
	}
	return err
}

// crowdedPool returns the pool a call with spec sp runs on if it is
// crowded, and the tick it read; else nil. route calls it only for a
// caller with no seat, when the last answer said saturated. Reading the
// clock refreshes an old answer and follows GOMAXPROCS, which the seatless
// path never checks.
func crowdedPool(sp *spec) (*Pool, int64) {
	if sp.progress != nil || sp.prefix != nil || trace.IsEnabled() {
		return nil, 0
	}
	p := Default()
	if sp.pool != nil && sp.pool != p {
		return nil, 0
	}
	// p.exp is written when the pool starts, before it publishes a layout
	// with workers (the layout init makes first has none): read it only
	// after seeing one.
	l := p.layout.Load()
	if l == nil || l.active == 0 || p.exp.NoCrowd || l.wide() || p.closed.Load() {
		return nil, 0
	}
	now := platform.Ticks()
	p.maybeResizeAt(now)
	if !platform.Saturated(now, l.procs) {
		return nil, 0
	}
	return p, now
}

// crowdWatch watches a crowded call between its chunks (par/internal/crowd).
type crowdWatch struct {
	crowd.Watch
	p     *Pool
	start int64 // ticks at the call's start
}

// still reports whether the call is still crowded after ran indices, and
// sizes its next chunk.
func (w *crowdWatch) still(ran int, size *int) bool {
	if now, clocked := w.Look(ran); clocked {
		l := w.p.layout.Load()
		if l.wide() || !platform.Saturated(now, l.procs) {
			return false
		}
	} else if !platform.SaturatedHint() {
		return false
	}
	*size = w.Next(*size)
	return true
}

// done counts the crowded part of the call in its goroutine's shard.
func (w *crowdWatch) done() {
	w.p.crowdCounts.Add(platform.GoroutineKey(), platform.TicksToNs(platform.Ticks()-w.start))
}
