// Package grain sizes work: how many iterations run between two looks for
// demand, and what a split, a cut or a wake-up must be worth.
//
// Every grain is timed with the cycle counter and the next one sized to
// take about TargetNs, growing at most 64-fold a step; a cost is believed
// only from a grain of at least CalibratedNs. Until then, a grain whose
// items took CostlyItemNs or more each grows at most twofold (slow start):
// items that costly do work of their own, such as a recursion's children,
// most of them leaves and one a deep subtree, and a grain sized on one
// leaf's time would take all of a node's other children, leaving no rest
// behind it for a thief to cut (par/internal/cut), so that the subtree
// among them runs on the one worker. Cheaper items grow 64-fold: a grain's
// own cost, tens of nanoseconds, would dominate theirs. A splitting piece
// publishes what it learned, for pieces stolen later; a Grain option is a
// lower bound. With Weighted every measure is in weight units, but a grain
// covers at most twice its piece's previous grain's items: understated
// weights must not merge costly items into one grain nobody can take.
package grain

import (
	"math"
	"math/bits"
	"sort"
	"sync/atomic"

	"github.com/parloop/parloop/par/internal/platform"
)

const (
	TargetNs     = 2_000     // aim for grains of about 2 µs
	CalibratedNs = 1_000     // a grain this long measures the cost of an iteration
	SplitMinNs   = 4_000     // least work worth splitting off when a worker can take it at once
	SplitWakeNs  = 50_000    // least work worth splitting off when a sleeper must be woken
	CutAgeNs     = 4_000     // a grain must have run this long before a thief cuts its piece
	CostlyItemNs = 50        // an item this costly, its cost not measured yet, grows its grain at most twofold
	KickEveryNs  = 1_000_000 // at most one kick per pool in this time (par's offer.go)
	YoungNs      = 1_000     // a thief steals a victim's oldest task only if it stays this long (par's steal.go)

	MaxGrain = 1 << 56 // no 2 µs grain has this many iterations: grain arithmetic cannot overflow
)

// Ticks are the durations above in ticks, converted once per calibration
// and replaced whole, so that a reader sees one set.
type Ticks struct {
	Target, Calibrated, SplitMin, SplitWake, CutAge, CostlyItem, KickEvery, Young int64
}

var thresholds atomic.Pointer[Ticks]

func init() { setThresholds() }

// Thresholds returns the current durations in ticks.
func Thresholds() *Ticks { return thresholds.Load() }

func setThresholds() {
	t := platform.NsToTicks
	thresholds.Store(&Ticks{
		Target: t(TargetNs), Calibrated: t(CalibratedNs), SplitMin: t(SplitMinNs), SplitWake: t(SplitWakeNs),
		CutAge: t(CutAgeNs), CostlyItem: t(CostlyItemNs), KickEvery: t(KickEveryNs), Young: t(YoungNs),
	})
}

// Calibrate measures the cycle counter's rate when due (from slow paths).
func Calibrate() {
	if platform.Calibrate() {
		setThresholds()
	}
}

// Sizer is what a call knows for sizing its work: its Grain hint and
// weights, and the grain and cost its pieces have learned.
type Sizer struct {
	MinGrain int64        // the Grain hint, at least 1
	Grain    atomic.Int64 // learned iterations per grain
	CostMt   atomic.Int64 // learned cost of one iteration, in 1/1000 ticks; 0: not measured yet
	Prefix   []int64      // Weighted's prefix sums, or nil: every index weighs 1

	NoSlowStart bool // the experiment slowstart=off: costly items grow 64-fold too
}

// Pacer sizes a piece's grains. The cost is kept as the grain that measured
// it, not a quotient, so that CostAtLeast divides nothing.
type Pacer struct {
	grain     int64 // iterations in the next grain
	costIters int64 // iterations of the grain that measured the cost; 0: not measured yet
	costTicks int64 // ticks that grain took
	lastItems int64 // Weighted: items in the previous grain
}

// NewPacer starts a piece with what its call has learned so far.
func (z *Sizer) NewPacer() Pacer {
	pc := Pacer{grain: max(z.Grain.Load(), z.MinGrain)}
	if cost := z.CostMt.Load(); cost != 0 {
		pc.costIters, pc.costTicks = 1000, cost
	}
	return pc
}

