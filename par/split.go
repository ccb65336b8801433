package par

// Lazy binary splitting with an adaptive grain.
//
// A piece [lo, hi) runs a grain of iterations, then looks for demand: if its
// slot's deque is empty (nobody can steal from it) and the rest is worth
// more than a split costs, it splits the rest in half, pushes the upper half
// and carries on with the lower one (Tzannes, Caragea, Barua, Vishkin, "Lazy
// Binary Splitting", PPoPP 2010). Splitting thus happens only when and where
// some worker could take the other half.
//
// Splitting for several idle workers at once. When k > 1 workers are idle
// (sleeping or spinning) at a split, the rest is cut into k+1 equal parts
// (in weight, for a weighted call), k of them pushed, and the sleepers among
// the k woken together (offerParts). A binary split feeds one of them per
// grain of the owner, and each thief must run a grain of its half before it
// can split that again: at 16 workers the tail of the mandelbrot loop, whose
// middle rows take about 2 ms each, handed a 15-row piece out over 12 ms
// with 2 to 8 of the 16 workers running, and a call's start woke its
// workers one after another, each woken worker waking the next (1.1 ms for
// 15). Each part must still be worth a split (splitWakeNs, as if a sleeper
// had to be woken for it), so a short rest is cut into fewer parts. With one
// idle worker, the case on two CPUs, this is the binary split.
//
// The grain adapts to the measured cost of an iteration: every grain is
// timed with the cycle counter (ticks.go), and the next one is sized to
// take about grainTargetNs (growing at most 64-fold per step). The cost of
// an iteration is only believed once a grain has taken at least
// calibratedNs: shorter measurements are mostly the clock's own cost, and
// a tiny loop would otherwise look expensive and split. The learned grain
// and cost are kept in the call's frame, so pieces stolen later start with
// them. A Grain option is a lower bound, never required.
//
// What a split is worth: the pushed half must pay for the push, the steal
// and, when every other worker sleeps, a wake-up (10 to 30 µs here for a
// thread-locked worker; less, but not nothing, for an unpinned one). A
// tiny loop therefore never splits and never wakes anyone.
// Nor does any loop while at least P goroutines are inside calls (guest
// seats held): the callers saturate the CPUs themselves. While that lasts
// (or the Ps are saturated, saturation.go), a piece's grains stretch to
// busyGrainX times the target: there is nobody to split for, and each grain
// end costs a clock read and these checks (with 64 callers at 2 Ps, 3% of
// the CPU at 2 µs grains).

import (
	"math"
	"math/bits"
	"sync/atomic"
	"unsafe"
)

const (
	grainTargetNs = 2_000  // aim for grains of about 2 µs
	busyGrainX    = 16     // grains are this many times longer while nobody could take a split
	calibratedNs  = 1_000  // a grain this long measures the cost of an iteration
	splitMinNs    = 4_000  // least work worth splitting off when a worker can take it at once
	splitWakeNs   = 50_000 // least work worth splitting off when a sleeper must be woken
)

// Stopping a call (panics, errors, cancellation).
//
//  1. Whoever sees the reason first stores it: the first panic by a CAS on
//     pe, the first error under errMu, and then stop.Store(true). A ForErr
//     error also cancels the context handed to the bodies.
//  2. Every piece loads stop before each grain, and For, Map and ForErr
//     before each iteration (ForErr also polls its context's Done there),
//     so no new grain, and for those verbs no new iteration, starts on a
//     slot once stop is visible there; a running body is never
//     interrupted. A panicking piece stores stop before it takes the stack
//     (abandon), so the others stop without waiting for that.
//  3. A stopped piece still arrives at its join, so the join tree still
//     completes and the caller still gets its token: stopping never hangs
//     a call, and the caller returns only after every running body has
//     returned. Pieces still in deques are taken as usual and return at
//     once.
//  4. The caller reads pe and err after it saw finished; the stores in 1
//     happen before the arrivals in 3, so it sees them.
//
// The race this prevents: a piece that starts after the panic (it would
// run bodies the user expects skipped) or a caller that returns while a
// body still runs (it would read results being written).

