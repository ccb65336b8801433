package par

import (
	"testing"
	"time"

	"github.com/parloop/parloop/par/internal/platform"
)

// A nested call on a seat whose deque offers a task runs by its verb, in
// chunks that offer nothing of its own (route.go, direct), while no seat
// spins looking for work; once one spins, the call is framed and offers
// the rest behind its first grain at a cut point, where that seat can
// take it. The spinner is counted in by hand, as a worker counts itself in
// before it scans.
func TestNestedCallsFrameWhileASeatSpins(t *testing.T) {
	p := NewPool(Workers(2))
	defer p.Close()
	for _, spinning := range []bool{false, true} {
		points := -1
		For(1, func(int) {
			s := seatOf(platform.GoroutineKey())
			if s == nil {
				t.Fatal("no seat inside a call on the pool")
			}
			for ParkedWorkersForTest(p) != 1 {
				time.Sleep(time.Millisecond)
			}
			var offered task
			s.tasks.PushPublic(&offered)
			if spinning {
				if !p.sleep.TryStartSpinning(1) {
					t.Fatal("could not count a spinner in")
				}
				defer p.sleep.StopSpinning()
			}
			sum := ReduceRangeOf(8, 0, 0, func(_, lo, hi int) int {
				if lo == 0 {
					points = s.cuts.Len()
				}
				return hi - lo
			}, func(a, b int) int { return a + b })
			if sum != 8 {
				t.Errorf("spinning %v: sum %d, want 8", spinning, sum)
			}
			if s.tasks.Public().Pop() != &offered {
				t.Fatalf("spinning %v: a thief took the offered task", spinning)
			}
		}, On(p))
		if want := map[bool]int{false: 0, true: 1}[spinning]; points != want {
			t.Errorf("spinning %v: the first grain ran with %d cut points open, want %d", spinning, points, want)
		}
	}
}
