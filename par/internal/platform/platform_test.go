package platform

import (
	"sync"
	"testing"
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