// Offering early. Lazy splitting offers work only after a grain, once the
// cost of an iteration is known. That is too late in two cases, and in
// those a piece is split before its first grain, while the cost is unknown
// (offerEarly):
//
//   - Few items: a call from outside the pool over n <= fewPerWorker*P
//     items (P the pool's parallelism, at least 2). Nobody parallelises a
//     handful of trivial items, so they are taken to be expensive; running
//     the first one before offering the rest made For(2, f) with 200 ms
//     bodies take 400 ms. Every piece of such a call is split down to
//     single items before it runs (log2 n pushes; thieves take the largest
//     halves first and split them the same way), so n equal items take
//     ceil(n/P) rounds.
//   - Nested calls: a call made from inside a body (parallel recursion
//     written with loops: a tree walk with a nested For over each node's
//     children). Its first item may be a whole subtree; run first, it would
//     hide the rest of every level until then, and the walk ran
//     sequentially. Such a piece pushes its upper half before its first
//     grain if its slot's deque is empty (a slot that offers thieves
//     something already offers older, larger work) and somebody could take
//     it: a worker sleeps or spins, or a thief asked this slot (want,
//     share.go). With every worker busy, a walk's millions of nested calls
//     then offer nothing and cost no push; the first worker to run dry
//     spins, asks, and is served at its victim's next nested call.
//
// Plain nested calls. A nested call made on a slot whose deque already
// offers thieves a task, and that no thief has asked for more, runs as a
// plain loop, as at parallelism 1 (runSolo): no frame, no task, no clock.
// Whoever goes idle takes the older, larger task in the deque, as for
// private forks (invariant P2, share.go). For, Map and ForErr look at the
// deque before each iteration and, once a thief has emptied it, run the
// rest as a parallel call, which can split; ForRange and ReduceRange do the
// same between chunks of 1, 2, 4, ... indices, so that a thief waits at most
// about as long as the call has run so far. In a walk of an unbalanced tree
// with a nested For at every node, most nested calls run plainly: the
// per-call and per-grain costs of pacing (two clock reads, a frame, a
// task) were a tenth of the walk's time at 2 workers.
//
// A root call over many items (the tiny loop, a large uniform loop) never
// offers early: its first grain is short, and offering would wake a
// sleeping worker for a loop that ends first. At parallelism 1 nothing is
// ever split: a call runs its range as one piece (solo), with no clock.

const fewPerWorker = 4

// earlyMode says how a call's pieces offer work before their first grain.
type earlyMode uint8

const (
	earlyNone   earlyMode = iota
	earlyHalf             // nested call: push the upper half
	earlySingle           // few items: split down to single items
)

// shape decides, once per call over n items made on slot s (guest: from
// outside the pool), whether the call runs solo or offers early.
func (c *loopCore) shape(s *slot, guest bool, n int) {
	p := c.pool.layout.Load().active + 1
	switch {
	case p == 1: // the pool shrank since the call began (runSolo took the rest)
		c.solo = true
	case !guest:
		c.early = earlyHalf
	case n <= fewPerWorker*p:
		c.early = earlySingle
	}
}