// Adapt records that iters iterations took dt ticks and sizes the next
// grain for the target, unchanged when within a factor of two, growing at
// most twofold while the cost is not measured and the items are costly
// (slow start, in the package comment), else 64-fold.
func (z *Sizer) Adapt(pc *Pacer, iters, dt int64) {
	dt = max(dt, 1)
	tk := thresholds.Load()
	if dt >= tk.Calibrated {
		pc.costIters, pc.costTicks = iters, dt
	}
	target := tk.Target
	if dt >= target/2 && dt <= 2*target {
		return
	}
	var next int64
	if iters < 1<<31 && target < 1<<31 {
		next = iters * target / dt
	} else if hi, lo := bits.Mul64(uint64(iters), uint64(target)); hi < uint64(dt) {
		q, _ := bits.Div64(hi, lo, uint64(dt))
		next = int64(min(q, MaxGrain))
	} else {
		next = MaxGrain
	}
	growth := int64(64)
	if pc.costIters == 0 && !z.NoSlowStart && RateAtLeast(iters, dt, 1, tk.CostlyItem) {
		growth = 2
	}
	pc.grain = max(min(next, growth*pc.grain, MaxGrain), z.MinGrain, 1)
}

// Measured reports whether pc has measured a cost (its own or its call's).
func (pc *Pacer) Measured() bool { return pc.costIters != 0 }

// CostAtLeast reports whether rem units at the measured cost take at least
// ticks; false unmeasured.
func (pc *Pacer) CostAtLeast(rem, ticks int64) bool {
	return pc.costIters != 0 && RateAtLeast(pc.costIters, pc.costTicks, rem, ticks)
}

// RateAtLeast reports whether rem units, at the rate of iters units in
// took ticks, take at least ticks (rem*took >= ticks*iters, in 128 bits,
// so that it divides nothing). All four are non-negative.
func RateAtLeast(iters, took, rem, ticks int64) bool {
	h1, l1 := bits.Mul64(uint64(rem), uint64(took))
	h2, l2 := bits.Mul64(uint64(ticks), uint64(iters))
	return h1 > h2 || (h1 == h2 && l1 >= l2)
}

// Publish hands what a piece learned to its call, before a split.
func (z *Sizer) Publish(pc *Pacer) {
	if pc.grain > z.Grain.Load() {
		z.Grain.Store(pc.grain)
	}
	if pc.costIters != 0 { // the cost in 1/1000 ticks, at least 1, saturating
		cost := int64(math.MaxInt64 / 1000)
		if hi, lo := bits.Mul64(uint64(pc.costTicks), 1000); hi < uint64(pc.costIters) {
			q, _ := bits.Div64(hi, lo, uint64(pc.costIters))
			cost = max(int64(min(q, math.MaxInt64/1000)), 1)
		}
		z.CostMt.Store(cost)
	}
}

// End is where the next grain from cur ends, in (cur, hi]: after pc's
// grain of iterations, or units of weight (see the package comment).
func (z *Sizer) End(pc *Pacer, cur, hi int64) int64 {
	if z.Prefix == nil {
		if pc.grain < hi-cur {
			return cur + pc.grain
		}
		return hi
	}
	end := hi
	if target := z.Prefix[cur] + pc.grain; z.Prefix[hi] >= target {
		k := sort.Search(int(hi-cur), func(k int) bool { return z.Prefix[cur+1+int64(k)] >= target })
		end = cur + 1 + int64(k)
	}
	end = min(end, cur+max(1, 2*pc.lastItems))
	pc.lastItems = end - cur
	return end
}

// Units is the work in [lo, hi): its weight, or its count of indices.
func (z *Sizer) Units(lo, hi int64) int64 {
	if z.Prefix == nil {
		return hi - lo
	}
	return z.Prefix[hi] - z.Prefix[lo]
}

// Midpoint returns where a split of [cur, hi), hi-cur >= 2, puts its upper
// half: the middle, or the cut nearest to half the weight; never an end.
func (z *Sizer) Midpoint(cur, hi int) int {
	if z.Prefix == nil || z.Prefix[hi] == z.Prefix[cur] {
		return cur + (hi-cur)/2
	}
	half := z.Prefix[cur] + (z.Prefix[hi]-z.Prefix[cur])/2
	m := cur + 1 + sort.Search(hi-cur-1, func(k int) bool { return z.Prefix[cur+1+k] >= half })
	if m > cur+1 && (m == hi || half-z.Prefix[m-1] < z.Prefix[m]-half) {
		m-- // Prefix[m] >= half > Prefix[m-1]: take the nearer cut
	}
	return min(max(m, cur+1), hi-1)
}

// ChunkEnd is where a nested plain run's chunk of size, from next, ends
// in [next, n): after size indices, or at n once fewer than twice size
// remain, so that no chunk is left shorter than the one before it.
func ChunkEnd(next, n, size int) int {
	if n-next-size < size { // n-next < 2*size, without overflowing
		return n
	}
	return next + size
}

// NextChunk doubles a plain run's chunk, short of overflowing.
func NextChunk(size int) int {
	if size < 1<<60 {
		return 2 * size
	}
	return size
}
