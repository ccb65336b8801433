package par_test

import (
	"slices"
	"testing"
	"time"

	"github.com/parloop/parloop/par"
)

// Catches: workers that never stop spinning, or wake each other in a loop,
// once the work is gone. After a burst of work every worker must come to
// block on its token, listed as a sleeper, and then stay blocked: a pool
// with nothing to do counts no wake-up (Idle grows only when a parked
// worker wakes), no steal attempt and no piece. BenchmarkIdleCPU reports
// the CPU an idle pool uses.
// Not parallel: it looks at every worker goroutine in the process.
func TestIdlePoolStaysParked(t *testing.T) {
	p := newPool(t, par.Workers(4))
	a := make([]float64, 1<<16)
	for range 20 {
		par.For(len(a), func(i int) { a[i] = float64(i) * 1.5 }, par.On(p))
	}
	waitParked(t, p)
	before := p.Stats().Workers
	time.Sleep(50 * time.Millisecond) // room for a wake-up loop to show
	after := p.Stats().Workers
	if !slices.Equal(before, after) {
		t.Errorf("an idle pool's workers moved while every one was parked:\nbefore %+v\nafter  %+v", before, after)
	}
	all, blocked := par.BlockedWorkersForTest()
	if parked := par.ParkedWorkersForTest(p); blocked != all || parked != len(after) {
		t.Errorf("an idle pool's workers woke: %d of %d blocked, %d of %d listed as sleepers", blocked, all, parked, len(after))
	}
}