// offerEarly splits piece t before its first grain (see above), while the
// call's cost per iteration is still unknown; once a grain has measured it,
// lazy splitting decides. For few items it goes on down to single items
// (pieces of the Grain hint, if one was given) unless the measured cost
// says they are not worth a split.
func (c *loopCore) offerEarly(s *slot, t *task, frame pieceRunner, newJoin func(*slot) *join) {
	switch c.early {
	case earlyHalf:
		if int64(t.hi-t.lo) >= 2*c.minGrain && c.costMt.Load() == 0 && s.dq.Len() == 0 && c.pool.someoneIdle(s) {
			c.split(s, t, frame, newJoin(s), t.lo)
		}
	case earlySingle:
		items, pushed := t.hi-t.lo, 0
		for int64(t.hi-t.lo) >= 2*c.minGrain {
			// Once a grain has measured the cost, only a piece worth a
			// split is split further (newPacer reads what was published).
			if pc := c.newPacer(); pc.costIters != 0 && !pc.costAtLeast(c.units(int64(t.lo), int64(t.hi)), thresholds.Load().splitMin) {
				break
			}
			c.split(s, t, frame, newJoin(s), t.lo)
			pushed++
		}
		// The first split's notify woke one sleeper; the pieces can feed
		// up to one worker per item at once (each piece is split further by
		// its thief), so wake those now rather than each woken worker
		// waking the next.
		if pushed > 0 {
			c.pool.wakeMany(min(items, c.pool.layout.Load().active+1) - 2)
		}
	}
}

// maxGrain bounds a grain, so that grain arithmetic cannot overflow: no
// 2 µs grain has 2^56 iterations.
const maxGrain = 1 << 56

// loopCore is the state every range-like call shares between its pieces.
type loopCore struct {
	pool     *Pool
	owner    *slot        // the slot of the goroutine that made the call
	solo     bool         // parallelism 1 (or no seat): run every piece whole, untimed
	early    earlyMode    // how pieces offer work before their first grain
	minGrain int64        // the Grain hint, at least 1
	grain    atomic.Int64 // learned iterations per grain
	costMt   atomic.Int64 // learned cost of one iteration, in 1/1000 ticks; 0: not measured yet
	stop     atomic.Bool  // no new grains: set on panic, error or cancellation
	finished atomic.Bool  // the root join completed on another slot than the owner's
	ownDone  bool         // the root join completed on the owner's slot before it waited (owner-only)
	waiting  bool         // the owner is in wait (owner-only)
	thief    atomic.Int32 // id+1 of the last slot that stole a piece
	pe       atomic.Pointer[PanicError]
	progress *Progress      // Track's, or nil
	prefix   []int64        // Weighted's prefix sums, or nil: every index weighs 1 (weights.go)
	traced                  // the call's trace task, if a trace was recorded at its start (observe.go)
	tree     uint64         // the call tree (steal.go), set by the owner before any split
	labels   unsafe.Pointer // the caller's pprof label set (labels.go)

	// Owner-only clock readings, so that a guest's call, which times itself
	// for the callers' busy time, reads the cycle counter twice rather than
	// four times (each read is about 11 ns, a tenth of a tiny loop's cost):
	// startTicks is the call's start, taken by doRange and used as the start
	// of the owner's first grain; endTicks is the end of the owner's last
	// grain.
	startTicks, endTicks int64
}

// begin readies c for a call on pool p made on slot s with config cfg.
// It resets c field by field: a composite literal would be built on the
// caller's stack first, which made doRange's frame 536 bytes, enough to
// grow the stack of every new goroutine that makes a call.
//
//go:noinline
func (c *loopCore) begin(p *Pool, s *slot, cfg *callConfig) {
	*c = loopCore{}
	c.pool, c.owner, c.tree = p, s, s.tree
	c.minGrain = min(int64(max(1, cfg.grain)), maxGrain)
	c.labels = getProfLabel()
	c.progress = cfg.progress
	if cfg.weights != nil {
		c.prefix = cfg.weights.prefix
	}
}

// firstTick returns the tick at which a piece running on s starts its
// first grain: the call's start for the owner's first piece, else now.
func (c *loopCore) firstTick(s *slot) int64 {
	if s == c.owner { // owner-only fields: test the slot first, so that thieves never read them
		if t := c.startTicks; t != 0 {
			c.startTicks = 0
			return t
		}
	}
	return cputicks()
}

