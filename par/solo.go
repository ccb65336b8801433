package par

// Solo calls: a range or reduce call that runs as a loop on its caller,
// with no frame, no task and no clock. Four kinds (split.go and crowd.go
// say when each applies): at parallelism 1 or with no seat (runSolo,
// reduceSolo, the whole range at once); a plain nested call on a slot
// whose deque already offers work (watch: chunks of 1, 2, 4, ... indices,
// the rest handed to a parallel call once a thief has emptied the deque);
// and a crowded call from outside the pool (runCrowded, the same chunks
// while the Ps stay saturated). Every chunk schedule starts at the Grain
// hint. A body's panic is wrapped and re-raised as on the parallel path; a
// Goexit goes on, nothing else being in flight.

import "context"

// runSolo runs a range call at parallelism 1 (or with no seat: a closed
// pool, or every guest seat taken): one loop on the caller over [lo, n),
// with no frame, no task and no clock, since nothing can be offered to
// anybody. A panic is wrapped and re-raised as the parallel path does; a
// Goexit simply goes on, nothing else being in flight. s, if not nil, is
// the caller's seat, released here if guest.
//
// It also runs plain nested calls (watch set, split.go): then For, Map and
// ForErr look at s's deque before each iteration and, once it is empty,
// return the index of the first iteration not run, for the caller to run
// the rest as a parallel call. Otherwise next is n.
func runSolo(verb string, s *slot, guest bool, lo, n int, c *callConfig, b *rangeBody, watch bool) (next int, err error) {
	sc := beginSolo(verb, s, guest, n-lo, b.ctx)
	defer sc.end()
	next = n
	switch {
	case b.r != nil && watch:
		// Chunks of 1, 2, 4, ... indices (g, 2g, 4g, ... with Grain(g)),
		// looking at the deque between them: a thief that empties it
		// waits at most about as long as the call has run so far.
		for size := max(c.grain, 1); lo < n; size = nextChunk(size) {
			if lo > 0 && s.dq.Len() == 0 {
				next = lo
				break
			}
			hi := lo + min(size, n-lo)
			b.r(lo, hi)
			lo = hi
		}
	case b.r != nil:
		b.r(lo, n)
		if c.progress != nil {
			c.progress.done.Add(int64(n - lo))
		}
	case b.i != nil && watch:
		for i := lo; i < n; i++ {
			if s.dq.Len() == 0 {
				next = i
				break
			}
			b.i(i)
		}
	case b.i != nil && c.progress != nil:
		// Count in chunks, as grains do elsewhere, not an atomic add per item.
		const chunk = 256
		for ; lo < n; lo += chunk {
			hi := lo + min(chunk, n-lo)
			for i := lo; i < hi; i++ {
				b.i(i)
			}
			c.progress.done.Add(int64(hi - lo))
		}
	case b.i != nil:
		for i := lo; i < n; i++ {
			b.i(i)
		}
	default:
		next, err = runErrSolo(s, lo, n, c, b, watch, nil)
	}
	sc.returned = true
	return next, err
}

// runCrowded runs a crowded call (crowd.go) over [0, n) on pool p, crowded
// since tick now, and counts it in p's stats; it returns the first index
// not run, for the caller to run the rest as a parallel call, as runSolo
// does for a plain nested call. It does runSolo's work for such a call
// (no trace task and no seat: crowded calls have neither, so soloCall's end
// only wraps a panic) with a frame of its own, leaner than runSolo's: on a fresh goroutine's 2 KB stack, the
// path through runSolo made the runtime grow and copy the stack at every
// call of 512 callers (pprof: 4% of the time).
//
//go:noinline
func runCrowded(p *Pool, now int64, n int, c *callConfig, b *rangeBody) (next int, err error) {
	w := newCrowdWatch(p, c.grain, now)
	var sc soloCall // no trace task (crowded calls are off while tracing) and no seat
	defer sc.end()
	switch {
	case b.r != nil:
		next = w.run(0, n, b.r)
	case b.i != nil:
		body := b.i
		next = w.run(0, n, func(lo, hi int) { eachIndex(body, lo, hi) })
	default:
		next, err = runErrSolo(nil, 0, n, c, b, false, &w)
	}
	sc.returned = true
	w.done()
	return next, err
}

