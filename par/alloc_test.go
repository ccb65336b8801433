package par_test

import (
	"math"
	"runtime"
	"testing"

	"github.com/parloop/parloop/par"
)

// allocSink is written by the allocation tests' bodies, one element per
// index, so that the bodies capture nothing and do not race.
var allocSink [1 << 20]int32

func allocBody(i int) { allocSink[i&(len(allocSink)-1)] = int32(i) }

func emptyF() {}
func emptyG() {}

var emptyFG = []func(){emptyF, emptyG}

// invokeBody makes 1000 nested Invoke and Join calls; it captures nothing.
func invokeBody(int) {
	for k := 0; k < 500; k++ {
		par.Invoke(emptyFG)
		par.Join(emptyF, emptyG)
	}
}

// allocs returns the allocations per call of f at GOMAXPROCS=procs: the
// smallest of three batches' averages, measured with testing.AllocsPerRun
// at GOMAXPROCS=1 (where it is a no-op to its own GOMAXPROCS(1)) and with
// the same MemStats count otherwise, so that the workers really run and the
// stealing and splitting paths are counted. The smallest batch is kept
// because a pool that notices the GOMAXPROCS change resizes once, lazily,
// in whichever batch comes first; a cost paid on every call shows in all
// three.
func allocs(procs, runs int, f func()) float64 {
	old := runtime.GOMAXPROCS(procs)
	defer runtime.GOMAXPROCS(old)
	f() // start the workers
	best := math.Inf(1)
	for batch := 0; batch < 3; batch++ {
		var a float64
		if procs == 1 {
			a = testing.AllocsPerRun(runs, f)
		} else {
			f() // warm up, as AllocsPerRun does
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			for i := 0; i < runs; i++ {
				f()
			}
			runtime.ReadMemStats(&after)
			a = float64(after.Mallocs-before.Mallocs) / float64(runs)
		}
		best = min(best, a)
	}
	return best
}

func skipAllocTests(t *testing.T) {
	t.Helper()
	if testing.Short() || raceEnabled {
		t.Skip("allocation counts are not meaningful under -race, and -short skips them")
	}
}

// Catches: per-call or per-split allocations in For (a heap loop frame
// per piece, join nodes that are not recycled, a closure that escapes per
// iteration, a goroutine per call): a call with a non-capturing body
// allocates at most 2 objects, whatever n.
// Not parallel: allocation counts are process-wide.
func TestAllocsFor(t *testing.T) {
	skipAllocTests(t)
	for _, n := range []int{10, 1000, 1_000_000} {
		runs := 100
		if n >= 1_000_000 {
			runs = 10
		}
		for _, procs := range []int{runtime.GOMAXPROCS(0), 1} {
			if a := allocs(procs, runs, func() { par.For(n, allocBody) }); a > 2 {
				t.Errorf("For(%d) at GOMAXPROCS=%d: %v allocations per call; want at most 2", n, procs, a)
			}
		}
	}
}

// Catches: allocation on the nested fork fast path (Invoke's variadic slice
// escaping to the heap, a task or join node allocated per fork): 1000
// nested Invoke/Join calls inside one body add nothing to the call's 2.
// Not parallel: allocation counts are process-wide.
func TestAllocsNestedInvoke(t *testing.T) {
	skipAllocTests(t)
	for _, procs := range []int{runtime.GOMAXPROCS(0), 1} {
		if a := allocs(procs, 50, func() { par.For(1, invokeBody) }); a > 2 {
			t.Errorf("For(1) with 1000 nested Invoke/Join at GOMAXPROCS=%d: %v allocations per call; want at most 2", procs, a)
		}
	}
}