// lastTick records t, the end of a piece's last grain, if s is the owner.
func (c *loopCore) lastTick(s *slot, t int64) {
	if s == c.owner {
		c.endTicks = t
	}
}

func (c *loopCore) noteThief(id int32) { c.thief.Store(id + 1) }

// abandon records why a piece ended abnormally (r, from recover: a panic's
// value, or nil for a Goexit) and stops the call. It reports a Goexit, after
// which the piece's deferred function must finish the piece itself, since
// its runPiece will not go on.
func (c *loopCore) abandon(r any) (goexit bool) {
	c.stop.Store(true) // before recovered takes the stack: stop the others first
	if stoppedHook != nil {
		stoppedHook()
	}
	pe := recovered(r)
	c.fail(pe)
	return pe.goexit
}

// stoppedHook, if set, runs right after a panicking piece stores stop: a
// test's marker for "the call has seen the panic" (export_test.go).
var stoppedHook func()

// fail records the first panic and stops the call.
func (c *loopCore) fail(pe *PanicError) {
	c.pe.CompareAndSwap(nil, pe)
	c.stop.Store(true)
}

// pacer sizes the grains of one piece. It lives on the stack of the piece's
// loop, so pacing costs no shared write; a piece publishes what it learned
// only when it splits, for the half it pushes.
//
// The cost of an iteration is kept as the grain that measured it (costIters
// iterations in costTicks ticks), not as a quotient: the split decision
// compares products (costAtLeast), so the grain after which nothing splits,
// the common case in a busy pool, divides nothing. A grain that took
// between half and twice grainTarget keeps its size, without a division
// either.
type pacer struct {
	grain     int64 // iterations in the next grain
	costIters int64 // iterations of the grain that measured the cost; 0: not measured yet
	costTicks int64 // ticks that grain took
	busy      bool  // the last split was refused because nobody could take it: stretch the grains
}

// newPacer starts a piece with what the call has learned so far.
func (c *loopCore) newPacer() pacer {
	pc := pacer{grain: max(c.grain.Load(), c.minGrain)}
	if cost := c.costMt.Load(); cost != 0 {
		pc.costIters, pc.costTicks = 1000, cost
	}
	return pc
}

// adapt records that iters iterations took dt ticks and sizes the next
// grain.
func (c *loopCore) adapt(pc *pacer, iters, dt int64) {
	if dt < 1 {
		dt = 1
	}
	tk := thresholds.Load()
	if dt >= tk.calibrated {
		pc.costIters, pc.costTicks = iters, dt
	}
	target := tk.target
	if pc.busy {
		target *= busyGrainX
	}
	if dt >= target/2 && dt <= 2*target {
		return // about right: keep the grain
	}
	var next int64
	if iters < 1<<31 && target < 1<<31 {
		next = iters * target / dt
	} else if hi, lo := bits.Mul64(uint64(iters), uint64(target)); hi < uint64(dt) {
		q, _ := bits.Div64(hi, lo, uint64(dt))
		next = int64(min(q, maxGrain))
	} else {
		next = maxGrain
	}
	next = min(next, 64*pc.grain, maxGrain)
	pc.grain = max(next, c.minGrain, 1)
}

// costAtLeast reports whether rem units at the pacer's measured cost take
// at least ticks: rem*costTicks >= ticks*costIters, in 128 bits. False
// while the cost is not measured.
func (pc *pacer) costAtLeast(rem, ticks int64) bool {
	if pc.costIters == 0 {
		return false
	}
	h1, l1 := bits.Mul64(uint64(rem), uint64(pc.costTicks))
	h2, l2 := bits.Mul64(uint64(ticks), uint64(pc.costIters))
	return h1 > h2 || (h1 == h2 && l1 >= l2)
}

