package counters

import (
	"math"
	"sync"
	"testing"

	"go.uber.org/goleak"
)

// The concurrent test adds from goroutines of its own: none may outlive it.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// Catches: a Reset that leaves a counter behind.
func TestSeatReset(t *testing.T) {
	var c Seat
	for i, f := range []interface{ Add(int64) int64 }{&c.Pieces, &c.Steals, &c.FailedSteals, &c.Splits, &c.BusyNs, &c.IdleNs} {
		f.Add(int64(i + 1))
	}
	c.Reset()
	for name, v := range map[string]int64{
		"Pieces": c.Pieces.Load(), "Steals": c.Steals.Load(), "FailedSteals": c.FailedSteals.Load(),
		"Splits": c.Splits.Load(), "BusyNs": c.BusyNs.Load(), "IdleNs": c.IdleNs.Load(),
	} {
		if v != 0 {
			t.Errorf("%s = %d after Reset", name, v)
		}
	}
}

// Catches: a Sum that misses a shard, or counts a call's busy time as
// calls; a Reset that leaves a shard behind.
func TestCallsSumAndReset(t *testing.T) {
	var c Calls
	var wantCalls, wantBusy int64
	for k := uintptr(1); k <= 200; k++ {
		c.Add(k*4096, int64(k))
		wantCalls++
		wantBusy += int64(k)
	}
	used := 0
	for i := range c {
		if c[i].calls.Load() != 0 {
			used++
		}
	}
	if used < Shards/2 {
		t.Errorf("200 keys fell in %d of %d shards", used, Shards)
	}
	if calls, busy := c.Sum(); calls != wantCalls || busy != wantBusy {
		t.Errorf("Sum() = %d calls, %d ns; want %d, %d", calls, busy, wantCalls, wantBusy)
	}
	c.Reset()
	if calls, busy := c.Sum(); calls != 0 || busy != 0 {
		t.Errorf("Sum() after Reset = %d calls, %d ns", calls, busy)
	}
}

// Catches: a lost update when goroutines add to the same shard.
func TestCallsConcurrentAdds(t *testing.T) {
	var c Calls
	const goroutines, adds = 8, 1000
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for range adds {
				c.Add(uintptr(g%2+1), 3) // two keys: every shard written is shared
			}
		})
	}
	wg.Wait()
	if calls, busy := c.Sum(); calls != goroutines*adds || busy != 3*goroutines*adds {
		t.Errorf("Sum() = %d calls, %d ns; want %d, %d", calls, busy, goroutines*adds, 3*goroutines*adds)
	}
}

// Catches: a median taken as the upper or lower middle value of an even
// count, a mean over the wrong count, utilization not over participants ×
// wall, a steal rate over the wrong count, and a division by 0.
func TestSummarize(t *testing.T) {
	for _, c := range []struct {
		name                   string
		busy                   []int64
		wall, pieces, steals   int64
		imb, strag, util, rate float64
	}{
		{name: "odd count", busy: []int64{10, 20, 60}, wall: 100, pieces: 40, steals: 10,
			imb: 60 / 30.0, strag: 60 / 20.0, util: 90 / 300.0, rate: 0.25},
		{name: "even count: median of the middle two", busy: []int64{10, 20, 40, 90}, wall: 100, pieces: 4, steals: 4,
			imb: 90 / 40.0, strag: 90 / 30.0, util: 160 / 400.0, rate: 1},
		{name: "unsorted", busy: []int64{90, 10, 40, 20}, wall: 100,
			imb: 90 / 40.0, strag: 90 / 30.0, util: 160 / 400.0},
		{name: "one participant", busy: []int64{50}, wall: 200, pieces: 7,
			imb: 1, strag: 1, util: 0.25},
		{name: "zero busy", busy: []int64{0, 0, 0}, wall: 100, pieces: 3, steals: 1,
			rate: 1 / 3.0},
		{name: "median 0", busy: []int64{0, 0, 30}, wall: 10,
			imb: 3, util: 1},
		{name: "no wall time", busy: []int64{10, 30}, wall: 0,
			imb: 1.5, strag: 1.5},
		{name: "no participant", pieces: 0, steals: 0},
	} {
		got := Summarize(c.busy, c.wall, c.pieces, c.steals)
		want := Summary{Imbalance: c.imb, Straggler: c.strag, Utilization: c.util, StealRate: c.rate}
		for _, f := range []struct {
			name      string
			got, want float64
		}{
			{"Imbalance", got.Imbalance, want.Imbalance},
			{"Straggler", got.Straggler, want.Straggler},
			{"Utilization", got.Utilization, want.Utilization},
			{"StealRate", got.StealRate, want.StealRate},
		} {
			if math.Abs(f.got-f.want) > 1e-12*math.Max(1, math.Abs(f.want)) {
				t.Errorf("%s: %s = %v, want %v", c.name, f.name, f.got, f.want)
			}
		}
	}
}
