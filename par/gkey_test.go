package par

import (
	"sync"
	"testing"
)

// Catches: a goroutine key that is not stable within a goroutine or not
// distinct between live goroutines, on the fast path and on the fallback
// (which only runs in production on other architectures).
func TestGoroutineKeys(t *testing.T) {
	t.Logf("assembly fast path: %v", fastGoroutineKey)
	for name, key := range map[string]func() uintptr{"goroutineKey": goroutineKey, "slowGoroutineKey": slowGoroutineKey} {
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
			if k == 0 || k == tombstone {
				t.Errorf("%s: reserved key %x", name, k)
			}
			if seen[k] {
				t.Errorf("%s: two live goroutines share key %x", name, k)
			}
			seen[k] = true
		}
	}
}

// Catches: a worker table that loses entries across a rehash, finds a
// removed worker, or returns another goroutine's slot.
func TestWorkerTable(t *testing.T) {
	const n = 300 // several rehashes from the initial 64 entries
	slots := make([]*slot, n)
	var registered, release, done sync.WaitGroup
	registered.Add(n)
	release.Add(1)
	errs := make(chan string, 2*n)
	for i := range n {
		slots[i] = &slot{id: int32(i)}
		done.Go(func() {
			registerWorker(slots[i])
			registered.Done()
			release.Wait()
			if got := lookupWorker(goroutineKey()); got != slots[i] {
				errs <- "lookup after rehashes returned the wrong slot"
			}
			unregisterWorker()
			if got := lookupWorker(goroutineKey()); got != nil {
				errs <- "lookup after unregister found a slot"
			}
		})
	}
	registered.Wait()
	if got := lookupWorker(goroutineKey()); got != nil {
		t.Errorf("a goroutine that is no worker found slot %d", got.id)
	}
	release.Done()
	done.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}
