package par

import (
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Catches: a split for several idle workers whose parts are unequal (by
// count, or by weight for a weighted call), empty, or out of the range.
func TestCutMakesEqualParts(t *testing.T) {
	// Unweighted: cutting the upper 1/parts off, then 1/(parts-1) of what is
	// left, and so on, gives parts that differ by at most one index.
	for n := 2; n <= 200; n++ {
		for k := 2; k <= min(n, 20); k++ {
			c := &core{}
			var sizes []int
			cur, hi := 0, n
			for parts := k; parts >= 2; parts-- {
				at := c.cutAt(cur, hi, parts)
				if at <= cur || at >= hi {
					t.Fatalf("cut(%d, %d, %d) = %d: an empty part", cur, hi, parts, at)
				}
				sizes = append(sizes, hi-at)
				hi = at
			}
			sizes = append(sizes, hi-cur)
			lo, up := sizes[0], sizes[0]
			for _, s := range sizes {
				lo, up = min(lo, s), max(up, s)
			}
			if up-lo > 1 && k > 2 {
				t.Fatalf("[0,%d) in %d parts: sizes %v", n, k, sizes)
			}
		}
	}
	// Weighted: each part's weight is within one item's weight of an equal
	// share.
	rng := rand.New(rand.NewPCG(3, 4))
	for range 500 {
		n := 3 + rng.IntN(200)
		w := make([]int64, n)
		var maxW int64
		for i := range w {
			w[i] = 1 + rng.Int64N(1000)
			maxW = max(maxW, w[i])
		}
		c := &core{prefix: *Weighted(w).weights}
		k := 3 + rng.IntN(min(n-2, 14))
		share := c.units(0, int64(n)) / int64(k)
		cur, hi := 0, n
		for parts := k; parts >= 2 && hi-cur >= 2; parts-- {
			at := c.cutAt(cur, hi, parts)
			if at <= cur || at >= hi {
				t.Fatalf("weighted cut(%d, %d, %d) = %d: an empty part", cur, hi, parts, at)
			}
			if got := c.units(int64(at), int64(hi)); got > share+2*maxW || got+2*maxW < share {
				t.Fatalf("weighted: part [%d,%d) weighs %d, an equal share is %d (items up to %d)", at, hi, got, share, maxW)
			}
			hi = at
		}
	}
}

// Catches: a split that feeds only one of several sleeping workers (a
// binary split), so that the others start one grain of a thief later each:
// with k workers asleep, the first split of a call must offer k equal
// parts, whose first items are the first each worker runs. Each part's
// first item, and the caller's next one, wait until every part has
// started, so that no worker or caller can take a second part before a
// slower worker has taken its first (within a liveness bound).
func TestOneSplitFeedsEverySleepingWorker(t *testing.T) {
	const workers, n = 4, 41
	// No kick: with one, a worker woken during the owner's first item
	// cuts the rest in two before the owner's split (offer.go). No cuts:
	// a woken worker could cut a part that another has started, and run
	// that first.
	p := NewPool(Workers(workers+1), withExperiment(func(e *experiment) { e.noKick, e.noCut = true, true })) // workers threads and the caller
	defer p.Close()
	For(workers, func(int) { time.Sleep(time.Millisecond) }, On(p)) // start the workers
	// Wait until every worker sleeps.
	for deadline := time.Now().Add(5 * time.Second); p.sleep.nSleepers.Load() < workers; {
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d workers asleep after 5s", p.sleep.nSleepers.Load(), workers)
		}
		time.Sleep(time.Millisecond)
	}
	// After the owner's first item, [1, 41) in 5 parts: the upper 4 start
	// at 9, 17, 25 and 33 (cut). A binary split would offer 21 first.
	partStarts := map[int]bool{9: true, 17: true, 25: true, 33: true}
	var started atomic.Int32
	var timedOut atomic.Bool
	everyPartStarted := func() {
		for deadline := time.Now().Add(5 * time.Second); started.Load() < workers; time.Sleep(50 * time.Microsecond) {
			if time.Now().After(deadline) {
				timedOut.Store(true)
				return
			}
		}
	}
	caller := goroutineKey()
	var mu sync.Mutex
	first := map[uintptr]int{} // goroutine -> first index it ran
	For(n, func(i int) {
		g := goroutineKey()
		mu.Lock()
		if _, ok := first[g]; !ok && g != caller {
			first[g] = i
		}
		mu.Unlock()
		if partStarts[i] {
			started.Add(1)
		}
		if partStarts[i] || i == 1 {
			everyPartStarted()
		}
		time.Sleep(time.Millisecond) // a cost the first grain measures, well over a split's worth
	}, On(p))
	got := 0
	for _, i := range first {
		if partStarts[i] {
			got++
		}
	}
	if got != workers || timedOut.Load() {
		t.Fatalf("first indices run by the workers: %v; want each of 9, 17, 25, 33", first)
	}
}
