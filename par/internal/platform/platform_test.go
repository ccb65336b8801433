package platform

import (
	"sync"
	"testing"
	"time"
)

// Catches: a goroutine key that is not stable within a goroutine or not
// distinct between live goroutines, on the fast path and on the fallback
// (which only runs in production on other architectures).
func TestGoroutineKeys(t *testing.T) {
	t.Logf("assembly fast path: %v", FastGoroutineKey)
	for name, key := range map[string]func() uintptr{"GoroutineKey": GoroutineKey, "SlowGoroutineKey": SlowGoroutineKey} {
		const n = 32
		keys := make([]uintptr, n)
		var wg sync.WaitGroup
		var ready, release sync.WaitGroup
		ready.Add(n)
		release.Add(1)
		for i := range n {
			wg.Go(func() {
				k := key()
				ready.Done()
				release.Wait() // keep every goroutine alive while keys are compared
				if k2 := key(); k2 != k {
					t.Errorf("%s: key changed within a goroutine: %x then %x", name, k, k2)
				}
				keys[i] = k
			})
		}
		ready.Wait()
		release.Done()
		wg.Wait()
		seen := map[uintptr]bool{}
		for _, k := range keys {
			if k == 0 || k == ^uintptr(0) {
				t.Errorf("%s: reserved key %x", name, k)
			}
			if seen[k] {
				t.Errorf("%s: two live goroutines share key %x", name, k)
			}
			seen[k] = true
		}
	}
}

// TicksToNs keeps a year of ticks (at ten per ns) from overflowing, and
// agrees with the plain formula where that does not overflow.
func TestTicksToNsLongSpans(t *testing.T) {
	year := int64(365 * 24 * time.Hour)
	if ns := TicksToNs(NsToTicks(1) * year); ns < year/2 || ns > year*2 {
		t.Errorf("TicksToNs of a year's ticks = %d ns, want about %d", ns, year)
	}
	if ns := TicksToNs(10 * year); ns <= 0 {
		t.Errorf("TicksToNs(%d) = %d: overflowed", 10*year, ns)
	}
	for _, ticks := range []int64{0, 1, 999, 123456789, 1 << 40} {
		if got, want := TicksToNs(ticks), ticks<<10/rate(); got != want {
			t.Errorf("TicksToNs(%d) = %d, want %d", ticks, got, want)
		}
	}
}
