package platform

import (
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
