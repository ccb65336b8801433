package platform

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
)

// Catches: a read period outside its bounds (a period under 100 µs reads
// the metric too often; one over 5 ms acts on answers too old) or one
// that does not grow with the read's cost.
func TestSaturationPeriodFollowsReadCost(t *testing.T) {
	Calibrate()
	lo, hi := NsToTicks(saturationEvery), NsToTicks(saturationMaxEvery)
	for _, cost := range []int64{0, lo / saturationCostX, 3 * lo / saturationCostX, 10 * hi} {
		saturation.at.Store(0)
		// A read that starts cost ticks before now: what the period is set from.
		done := make(chan int64)
		go func() {
			now := Ticks() - cost
			Saturated(now, 1)
			done <- saturation.every.Load()
		}()
		every := <-done
		if every < lo || every > hi {
			t.Fatalf("read costing %d ticks: period %d ticks, want within [%d, %d]", cost, every, lo, hi)
		}
		if want := min(saturationCostX*cost, hi); every < want {
			t.Fatalf("read costing at least %d ticks: period %d ticks, want at least %d", cost, every, want)
		}
	}
	saturation.at.Store(0)
	saturation.every.Store(0)
}

// Catches: a saturation answer that does not follow the scheduler's run
// queues (a wrong metric, a comparison the wrong way round). At GOMAXPROCS=1
// the goroutines this test starts wait in the run queue while it reads
// (started, not yet run, or spinning and preempted: runnable either way, and
// none running while the test holds the one P), so the count is exact: 8
// runnable goroutines saturate 4 Ps; once they have ended, they do not.
// Not parallel: GOMAXPROCS is global, and so is the answer.
func TestSaturatedCountsRunnableGoroutines(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	defer saturation.at.Store(0)
	var stop atomic.Bool
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for !stop.Load() {
			}
		})
	}
	saturation.at.Store(0) // the next call reads the metric
	yes := Saturated(Ticks(), 4)
	stop.Store(true)
	wg.Wait()
	if !yes {
		t.Errorf("8 runnable goroutines at GOMAXPROCS=1: Saturated(4 Ps) = false; want true")
	}
	saturation.at.Store(0)
	if Saturated(Ticks(), 4) {
		t.Errorf("after the goroutines ended: Saturated(4 Ps) = true; want false")
	}
}