// runErrSolo is runSolo's loop for ForErr (and MapErr): the context looked
// at before each item, the first error cancelling it. A function of its
// own, to keep runSolo's frame small (see runCrowded).
func runErrSolo(s *slot, lo, n int, c *callConfig, b *rangeBody, watch bool, crowd *crowdWatch) (next int, err error) {
	next = n
	done := b.ctx.Done()
	look := n
	if crowd != nil {
		look = lo + crowd.size
	}
	for i := lo; i < n; i++ {
		if watch && s.dq.Len() == 0 {
			return i, nil
		}
		if i == look {
			if !crowd.still(i) {
				return i, nil
			}
			look = i + crowd.size
		}
		select {
		case <-done:
			return n, nil
		default:
		}
		if err = b.e(b.ctx, i); err != nil {
			b.cancel()
			return n, err
		}
		if c.progress != nil { // ForErr bodies are rarely cheap: per item
			c.progress.done.Add(1)
		}
	}
	return n, nil
}

// soloCall is the bookkeeping of a call that runs as one loop on its
// caller (runSolo, reduceSolo): its trace task, and the guest seat to
// release. The caller defers end right after beginSolo and sets returned
// when its loop returns.
type soloCall struct {
	traced
	s        *slot
	guest    bool
	t0       int64 // guest: the call's start, for the callers' busy time
	returned bool
}

func beginSolo(verb string, s *slot, guest bool, n int, ctx context.Context) soloCall {
	sc := soloCall{s: s, guest: guest}
	sc.startTrace(verb, n, s, ctx)
	if s != nil {
		s.unflushedPieces++
		if guest {
			sc.t0 = cputicks()
			s.pool.maybeResize() // splits check GOMAXPROCS, and this call never splits
		}
	}
	return sc
}

// end ends the call on return, panic or Goexit: it releases the seat, ends
// the trace task and re-raises a panic wrapped as the parallel path does;
// a Goexit simply goes on, nothing else being in flight. It must be the
// deferred function itself, for recover.
func (sc *soloCall) end() {
	var r any
	if !sc.returned {
		r = recover()
	}
	if sc.guest {
		releaseGuest(sc.s, sc.t0)
	}
	sc.endTrace()
	if r != nil {
		panic(recovered(r))
	}
}

// reduceSolo is runSolo for Reduce and ReduceRange: leaf over the whole
// range, without a closure that would escape. With watch (a plain nested
// call) or crowd (a crowded call), it folds chunks of 1, 2, 4, ... indices
// left to right, looking at s's deque (or at the crowd) between them as
// runSolo does, and once a thief has emptied the deque (or the crowd has
// left) hands the rest to a parallel call whose identity is the fold so
// far, so the result is still combine(identity, fold of every chunk in
// order).
func reduceSolo[T any](verb string, s *slot, guest bool, n int, identity T, leaf func(lo, hi int) T, combine func(a, b T) T, c callConfig, watch bool, crowd *crowdWatch) T {
	sc := beginSolo(verb, s, guest, n, nil)
	defer sc.end()
	if !watch && crowd == nil {
		out := combine(identity, leaf(0, n))
		if c.progress != nil {
			c.progress.done.Add(int64(n))
		}
		sc.returned = true
		return out
	}
	var acc T
	var lo int
	if crowd != nil {
		started := false // the first chunk starts the fold; there is no identity until the end
		lo = crowd.run(0, n, func(a, b int) {
			if !started {
				acc, started = leaf(a, b), true
				return
			}
			acc = combine(acc, leaf(a, b))
		})
		crowd.done()
	} else {
		lo = min(max(c.grain, 1), n) // the first chunk: the Grain hint, or one index
		acc = leaf(0, lo)
		for size := 2 * lo; lo < n && s.dq.Len() != 0; size = nextChunk(size) {
			hi := lo + min(size, n-lo)
			acc = combine(acc, leaf(lo, hi))
			lo = hi
		}
	}
	if lo < n {
		off := lo
		var opts []Option
		if crowd != nil {
			opts = []Option{On(crowd.p)} // a nested call finds its pool; a crowded one must name it
		}
		acc = reduceRange(verb, n-off, acc, func(a, b int) T { return leaf(a+off, b+off) }, combine, opts)
	}
	out := combine(identity, acc) // before returned: its panic is wrapped too
	sc.returned = true
	return out
}

// nextChunk doubles a plain call's chunk, short of overflowing.
func nextChunk(size int) int {
	if size < 1<<60 {
		return 2 * size
	}
	return size
}

// plainNested reports whether a call with these options, on slot s (guest:
// a seat taken for this call, so not nested), runs as a plain loop
// (split.go): a nested call on a slot whose deque offers thieves work
// already. Calls with Track (counted per grain) or Weighted (split by
// weight) take the parallel path.
func (c *callConfig) plainNested(s *slot, guest bool) bool {
	return !guest && c.progress == nil && c.weights == nil && s.offersWork()
}