// costMt is the measured cost of an iteration in 1/1000 ticks, at least 1,
// saturating; only for publish (a split), so the division is rare.
func (pc *pacer) costMt() int64 {
	hi, lo := bits.Mul64(uint64(pc.costTicks), 1000)
	if hi >= uint64(pc.costIters) {
		return math.MaxInt64 / 1000
	}
	q, _ := bits.Div64(hi, lo, uint64(pc.costIters))
	return max(int64(min(q, math.MaxInt64/1000)), 1)
}

// worthSplitting reports whether a piece with the iterations [cur, hi)
// left, running on s, should split now; now is the tick at which its last
// grain ended.
func (c *loopCore) worthSplitting(s *slot, cur, hi int64, pc *pacer, now int64) bool {
	if hi-cur < 2 || s.dq == nil || s.dq.Len() != 0 {
		return false
	}
	tk := thresholds.Load()
	rem := c.units(cur, hi)
	if !pc.costAtLeast(rem, tk.splitMin) {
		return false
	}
	// At least P goroutines inside calls keep the CPUs busy by themselves:
	// giving work away would only add steals and wake-ups of workers
	// that must then share a P with the callers.
	l := c.pool.layout.Load()
	if bits.OnesCount64(guestMask.Load()) > l.active {
		c.pool.maybeResizeAt(now) // the split that would have checked GOMAXPROCS
		pc.busy = true
		return false
	}
	// Goroutines waiting for a P: the same, seen by the Go scheduler
	// (saturation.go).
	if l.busyElsewhere(now) {
		pc.busy = true
		return false
	}
	pc.busy = false
	st := &c.pool.sleep
	if st.nSleepers.Load() > 0 && st.nSpinning.Load() == 0 {
		return pc.costAtLeast(rem, tk.splitWake)
	}
	return true
}

// publish hands what a piece learned to the call, before it pushes a half
// that another slot may start.
func (c *loopCore) publish(pc *pacer) {
	if pc.grain > c.grain.Load() {
		c.grain.Store(pc.grain)
	}
	if pc.costIters != 0 {
		c.costMt.Store(pc.costMt())
	}
}

// complete marks the call finished. On the owner's own slot that is a
// plain write the owner reads back (the common case for small calls: no
// shared write at all); on any other slot it is the finished flag and the
// owner's token. The owner may recycle the frame as soon as it sees
// finished, so owner is read first and nothing is touched after the store.
func (c *loopCore) complete(s *slot) {
	owner := c.owner
	if owner == s && !c.waiting {
		c.ownDone = true
		return
	}
	c.finished.Store(true) // helpUntil, on the owner's slot or not, waits for this
	if owner != s {
		owner.signal()
	}
}

// wait runs the owner's side of the call after its root piece: help until
// every piece is done.
func (c *loopCore) wait(s *slot) {
	if c.ownDone || c.finished.Load() {
		return
	}
	c.waiting = true
	s.helpUntil(&c.finished, &c.thief)
}

// waitUnwinding is wait for a call whose caller's goroutine a Goexit is
// unwinding (the deferred functions of doRange and runReduce): it helps
// with nothing but s's own deque, whose pieces belong to calls stopped by
// the same unwinding. Stealing from the call tree could run a body of
// another call of the tree (a nested call that another piece made, which
// this call's stop does not stop); a Goexit in that body would cut the
// deferred function short before it released the guest seat: a nested For
// whose bodies called Goexit leaked seats so, under -race.
func (c *loopCore) waitUnwinding(s *slot) {
	tree := s.tree
	s.tree = unwindingTree
	c.wait(s)
	s.tree = tree
}

// unwindingTree is no call's tree: a slot waiting under it steals nothing.
const unwindingTree = ^uint64(0)

