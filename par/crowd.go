package par

// Crowded calls: a call made from outside the pool while the Go scheduler
// has more goroutines waiting for a P than there are Ps (saturation.go).
//
// Then nothing the call could offer would be taken: every P is busy, and a
// worker could only run by taking a P from a goroutine waiting for it. The
// framed path still costs its seat, its frame and its clock (for 64 callers
// of 1,000 cheap items at 2 Ps, about 0.6 µs a call, a fifth of the loop;
// the rule is that such a call should cost what its loop costs). So
// a crowded call runs as a plain loop on its caller, as at parallelism 1
// (runSolo): no seat, no frame, no task.
//
// The crowd may leave while the call runs. The plain loop runs in chunks of
// 1, 2, 4, ... indices (g, 2g, 4g, ... with Grain(g)) and looks again
// between them; once it finds the Ps no longer saturated, it hands the
// rest to the usual path (a seat and a frame, which can split), as a plain
// nested call hands its rest over when a thief has emptied its deque
// (split.go). The call's entry (when the last answer says saturated) and
// its first look read the clock (an answer older than its period is read
// again, saturation.go; the entry also follows GOMAXPROCS). If the first
// chunk was cheap, the looks before crowdClockFrom indices only load the
// last answer (a flag that is rarely written, so a small call pays almost
// nothing); after a slow first chunk, or from crowdClockFrom indices on,
// every look reads the clock, which refreshes the answer, and a chunk that
// lasts crowdChunkNs stops the doubling, so that a long call looks at
// least that often.
//
// Ordering: the answer is a hint (saturation.go). A stale "saturated" (at
// most one period old) costs a call that runs plainly for at most its
// first crowdClockFrom indices, or one chunk, longer than it should; a
// stale "not saturated" costs the framed path, which is what every call
// paid before. Nothing is offered, so nothing can be lost; a handed-over
// rest is an ordinary call over the indices not yet run.
//
// Not crowded: calls on a pool other than the default one (On(p): a body's
// nested call without On must find p, and a crowded call holds no seat to
// find it by), calls made by a pool's own workers (their nested calls go
// to their deques as usual), pools wider than GOMAXPROCS (their bodies
// block, and their spare workers exist to run meanwhile), calls with
// Track (counted per grain) or Weighted (split by weight), and calls made
// while a trace is recorded (one trace task per call, with its pieces'
// regions, as the framed path makes them).
//
// Stats: a crowded call counts as one piece of the callers', with its busy
// time, in counters sharded by the caller's goroutine (crowdCounts), so
// that callers ending at once rarely write the same cache line. Reduce and
// ReduceRange hand their rest over with the fold so far as its identity
// (reduceSolo).

import (
	"runtime/trace"
	"sync/atomic"
)

const (
	crowdClockFrom = 256     // from this many indices on, every look reads the clock
	crowdSlowNs    = 2_000   // a first chunk this long makes every look read the clock
	crowdChunkNs   = 100_000 // a chunk that lasts this long stops doubling
)

// crowdedPool returns the pool a call with config c, from the running
// goroutine, runs on if it is crowded, and the tick it looked at; else
// nil. When the last answer says saturated, it reads the clock, to refresh
// that answer if it is older than its period (a stale "saturated" would
// otherwise stand until some other look refreshed it) and to follow
// GOMAXPROCS, which a crowded call's seatless path never checks otherwise.
func crowdedPool(c *callConfig) (*Pool, int64) {
	// The last answer first, a load: a call that is not crowded (the
	// common case) pays nothing more. A stale "not saturated" sends a
	// crowded call down the framed path, whose grains read again.
	if !saturatedHint() || c.progress != nil || c.weights != nil || trace.IsEnabled() {
		return nil, 0
	}
	// Only on the default pool: a body's nested call without On must run
	// on the pool that runs the body, and a crowded call holds no seat
	// that would tell it which pool that is; from a crowded call on the
	// default pool it goes to the default pool, which is right.
	p := Default()
	if c.pool != nil && c.pool != p {
		return nil, 0
	}
	l := p.layout.Load()
	if l == nil || l.active == 0 || l.wide() || p.closed.Load() {
		return nil, 0
	}
	k := goroutineKey()
	if lookupWorker(k) != nil {
		return nil, 0
	}
	now := cputicks()
	p.maybeResizeAt(now)
	if !saturated(now, l.procs) {
		return nil, 0
	}
	// A nested call inside a framed call from outside (its caller holds a
	// seat) stays on that call's path: its halves go to the seat's deque.
	// Crowded calls hold no seats, so with a crowd this scans few.
	if lookupGuest(k) != nil {
		return nil, 0
	}
	return p, now
}

