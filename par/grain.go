package par

// Sizing work: how many iterations run between two looks for demand, and
// what a split, a cut or a wake-up must be worth.
//
// Every grain is timed with the cycle counter and the next one sized to
// take about grainTargetNs, growing at most 64-fold a step; a cost is
// believed only from a grain of at least calibratedNs. A splitting piece
// publishes what it learned, for pieces stolen later; a Grain option is a
// lower bound. With Weighted every measure is in weight units, but a grain
// covers at most twice its piece's previous grain's items: understated
// weights must not merge costly items into one grain nobody can take.

import (
	"math"
	"math/bits"
	"sort"
	"sync/atomic"

	"github.com/parloop/parloop/par/internal/platform"
)

const (
	grainTargetNs = 2_000     // aim for grains of about 2 µs
	calibratedNs  = 1_000     // a grain this long measures the cost of an iteration
	splitMinNs    = 4_000     // least work worth splitting off when a worker can take it at once
	splitWakeNs   = 50_000    // least work worth splitting off when a sleeper must be woken
	cutAgeNs      = 4_000     // a grain must have run this long before a thief cuts its piece
	kickEveryNs   = 1_000_000 // at most one kick per pool in this time (offer.go)
	youngNs       = 1_000     // a thief steals a victim's oldest task only if it stays this long (steal.go)

	maxGrain = 1 << 56 // no 2 µs grain has this many iterations: grain arithmetic cannot overflow
)

// tickThresholds are the durations above in ticks, converted once per
// calibration and replaced whole, so that a reader sees one set.
type tickThresholds struct {
	target, calibrated, splitMin, splitWake, cutAge, kickEvery, young int64
}

var thresholds atomic.Pointer[tickThresholds]

func init() { setThresholds() }

func setThresholds() {
	t := platform.NsToTicks
	thresholds.Store(&tickThresholds{
		target: t(grainTargetNs), calibrated: t(calibratedNs), splitMin: t(splitMinNs), splitWake: t(splitWakeNs),
		cutAge: t(cutAgeNs), kickEvery: t(kickEveryNs), young: t(youngNs),
	})
}

// calibrate measures the cycle counter's rate when due (from slow paths).
func calibrate() {
	if platform.Calibrate() {
		setThresholds()
	}
}

// pacer sizes a piece's grains. The cost is kept as the grain that measured
// it, not a quotient, so that costAtLeast divides nothing.
type pacer struct {
	grain     int64 // iterations in the next grain
	costIters int64 // iterations of the grain that measured the cost; 0: not measured yet
	costTicks int64 // ticks that grain took
	lastItems int64 // Weighted: items in the previous grain
}

// newPacer starts a piece with what its call has learned so far.
func (c *core) newPacer() pacer {
	pc := pacer{grain: max(c.grain.Load(), c.minGrain)}
	if cost := c.costMt.Load(); cost != 0 {
		pc.costIters, pc.costTicks = 1000, cost
	}
	return pc
}

// adapt records that iters iterations took dt ticks and sizes the next
// grain for the target, unchanged when within a factor of two.
func (c *core) adapt(pc *pacer, iters, dt int64) {
	dt = max(dt, 1)
	tk := thresholds.Load()
	if dt >= tk.calibrated {
		pc.costIters, pc.costTicks = iters, dt
	}
	target := tk.target
	if dt >= target/2 && dt <= 2*target {
		return
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
	pc.grain = max(min(next, 64*pc.grain, maxGrain), c.minGrain, 1)
}

// costAtLeast reports whether rem units at the measured cost take at least
// ticks (rem*costTicks >= ticks*costIters, in 128 bits); false unmeasured.
func (pc *pacer) costAtLeast(rem, ticks int64) bool {
	if pc.costIters == 0 {
		return false
	}
	h1, l1 := bits.Mul64(uint64(rem), uint64(pc.costTicks))
	h2, l2 := bits.Mul64(uint64(ticks), uint64(pc.costIters))
	return h1 > h2 || (h1 == h2 && l1 >= l2)
}

// publish hands what a piece learned to its call, before a split.
func (c *core) publish(pc *pacer) {
	if pc.grain > c.grain.Load() {
		c.grain.Store(pc.grain)
	}
	if pc.costIters != 0 { // the cost in 1/1000 ticks, at least 1, saturating
		cost := int64(math.MaxInt64 / 1000)
		if hi, lo := bits.Mul64(uint64(pc.costTicks), 1000); hi < uint64(pc.costIters) {
			q, _ := bits.Div64(hi, lo, uint64(pc.costIters))
			cost = max(int64(min(q, math.MaxInt64/1000)), 1)
		}
		c.costMt.Store(cost)
	}
}

// grainEnd is where the next grain from cur ends, in (cur, hi]: after
// pc.grain iterations, or units of weight (see above).
func (c *core) grainEnd(pc *pacer, cur, hi int64) int64 {
	if c.prefix == nil {
		if pc.grain < hi-cur {
			return cur + pc.grain
		}
		return hi
	}
	end := hi
	if target := c.prefix[cur] + pc.grain; c.prefix[hi] >= target {
		k := sort.Search(int(hi-cur), func(k int) bool { return c.prefix[cur+1+int64(k)] >= target })
		end = cur + 1 + int64(k)
	}
	end = min(end, cur+max(1, 2*pc.lastItems))
	pc.lastItems = end - cur
	return end
}

// units is the work in [lo, hi): its weight, or its count of indices.
func (c *core) units(lo, hi int64) int64 {
	if c.prefix == nil {
		return hi - lo
	}
	return c.prefix[hi] - c.prefix[lo]
}

// midpoint returns where a split of [cur, hi), hi-cur >= 2, puts its upper
// half: the middle, or the cut nearest to half the weight; never an end.
func (c *core) midpoint(cur, hi int) int {
	if c.prefix == nil || c.prefix[hi] == c.prefix[cur] {
		return cur + (hi-cur)/2
	}
	half := c.prefix[cur] + (c.prefix[hi]-c.prefix[cur])/2
	m := cur + 1 + sort.Search(hi-cur-1, func(k int) bool { return c.prefix[cur+1+k] >= half })
	if m > cur+1 && (m == hi || half-c.prefix[m-1] < c.prefix[m]-half) {
		m-- // prefix[m] >= half > prefix[m-1]: take the nearer cut
	}
	return min(max(m, cur+1), hi-1)
}

// nextChunk doubles a plain run's chunk, short of overflowing.
func nextChunk(size int) int {
	if size < 1<<60 {
		return 2 * size
	}
	return size
}
