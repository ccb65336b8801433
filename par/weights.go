package par

import (
	"fmt"
	"sort"
)

// Weighted partitioning.
//
// By default the scheduler treats every index as one unit of work: a split
// halves the count of the remaining indices, and a grain is a count of
// indices sized from the measured cost of one. For skewed work whose costs
// are known in advance (documents by size, rows by their number of
// nonzeros), Weighted gives each index its expected cost, and every
// measure the scheduler takes is then in weight units instead of counts:
//
//   - a split cuts the remaining range where its cumulative weight is
//     halved (a binary search over the prefix sums), so the first split of
//     a skewed range is already fair;
//   - a grain is a weight, sized from the measured cost of a unit of
//     weight, and ends at the first index where that much weight has run
//     (at least one index);
//   - the worth of a split is estimated from the remaining weight.
//
// Stealing still corrects what the weights get wrong, as far as grains
// allow: a grain is sized in weight from the cost of a unit measured on the
// grains before it, and runs whole, so where the weights understate the
// cost by a factor k a grain could run up to k times longer than meant,
// with no worker able to take any of it meanwhile. With the skewed
// workload's costs sorted and the weights reversed (the cheapest items
// weighted the heaviest), one grain held 7% to 22% of the whole call's cost
// in five runs at two workers, against 3.3% (the single costliest item)
// with the right weights or none. So a weighted grain also covers at most
// twice the items of its piece's previous grain (capWeightedGrain): the
// largest grain then held 3.3% in five of five such runs. Weights wrong by
// a constant factor, or by a little, cost nothing: only ratios matter, and
// the pacer re-measures after every grain.
//
// The prefix sums are computed once, when the option is made, so an
// Option from Weighted can be passed to many calls over the same items.

// weights are the prefix sums of the item weights: prefix[i] is the sum
// of w[0:i], and len(prefix) is len(w)+1.
type weights struct {
	prefix []int64
}

// Weighted gives item i the expected cost w[i] (any unit; only ratios
// matter), so that splitting balances cumulative weight instead of the
// count of items. The call's n must equal len(w). A weight must not be
// negative; items of weight 0 are taken to cost little. A Grain hint is
// then a weight too. It applies to the loop verbs, the reductions and
// Fold; Blocking and Deterministic ignore it (their pieces do not depend on
// the schedule). Weighted copies
// nothing of w but reads it once, into prefix sums, and panics if a weight
// is negative or the sum overflows.
func Weighted(w []int64) Option {
	prefix := make([]int64, len(w)+1)
	for i, x := range w {
		if x < 0 {
			panic(fmt.Sprintf("par: Weighted: w[%d] = %d, a negative weight", i, x))
		}
		if prefix[i] > (1<<62)-x {
			panic("par: Weighted: the weights sum past 2^62")
		}
		prefix[i+1] = prefix[i] + x
	}
	return Option{weights: &weights{prefix: prefix}}
}

// checkWeights panics if a Weighted option does not fit a call over n items.
func checkWeights(verb string, c *callConfig, n int) {
	if c.weights != nil && len(c.weights.prefix)-1 != n {
		panic(fmt.Sprintf("par: %s over %d items with Weighted weights for %d", verb, n, len(c.weights.prefix)-1))
	}
}

// units is the work in [lo, hi): its weight, or its count of indices.
func (c *loopCore) units(lo, hi int64) int64 {
	if c.prefix == nil {
		return hi - lo
	}
	return c.prefix[hi] - c.prefix[lo]
}

// grainEnd is where a grain of grain units starting at cur ends, at most
// hi and at least cur+1: min(cur+grain, hi) without overflow near
// math.MaxInt64 when unweighted, else the first index past cur where
// grain units of weight have run.
func (c *loopCore) grainEnd(cur, hi, grain int64) int64 {
	if c.prefix == nil {
		if grain < hi-cur {
			return cur + grain
		}
		return hi
	}
	target := c.prefix[cur] + grain
	if c.prefix[hi] < target {
		return hi
	}
	// The first end in (cur, hi] with prefix[end] >= target.
	k := sort.Search(int(hi-cur), func(k int) bool { return c.prefix[cur+1+int64(k)] >= target })
	return cur + 1 + int64(k)
}

// midpoint is where a split of [cur, hi) (at least two indices) puts the
// start of its upper half: half the count, or where the cumulative weight
// is nearest half, leaving both halves at least one index.
func (c *loopCore) midpoint(cur, hi int) int {
	if c.prefix == nil || hi-cur < 3 || c.prefix[hi] == c.prefix[cur] {
		return cur + (hi-cur)/2 // unweighted, or nothing to balance
	}
	half := c.prefix[cur] + (c.prefix[hi]-c.prefix[cur])/2
	m := cur + 1 + sort.Search(hi-cur-1, func(k int) bool { return c.prefix[cur+1+k] >= half })
	// prefix[m] >= half > prefix[m-1] (or m == hi): take the nearer cut.
	if m > cur+1 && (m == hi || half-c.prefix[m-1] < c.prefix[m]-half) {
		m--
	}
	return min(max(m, cur+1), hi-1)
}

// cut returns where the upper 1/parts of [cur, hi) begins (in weight, for
// a weighted call): the boundary of the next part a split for several idle
// workers offers (offerParts). parts 2 is midpoint; hi-cur >= parts >= 2.
func (c *loopCore) cut(cur, hi, parts int) int {
	if parts == 2 {
		return c.midpoint(cur, hi)
	}
	if c.prefix == nil || c.prefix[hi] == c.prefix[cur] {
		return hi - max(1, (hi-cur)/parts)
	}
	from := c.prefix[hi] - (c.prefix[hi]-c.prefix[cur])/int64(parts)
	m := cur + 1 + sort.Search(hi-cur-1, func(k int) bool { return c.prefix[cur+1+k] >= from })
	return min(max(m, cur+1), hi-1)
}

// capWeightedGrain bounds a weighted grain [cur, end) to at most twice the
// items of the piece's previous grain (*last, 0 before the first: one
// item), and records its count. A grain sized in weight runs whole, so
// where the weights understate the cost many expensive items would merge
// into one grain that nobody else can take: with the skewed costs sorted
// and the weights reversed, the largest grain held 7-22% of the call's
// cost (3.3%, the costliest item, with right weights or none). Doubling
// reaches any grain the weights ask for within a few steps.
func (c *loopCore) capWeightedGrain(cur, end int64, last *int64) int64 {
	end = min(end, cur+max(1, 2**last))
	*last = end - cur
	return end
}
