package iter

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"
)

// Hedge configures Hedged: straggler handling for a stage that does
// idempotent I/O (a fetch, a lookup). The zero Hedge does nothing.
type Hedge struct {
	// Timeout bounds each item: its context (shared by all its attempts)
	// is cancelled after Timeout, and the item fails with the attempt's
	// error (context.DeadlineExceeded, for an f that honours its context).
	// Zero means no timeout.
	Timeout time.Duration
	// After starts a backup attempt of an item that has run longer than
	// After. Zero means: use Quantile.
	After time.Duration
	// Quantile, in (0, 1), starts a backup attempt of an item that has run
	// longer than this quantile (0.95, say) of the durations of the items
	// that succeeded so far; no backup starts before 16 have. Used only when
	// After is zero; zero means no hedging.
	Quantile float64
}

// Hedged returns f wrapped for MapErr with h's straggler handling: a
// per-item timeout, and hedging, which starts one backup attempt of an item
// that runs too long. The first attempt to succeed wins and the other's
// context is cancelled; the item fails only if both fail (with the first
// error). The wrapper returns only after both attempts have returned, so f
// must honour its context for the loser to stop promptly. A panic in an
// attempt is raised again in the stage. With Blocking(n), at most 2n attempts
// run at once.
//
// It panics if f is nil, if a duration is negative, or if Quantile is
// outside [0, 1).
func Hedged[T, U any](f func(context.Context, T) (U, error), h Hedge) func(context.Context, T) (U, error) {
	if f == nil {
		panic("iter: Hedged called with a nil f")
	}
	if h.Timeout < 0 || h.After < 0 || h.Quantile < 0 || h.Quantile >= 1 {
		panic(fmt.Sprintf("iter: Hedged: %+v has a negative duration or a Quantile outside [0, 1)", h))
	}
	hedging := h.After > 0 || h.Quantile > 0
	var lat latencies
	return func(ctx context.Context, v T) (U, error) {
		if h.Timeout > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, h.Timeout)
			defer cancel()
		}
		if !hedging {
			return f(ctx, v)
		}
		delay := h.After
		if delay == 0 {
			var ok bool
			if delay, ok = lat.quantile(h.Quantile); !ok {
				start := time.Now()
				u, err := f(ctx, v)
				if err == nil {
					lat.add(time.Since(start))
				}
				return u, err
			}
		}
		return hedge(ctx, f, v, delay, &lat)
	}
}

// attempt is what one try of an item gave.
type attempt[U any] struct {
	u     U
	err   error
	panic any
	took  time.Duration
}

// hedge runs f(v) and, if it has not returned after delay, a second f(v),
// each on a goroutine of its own with its own context, and returns the
// first success. Both goroutines have returned when hedge returns: it
// receives exactly as many results as it started attempts.
func hedge[T, U any](ctx context.Context, f func(context.Context, T) (U, error), v T, delay time.Duration, lat *latencies) (U, error) {
	results := make(chan attempt[U], 2)
	var cancels []context.CancelFunc
	launch := func() {
		actx, cancel := context.WithCancel(ctx)
		cancels = append(cancels, cancel)
		go func() {
			start := time.Now()
			var a attempt[U]
			returned := false
			defer func() {
				if r := recover(); r != nil {
					a.panic = r
				} else if !returned {
					a.panic = "iter: runtime.Goexit in a Hedged attempt (it runs on a goroutine of its own)"
				}
				a.took = time.Since(start)
				results <- a
			}()
			a.u, a.err = f(actx, v)
			returned = true
		}()
	}
	launch()
	timer := time.NewTimer(delay)
	defer timer.Stop()
	running := 1
	var won *attempt[U]
	var failed []attempt[U]
	for running > 0 {
		select {
		case a := <-results:
			running--
			if won == nil && a.err == nil && a.panic == nil {
				won = &a
				for _, c := range cancels {
					c() // the loser, if any, stops; it is still waited for
				}
			} else if won == nil || a.panic != nil {
				failed = append(failed, a)
			}
		case <-timer.C:
			if won == nil && len(cancels) == 1 && len(failed) == 0 {
				launch()
				running++
			}
		}
	}
	for _, c := range cancels {
		c()
	}
	for _, a := range failed {
		if a.panic != nil {
			panic(a.panic)
		}
	}
	if won != nil {
		lat.add(won.took)
		return won.u, nil
	}
	return failed[0].u, failed[0].err
}

// latencies keeps the durations of the last successful items, for
// Hedge.Quantile.
type latencies struct {
	mu   sync.Mutex
	ring []time.Duration // the last len(ring) <= 256 durations
	next int
}

const latencyWindow, latencyMin = 256, 16

func (l *latencies) add(d time.Duration) {
	l.mu.Lock()
	if len(l.ring) < latencyWindow {
		l.ring = append(l.ring, d)
	} else {
		l.ring[l.next] = d
		l.next = (l.next + 1) % latencyWindow
	}
	l.mu.Unlock()
}

// quantile returns the q-quantile of the recorded durations, and false while
// there are too few to tell.
func (l *latencies) quantile(q float64) (time.Duration, bool) {
	l.mu.Lock()
	if len(l.ring) < latencyMin {
		l.mu.Unlock()
		return 0, false
	}
	s := slices.Clone(l.ring)
	l.mu.Unlock()
	slices.Sort(s)
	return s[min(int(q*float64(len(s))), len(s)-1)], true
}
