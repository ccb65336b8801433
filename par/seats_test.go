package par

import (
	"sync"
	"testing"

	"github.com/parloop/parloop/par/internal/platform"
)

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
			if got := lookupWorker(platform.GoroutineKey()); got != slots[i] {
				errs <- "lookup after rehashes returned the wrong slot"
			}
			unregisterWorker()
			if got := lookupWorker(platform.GoroutineKey()); got != nil {
				errs <- "lookup after unregister found a slot"
			}
		})
	}
	registered.Wait()
	if got := lookupWorker(platform.GoroutineKey()); got != nil {
		t.Errorf("a goroutine that is no worker found slot %d", got.id)
	}
	release.Done()
	done.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}