// afterGrain ends a grain of iters iterations of piece t, started at tick
// t0 and ending at cur: it sizes the next grain and, if some worker could
// take it, splits the rest of t in half, pushing the upper half with a new
// join j made by newJoin (the frame's kind of join). It returns the tick
// at which the next grain starts.
func (c *loopCore) afterGrain(s *slot, t *task, pc *pacer, frame pieceRunner, newJoin func(*slot) *join, cur, iters, t0 int64) int64 {
	t1 := cputicks()
	c.adapt(pc, max(iters, 1), t1-t0)
	if c.worthSplitting(s, cur, int64(t.hi), pc, t1) {
		c.publish(pc)
		if k := c.idleTakers(cur, int64(t.hi), pc); k > 1 {
			c.offerParts(s, t, frame, newJoin, int(cur), k)
		} else {
			c.split(s, t, frame, newJoin(s), int(cur))
		}
	}
	return t1
}

// maxParts bounds the pieces one split offers.
const maxParts = 64

// idleTakers is how many pieces a split of [cur, hi) should offer: one per
// idle worker (sleeping or spinning), at most one per item beyond the first
// and maxParts, and no more than leave each part worth splitWakeNs. It is 1
// (a binary split) when at most one worker is idle. The sleepers counted
// include callers waiting for their own calls (helpUntil), which cannot take
// this call's pieces, so the count is capped at the pool's workers.
func (c *loopCore) idleTakers(cur, hi int64, pc *pacer) int {
	st := &c.pool.sleep
	k := int(st.nSleepers.Load() + st.nSpinning.Load())
	k = min(k, c.pool.layout.Load().active, int(min(hi-cur-1, maxParts)))
	if k <= 1 {
		return 1
	}
	rem, worth := c.units(cur, hi), thresholds.Load().splitWake
	for k > 1 && !pc.costAtLeast(rem/int64(k+1), worth) {
		k /= 2
	}
	return max(k, 1)
}

// offerParts cuts the rest of t, [cur, t.hi), into k+1 parts of equal
// weight, pushes the upper k, and wakes as many sleepers as the workers
// already spinning and the pushes' own notify leave short (see "Splitting
// for several idle workers at once" above). Each part is the upper
// 1/parts of what is left, so the parts come out equal.
func (c *loopCore) offerParts(s *slot, t *task, frame pieceRunner, newJoin func(*slot) *join, cur, k int) {
	for parts := k + 1; parts >= 2 && t.hi-cur >= 2; parts-- {
		c.splitAt(s, t, frame, newJoin(s), c.cut(cur, t.hi, parts))
	}
	c.pool.wakeMany(k - int(c.pool.sleep.nSpinning.Load()))
}

// split gives the upper half of t's remaining range [cur, t.hi) to a new
// task and makes t the lower half. Both become the children of j, which
// takes t's place under t's parent.
func (c *loopCore) split(s *slot, t *task, frame pieceRunner, j *join, cur int) {
	c.splitAt(s, t, frame, j, c.midpoint(cur, t.hi))
}

// splitAt gives [mid, t.hi) to a new task, pushed, and makes t end at
// mid, as split does; cur < mid < t.hi.
func (c *loopCore) splitAt(s *slot, t *task, frame pieceRunner, j *join, mid int) {
	s.pushPublic(c.detach(s, t, frame, j, mid))
	c.pool.notify()
	c.pool.maybeResize() // splits are rare and worth >= splitMinNs: a cheap place to follow GOMAXPROCS
}

// detach gives [mid, t.hi) to a new task made on slot s and makes t end at
// mid: both become the children of j, which takes t's place under t's
// parent. It is the one split of a piece, made by its owner (splitAt) or
// by a thief that cut it while it ran (cut.go), who must have t to itself.
func (c *loopCore) detach(s *slot, t *task, frame pieceRunner, j *join, mid int) *task {
	j.pending.Store(2)
	j.parent, j.side = t.parent, t.side
	r := s.newTask()
	r.kind, r.frame = taskRange, frame
	r.lo, r.hi = mid, t.hi
	r.parent, r.side = j, 1
	r.tree.Store(c.tree)
	r.labels = c.labels
	t.hi, t.parent, t.side = mid, j, 0
	s.stats.splits.Add(1)
	return r
}