// crowdWatch decides, between the chunks of a crowded call, how long the
// next chunk is and whether the call is still crowded.
type crowdWatch struct {
	p     *Pool
	start int64 // cputicks at the call's start
	size  int   // the next chunk's length in indices
	looks int   // looks so far
	clock bool  // read the clock at every look: chunks are slow, or many indices ran
	fixed bool  // a chunk lasted crowdChunkNs: size stays
	t     int64 // cputicks at the call's start or at the last look that read the clock
}

// newCrowdWatch starts a crowded call's chunks at the Grain hint, so that
// a range body never sees less than it asked for (the last chunk aside);
// now is the call's start.
func newCrowdWatch(p *Pool, grain int, now int64) crowdWatch {
	return crowdWatch{p: p, start: now, size: max(grain, 1), t: now}
}

// done counts the crowded part of the call in the pool's stats, in the
// shard of the caller's goroutine.
func (w *crowdWatch) done() {
	sh := &w.p.crowdCounts[hashKey(goroutineKey())%crowdShards]
	sh.calls.Add(1)
	sh.busyNs.Add(ticksToNs(cputicks() - w.start))
}

const crowdShards = 16

// crowdCounts are the crowded calls' counters, one shard per cache line.
type crowdCounts [crowdShards]struct {
	calls, busyNs atomic.Int64
	_             [48]byte
}

// sum returns the crowded calls counted and their busy time in ns.
func (c *crowdCounts) sum() (calls, busyNs int64) {
	for i := range c {
		calls += c[i].calls.Load()
		busyNs += c[i].busyNs.Load()
	}
	return calls, busyNs
}

func (c *crowdCounts) reset() {
	for i := range c {
		c[i].calls.Store(0)
		c[i].busyNs.Store(0)
	}
}

// still reports whether the call is still crowded, ran indices into it,
// and sizes the next chunk. The first look reads the clock: if the first
// chunk took crowdSlowNs, every later look does too (a clock read is
// nothing beside such chunks, and a call of few long items must notice the
// crowd leaving); otherwise looks read it once ran reaches crowdClockFrom.
func (w *crowdWatch) still(ran int) bool {
	w.looks++
	if w.clock || w.looks == 1 || ran >= crowdClockFrom {
		now := cputicks()
		d := now - w.t
		w.t = now
		if ran >= crowdClockFrom || d >= nsToTicks(crowdSlowNs) {
			w.clock = true
		}
		if w.looks > 1 && d >= nsToTicks(crowdChunkNs) {
			w.fixed = true
		}
		l := w.p.layout.Load()
		if l.wide() || !saturated(now, l.procs) {
			return false
		}
	} else if !saturatedHint() {
		return false
	}
	if !w.fixed {
		w.size = nextChunk(w.size)
	}
	return true
}

// run runs chunk over [lo, n) in chunks of w.size (which still grows), as
// long as the call is crowded, and returns the first index not run (n if
// all ran): the one loop of every crowded call, ranges, indices and folds.
func (w *crowdWatch) run(lo, n int, chunk func(lo, hi int)) int {
	for lo < n {
		hi := lo + min(w.size, n-lo)
		chunk(lo, hi)
		lo = hi
		if lo < n && !w.still(lo) {
			return lo
		}
	}
	return n
}

// eachIndex runs body(i) for i in [lo, hi): a loop of its own, keeping
// three values across the call of the body, as a plain loop through a func
// value does. Written inside runSolo, and then inside the chunk loop with
// the watch and n live too, the loop reloaded five or more after every
// call and took 10-20% more time than the framed loop with 64 and 512
// callers of 10,000 at 2 Ps.
//
//go:noinline
func eachIndex(body func(int), lo, hi int) {
	for i := lo; i < hi; i++ {
		body(i)
	}
}
