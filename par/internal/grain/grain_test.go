package grain

import (
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/parloop/parloop/par/internal/platform"
)

// prefix returns the prefix sums of w, as Weighted builds them.
func prefix(w ...int64) []int64 {
	p := make([]int64, len(w)+1)
	for i, x := range w {
		p[i+1] = p[i] + x
	}
	return p
}

func abs(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// Catches: thresholds left in nanoseconds, or not replaced by a
// calibration.
func TestThresholdsAreTicks(t *testing.T) {
	Calibrate()
	tk := Thresholds()
	want := Ticks{
		Target: platform.NsToTicks(TargetNs), Calibrated: platform.NsToTicks(CalibratedNs),
		SplitMin: platform.NsToTicks(SplitMinNs), SplitWake: platform.NsToTicks(SplitWakeNs),
		CutAge: platform.NsToTicks(CutAgeNs), CostlyItem: platform.NsToTicks(CostlyItemNs),
		KickEvery: platform.NsToTicks(KickEveryNs),
		Young:     platform.NsToTicks(YoungNs),
	}
	if *tk != want {
		t.Fatalf("Thresholds() = %+v, want %+v", *tk, want)
	}
	if tk.Target < 2 || tk.Calibrated < 1 {
		t.Fatalf("Thresholds() = %+v: a target too short to size grains by", *tk)
	}
}

// Catches: a grain sized away from the target, one that grows more than
// 64-fold a step, passes MaxGrain, falls under the Grain hint or to 0, a
// cost believed from a grain too short to measure it, or a division by a
// grain timed at 0 ticks.
func TestAdaptAimsAtTheTarget(t *testing.T) {
	tk := Thresholds()
	T := tk.Target
	z := &Sizer{MinGrain: 1}
	adapt := func(grain, iters, dt int64) Pacer {
		pc := Pacer{grain: grain}
		z.Adapt(&pc, iters, dt)
		return pc
	}
	if pc := adapt(1000, 1000, 4*T); pc.grain != 250 {
		t.Errorf("a grain of 1000 that took 4× the target: next %d, want 250", pc.grain)
	}
	for _, dt := range []int64{T/2 + 1, T, 2 * T} {
		if pc := adapt(1000, 1000, dt); pc.grain != 1000 {
			t.Errorf("a grain of 1000 that took %d ticks (target %d): next %d, want it unchanged", dt, T, pc.grain)
		}
	}
	if T >= 20 {
		if pc := adapt(1000, 1000, T/10); pc.grain < 9000 || pc.grain > 11000 {
			t.Errorf("a grain of 1000 that took 1/10 of the target: next %d, want about 10000", pc.grain)
		}
	}
	if pc := adapt(1000, 1000, 1); pc.grain != 64*1000 {
		t.Errorf("a grain of 1000 that took 1 tick: next %d, want 64× at most, 64000", pc.grain)
	}
	for _, g := range []int64{MaxGrain / 2, MaxGrain} {
		if pc := adapt(g, g, 1); pc.grain != MaxGrain {
			t.Errorf("a grain of %d that took 1 tick: next %d, want MaxGrain", g, pc.grain)
		}
	}
	if pc := adapt(MaxGrain, MaxGrain, 1<<62); pc.grain <= 0 || pc.grain >= MaxGrain {
		t.Errorf("a grain of MaxGrain that took 2^62 ticks: next %d, want it smaller and positive", pc.grain)
	}
	if pc := adapt(1000, 1000, 0); pc.grain != 64*1000 {
		t.Errorf("a grain timed at 0 ticks: next %d, want 64000", pc.grain)
	}
	z.MinGrain = 500
	if pc := adapt(1000, 1000, 100*T); pc.grain != 500 {
		t.Errorf("a slow grain under Grain(500): next %d, want 500", pc.grain)
	}
	z.MinGrain = 0
	if pc := adapt(1, 1, 1<<40); pc.grain != 1 {
		t.Errorf("a very slow grain of 1: next %d, want 1", pc.grain)
	}
	if pc := adapt(1, 1, tk.Calibrated-1); tk.Calibrated > 1 && pc.Measured() {
		t.Errorf("a grain of %d ticks measured the cost (calibrated from %d)", tk.Calibrated-1, tk.Calibrated)
	}
	if pc := adapt(1, 7, tk.Calibrated); !pc.Measured() || pc.costIters != 7 || pc.costTicks != tk.Calibrated {
		t.Errorf("a grain of 7 in %d ticks: cost %d/%d, want 7/%d", tk.Calibrated, pc.costIters, pc.costTicks, tk.Calibrated)
	}
}

// Catches: an unmeasured grain of costly items (a recursion's leaf) sized
// to take all of its piece's rest at once, cheap items held to slow start,
// slow start after the cost is measured, or with the experiment off.
func TestSlowStartForCostlyItems(t *testing.T) {
	tk := Thresholds()
	if tk.CostlyItem < 2 || 4*tk.CostlyItem >= tk.Calibrated {
		t.Skipf("thresholds %+v: too few ticks to place grains between CostlyItem and Calibrated", *tk)
	}
	adapt := func(z *Sizer, pc Pacer, iters, dt int64) int64 {
		z.Adapt(&pc, iters, dt)
		return pc.grain
	}
	z := &Sizer{MinGrain: 1}
	if g := adapt(z, Pacer{grain: 1}, 1, tk.CostlyItem); g != 2 {
		t.Errorf("one item of CostlyItem ticks, unmeasured: next grain %d, want 2", g)
	}
	if g := adapt(z, Pacer{grain: 4}, 4, 4*tk.CostlyItem); g != 8 {
		t.Errorf("4 items of CostlyItem ticks each, unmeasured: next grain %d, want 8", g)
	}
	if g, want := adapt(z, Pacer{grain: 1}, 1, tk.CostlyItem-1), min(64, tk.Target/(tk.CostlyItem-1)); g != want {
		t.Errorf("one item just under CostlyItem, unmeasured: next grain %d, want %d (the target's, at most 64)", g, want)
	}
	measured := Pacer{grain: 1, costIters: 1, costTicks: tk.CostlyItem}
	if g, want := adapt(z, measured, 1, tk.CostlyItem), min(64, tk.Target/tk.CostlyItem); g != want {
		t.Errorf("one costly item with the cost measured: next grain %d, want %d", g, want)
	}
	off := &Sizer{MinGrain: 1, NoSlowStart: true}
	if g, want := adapt(off, Pacer{grain: 1}, 1, tk.CostlyItem), min(64, tk.Target/tk.CostlyItem); g != want {
		t.Errorf("slowstart=off, one costly item: next grain %d, want %d", g, want)
	}
}

// Catches: a cost compared in 64 bits, which wraps near 2^63, or one
// believed before it was measured.
func TestCostAtLeast(t *testing.T) {
	if pc := (Pacer{}); pc.CostAtLeast(math.MaxInt64, 0) {
		t.Fatal("an unmeasured pacer priced work")
	}
	pc := Pacer{costIters: 1000, costTicks: 3}
	if !pc.CostAtLeast(1000, 3) || pc.CostAtLeast(999, 3) {
		t.Fatal("3 ticks per 1000 units: 1000 units must take 3 ticks, 999 not")
	}
	rng := rand.New(rand.NewPCG(5, 6))
	near := func() int64 { return math.MaxInt64 - rng.Int64N(1<<20) }
	for i := range 10000 {
		var rem, ticks int64
		pc := Pacer{costIters: near(), costTicks: near()}
		if i%2 == 0 {
			pc.costIters = 1 + rng.Int64N(1<<40)
		}
		rem, ticks = near(), near()
		if i%3 == 0 {
			ticks = rng.Int64N(1 << 30)
		}
		l := new(big.Int).Mul(big.NewInt(rem), big.NewInt(pc.costTicks))
		r := new(big.Int).Mul(big.NewInt(ticks), big.NewInt(pc.costIters))
		if want := l.Cmp(r) >= 0; pc.CostAtLeast(rem, ticks) != want {
			t.Fatalf("CostAtLeast(%d, %d) at %d/%d = %v, want %v", rem, ticks, pc.costTicks, pc.costIters, !want, want)
		}
	}
}

// Catches: a published grain that shrinks the call's, a cost not in 1/1000
// ticks, rounded to 0, or overflowing; a new piece that starts from
// neither the hint nor what was published.
func TestPublishAndNewPacer(t *testing.T) {
	z := &Sizer{MinGrain: 100}
	if pc := z.NewPacer(); pc.grain != 100 || pc.Measured() {
		t.Fatalf("a first piece under Grain(100): %+v, want grain 100, unmeasured", pc)
	}
	z.Publish(&Pacer{grain: 64})
	if z.Grain.Load() != 64 || z.CostMt.Load() != 0 {
		t.Fatalf("after an unmeasured grain of 64: grain %d, cost %d; want 64, 0", z.Grain.Load(), z.CostMt.Load())
	}
	z.Publish(&Pacer{grain: 32, costIters: 3, costTicks: 2})
	if z.Grain.Load() != 64 || z.CostMt.Load() != 666 {
		t.Fatalf("after 3 iterations in 2 ticks: grain %d, cost %d; want 64 kept, 666", z.Grain.Load(), z.CostMt.Load())
	}
	if pc := z.NewPacer(); pc.grain != 100 || pc.costIters != 1000 || pc.costTicks != 666 {
		t.Fatalf("a piece after the publish: %+v, want grain 100 (the hint), cost 666/1000", pc)
	}
	z.Publish(&Pacer{grain: 500, costIters: 1_000_000, costTicks: 1})
	if z.Grain.Load() != 500 || z.CostMt.Load() != 1 {
		t.Fatalf("after 10^6 iterations in 1 tick: grain %d, cost %d; want 500, 1", z.Grain.Load(), z.CostMt.Load())
	}
	if pc := z.NewPacer(); pc.grain != 500 {
		t.Fatalf("a piece after a grain of 500 was published: grain %d", pc.grain)
	}
	for _, pc := range []Pacer{{costIters: 1, costTicks: math.MaxInt64}, {costIters: 1000, costTicks: math.MaxInt64}} {
		z.Publish(&pc)
		if got := z.CostMt.Load(); got != math.MaxInt64/1000 {
			t.Fatalf("after %d iterations in %d ticks: cost %d, want it saturated at %d", pc.costIters, pc.costTicks, got, int64(math.MaxInt64/1000))
		}
	}
	z.Publish(&Pacer{costIters: 7, costTicks: 7_000_000})
	if got := z.CostMt.Load(); got != 1_000_000_000 {
		t.Fatalf("after 7 iterations in 7*10^6 ticks: cost %d, want 10^9", got)
	}
}

// Catches: an unweighted grain that overruns its piece or overflows near
// math.MaxInt64.
func TestEndUnweighted(t *testing.T) {
	var z Sizer
	pc := Pacer{grain: 10}
	for _, c := range []struct{ cur, hi, want int64 }{
		{5, 100, 15}, {95, 100, 100}, {0, 10, 10}, {math.MaxInt64 - 3, math.MaxInt64, math.MaxInt64},
	} {
		if got := z.End(&pc, c.cur, c.hi); got != c.want {
			t.Errorf("End(grain 10, %d, %d) = %d, want %d", c.cur, c.hi, got, c.want)
		}
	}
	pc.grain = MaxGrain
	if got := z.End(&pc, math.MaxInt64-MaxGrain+1, math.MaxInt64); got != math.MaxInt64 {
		t.Errorf("End(grain MaxGrain) near math.MaxInt64 = %d", got)
	}
	if z.Units(3, 10) != 7 || z.Midpoint(0, 2) != 1 || z.Midpoint(3, 10) != 6 {
		t.Errorf("unweighted: Units(3, 10) = %d, Midpoint(0, 2) = %d, Midpoint(3, 10) = %d; want 7, 1, 6",
			z.Units(3, 10), z.Midpoint(0, 2), z.Midpoint(3, 10))
	}
}

// Catches: a weighted split that halves the count instead of the weight,
// cuts an empty half, or a grain that overruns its weight or stops short.
func TestWeightedMidpointAndGrain(t *testing.T) {
	mk := func(w ...int64) *Sizer { return &Sizer{Prefix: prefix(w...)} }
	cases := []struct {
		w       []int64
		lo, hi  int
		wantMid int
	}{
		{[]int64{1000, 1, 1, 1, 1, 1, 1, 1}, 0, 8, 1}, // the heavy item alone
		{[]int64{1, 1, 1, 1, 1, 1, 1, 1000}, 0, 8, 7},
		{[]int64{1, 1, 1, 1}, 0, 4, 2},
		{[]int64{5, 5}, 0, 2, 1},
		{[]int64{0, 0, 0, 0, 0}, 0, 5, 2},                  // no weight: at least one index each side
		{[]int64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 0, 10, 7}, // 28 | 27
		{[]int64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 5, 10, 8}, // 21 | 19
	}
	for _, c := range cases {
		got := mk(c.w...).Midpoint(c.lo, c.hi)
		if got != c.wantMid {
			t.Errorf("Midpoint(%v [%d,%d)) = %d, want %d", c.w, c.lo, c.hi, got, c.wantMid)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		n := 2 + rng.IntN(50)
		w := make([]int64, n)
		for i := range w {
			w[i] = rng.Int64N(100)
			if rng.IntN(4) == 0 {
				w[i] = 0
			}
		}
		z := mk(w...)
		lo := rng.IntN(n - 1)
		hi := lo + 2 + rng.IntN(n-lo-1)
		m := z.Midpoint(lo, hi)
		if m <= lo || m >= hi {
			t.Fatalf("Midpoint(%v [%d,%d)) = %d: an empty half", w, lo, hi, m)
		}
		// No other cut is nearer half the weight.
		total := z.Units(int64(lo), int64(hi))
		best := int64(1 << 62)
		for k := lo + 1; k < hi; k++ {
			best = min(best, abs(2*z.Units(int64(lo), int64(k))-total))
		}
		if d := abs(2*z.Units(int64(lo), int64(m)) - total); d != best {
			t.Fatalf("Midpoint(%v [%d,%d)) = %d is %d off half, the best cut %d", w, lo, hi, m, d, best)
		}
		g := 1 + rng.Int64N(150)
		pc := Pacer{grain: g, lastItems: int64(n)} // the cap on items out of the way; checked below
		end := z.End(&pc, int64(lo), int64(hi))
		if end <= int64(lo) || end > int64(hi) {
			t.Fatalf("End out of range: %d", end)
		}
		if end < int64(hi) && z.Units(int64(lo), end) < g {
			t.Fatalf("End(%v, %d, %d, %d) = %d stops short", w, lo, hi, g, end)
		}
		if end > int64(lo)+1 && z.Units(int64(lo), end-1) >= g {
			t.Fatalf("End(%v, %d, %d, %d) = %d overruns", w, lo, hi, g, end)
		}
	}
}

// Catches: a weighted grain that covers more than twice the items of its
// piece's previous grain (one item for the first), so that weights that
// understate costs merge many expensive items into one grain nobody can
// take.
func TestWeightedGrainDoublesAtMost(t *testing.T) {
	z := &Sizer{Prefix: prefix(make([]int64, 100)...)} // all weight 0: the weight alone would take everything
	pc := Pacer{grain: 1 << 40}
	cur, want := int64(0), int64(1)
	for cur < 100 {
		end := z.End(&pc, cur, 100)
		if end-cur != min(want, 100-cur) {
			t.Fatalf("grain at %d covers %d items, want %d", cur, end-cur, min(want, 100-cur))
		}
		cur, want = end, 2*want
	}
}

// Catches: a plain run's chunk that stops doubling early, or overflows.
func TestNextChunk(t *testing.T) {
	for _, c := range []struct{ size, want int }{
		{1, 2}, {3, 6}, {1 << 59, 1 << 60}, {1<<60 - 1, 1<<61 - 2}, {1 << 60, 1 << 60}, {math.MaxInt, math.MaxInt},
	} {
		if got := NextChunk(c.size); got != c.want {
			t.Errorf("NextChunk(%d) = %d, want %d", c.size, got, c.want)
		}
	}
}

// Catches: a chunk that runs past n, leaves a shorter tail behind it, or
// stops short of n where fewer than twice its size remain: 8 indices go in
// chunks of 1, 2 and 5, and chunks of any size tile [0, n).
func TestChunkEnd(t *testing.T) {
	var ends []int
	for next, size := 0, 1; next < 8; size = NextChunk(size) {
		next = ChunkEnd(next, 8, size)
		ends = append(ends, next)
	}
	if want := []int{1, 3, 8}; !slices.Equal(ends, want) {
		t.Errorf("chunk ends of 8 indices = %v, want %v", ends, want)
	}
	for n := 1; n <= 300; n++ {
		prev := 0
		for next, size := 0, 1; next < n; size = NextChunk(size) {
			end := ChunkEnd(next, n, size)
			if end <= next || end > n || end-next < min(size, n-next) {
				t.Fatalf("ChunkEnd(%d, %d, %d) = %d", next, n, size, end)
			}
			if end < n && n-end < end-next {
				t.Fatalf("n=%d: chunk [%d, %d) leaves %d behind it", n, next, end, n-end)
			}
			prev, next = end, end
		}
		if prev != n {
			t.Fatalf("n=%d: chunks end at %d", n, prev)
		}
	}
	if got := ChunkEnd(0, math.MaxInt, 1<<61); got != 1<<61 {
		t.Errorf("ChunkEnd(0, MaxInt, 1<<61) = %d, want %d", got, 1<<61)
	}
	if got := ChunkEnd(1, math.MaxInt, math.MaxInt/2+1); got != math.MaxInt {
		t.Errorf("ChunkEnd with an overflowing 2*size = %d, want MaxInt", got)
	}
}
