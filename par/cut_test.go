package par_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/parloop/parloop/par"
)

// waitFor spins until cond holds or d has passed, and reports whether it
// held.
func waitFor(d time.Duration, cond func() bool) bool {
	for t0 := time.Now(); time.Since(t0) < d; {
		if cond() {
			return true
		}
	}
	return cond()
}

// Catches: the rest of a piece hidden behind its running grain
// (par/internal/cut).
// The first item of each call waits until another item of the call has
// started: with the rest cut by the idle worker it returns at once; without
// cuts nobody can start another item until it returns, and it gives up
// after 10 s. For over 1,000 items whose first was half the work took 1.52x
// the best schedule on two workers before cuts, 1.02x after.
func TestCutTakesTheRestOfALongFirstItem(t *testing.T) {
	atLeastTwoPs(t)
	p := newPool(t, par.Workers(2), par.SpinForTest())
	for _, verb := range []string{"For", "ForRange", "ReduceRange"} {
		firstItemWaitsForAnother(t, p, verb)
	}
}

// Catches: a worker that parked before a call began never seeing the rest
// of the call's long first item (the kick, offer.go). As above, on a pool
// whose workers are all parked when each call starts; without the kick the
// first item gives up after 10 s.
func TestKickWakesAParkedWorkerForALongFirstItem(t *testing.T) {
	atLeastTwoPs(t)
	for _, verb := range []string{"For", "ForRange", "ReduceRange"} {
		p := newPool(t, par.Workers(2))       // one worker thread, and the caller
		par.For(100, func(int) {}, par.On(p)) // start the worker
		if !waitFor(10*time.Second, func() bool { return par.ParkedWorkersForTest(p) == 1 }) {
			t.Fatalf("%s: the pool's worker did not park within 10 s", verb)
		}
		// Past the kick's rate limit and any stale saturation reading (pool.go).
		time.Sleep(20 * time.Millisecond)
		firstItemWaitsForAnother(t, p, verb)
	}
}

// firstItemWaitsForAnother runs verb over 1,000 items on p, the first of
// which waits up to 10 s for another item of the call to start, and
// reports an error if none did, or if not every item ran once.
func firstItemWaitsForAnother(t *testing.T, p *par.Pool, verb string) {
	t.Helper()
	const n = 1000
	var others atomic.Int32
	first := func() bool {
		return waitFor(10*time.Second, func() bool { return others.Load() > 0 })
	}
	var sawOthers bool
	switch verb {
	case "For":
		par.For(n, func(i int) {
			if i == 0 {
				sawOthers = first()
			} else {
				others.Add(1)
			}
		}, par.On(p))
	case "ForRange":
		par.ForRange(n, func(lo, hi int) {
			if lo == 0 {
				sawOthers = first()
				lo++
			}
			others.Add(int32(hi - lo))
		}, par.On(p))
	case "ReduceRange":
		got := par.ReduceRange(n, 0, func(lo, hi int) int {
			s := 0
			for i := lo; i < hi; i++ {
				if i == 0 {
					sawOthers = first()
				} else {
					others.Add(1)
				}
				s += i
			}
			return s
		}, func(a, b int) int { return a + b }, par.On(p))
		if want := n * (n - 1) / 2; got != want {
			t.Errorf("ReduceRange: sum %d, want %d", got, want)
		}
	}
	if !sawOthers {
		t.Errorf("%s: no other item started in 10 s while the first ran on a pool with an idle worker", verb)
	}
	if got := others.Load(); got != n-1 {
		t.Errorf("%s: %d other items ran, want %d", verb, got, n-1)
	}
}

// intervals records the pieces [lo, hi) a call ran.
type intervals struct {
	mu  sync.Mutex
	all [][2]int
}

func (iv *intervals) add(lo, hi int) {
	iv.mu.Lock()
	iv.all = append(iv.all, [2]int{lo, hi})
	iv.mu.Unlock()
}

// partitions reports whether the recorded pieces cover [0, n) exactly once.
func (iv *intervals) partitions(n int) error {
	all := slices.Clone(iv.all)
	slices.SortFunc(all, func(a, b [2]int) int { return a[0] - b[0] })
	next := 0
	for _, r := range all {
		if r[0] != next || r[1] <= r[0] {
			return fmt.Errorf("piece [%d, %d) after index %d", r[0], r[1], next)
		}
		next = r[1]
	}
	if next != n {
		return fmt.Errorf("pieces end at %d, want %d", next, n)
	}
	return nil
}

// forRangePieces runs ForRange over [0, n) on p, work(i) for each index,
// and reports whether the pieces run partition the range.
func forRangePieces(n int, p *par.Pool, work func(int)) error {
	var iv intervals
	par.ForRange(n, func(lo, hi int) {
		iv.add(lo, hi)
		for i := lo; i < hi; i++ {
			work(i)
		}
	}, par.On(p))
	return iv.partitions(n)
}

// reduceInOrder runs ReduceRange over [0, n) on p, concatenating the
// indices (work(i) for each; nested, if set, runs inside pieces now and
// then), and reports whether the result is 0, 1, ..., n-1.
func reduceInOrder(n int, p *par.Pool, work func(int), nested func()) error {
	got := par.ReduceRange(n, []int(nil), func(lo, hi int) []int {
		out := make([]int, 0, hi-lo)
		for i := lo; i < hi; i++ {
			work(i)
			out = append(out, i)
		}
		if nested != nil && lo%7 == 3 && hi-lo > 1 {
			nested()
		}
		return out
	}, func(a, b []int) []int { return append(slices.Clip(a), b...) }, par.On(p))
	if len(got) != n {
		return fmt.Errorf("%d elements, want %d", len(got), n)
	}
	for i, v := range got {
		if v != i {
			return fmt.Errorf("element %d is %d (out of order or lost)", i, v)
		}
	}
	return nil
}

// Catches: a cut that loses or repeats indices, or breaks ReduceRange's
// order, when thieves cut the rest of running pieces while their owners
// split, finish, and run nested calls (the protocol in par/internal/cut).
// Every call has a few long items at random places among cheap ones, on
// pools whose idle workers spin, so cuts race with the owners' own splits
// and ends; the pieces run must partition the range (the linearizability
// of the pieces: each index taken exactly once), and ReduceRange's
// concatenation must come out in index order.
func TestCutsPartitionTheRange(t *testing.T) {
	rounds := sized(15, 60)
	for _, workers := range []int{2, 4, 8} {
		p := newPool(t, par.Workers(workers), par.SpinForTest())
		r := rand.New(rand.NewPCG(uint64(workers), 7))
		for round := range rounds {
			n := 2 + r.IntN(400)
			long := map[int]bool{}
			for range 1 + r.IntN(4) {
				long[r.IntN(n)] = true
			}
			// Draw the long items' durations before the call: r is not safe
			// for concurrent use.
			dur := make([]time.Duration, n)
			for i := range dur {
				if long[i] {
					dur[i] = time.Duration(20+r.IntN(80)) * time.Microsecond
				}
			}
			work := func(i int) {
				if dur[i] > 0 {
					spinFor(dur[i])
				}
			}
			if err := forRangePieces(n, p, work); err != nil {
				t.Fatalf("workers %d, round %d, ForRange over %d: %v", workers, round, n, err)
			}
			// A nested call now and then: its pieces run inside the grain.
			if err := reduceInOrder(n, p, work, func() { par.For(2, func(int) {}, par.On(p)) }); err != nil {
				t.Fatalf("workers %d, round %d, ReduceRange over %d: %v", workers, round, n, err)
			}
		}
	}
}

// Catches: a panic or an error in a grain whose rest a thief is cutting or
// has cut that hangs the call, loses the panic, or leaves the pool
// unusable: the cut part must see the stop and the join must complete.
func TestPanicInAGrainThatWasCut(t *testing.T) {
	atLeastTwoPs(t)
	p := newPool(t, par.Workers(2), par.SpinForTest())
	for range 5 {
		var others atomic.Int32
		wantPanicError(t, "For", func() {
			par.For(1000, func(i int) {
				if i == 0 {
					waitFor(10*time.Second, func() bool { return others.Load() > 0 })
					panic("first item")
				}
				others.Add(1)
				spinFor(time.Microsecond)
			}, par.On(p))
		})
		boom := errors.New("boom")
		err := par.ForErr(t.Context(), 1000, func(_ context.Context, i int) error {
			if i == 0 {
				waitFor(10*time.Second, func() bool { return others.Load() > 0 })
				return boom
			}
			others.Add(1)
			return nil
		}, par.On(p))
		if !errors.Is(err, boom) {
			t.Fatalf("ForErr: %v, want %v", err, boom)
		}
	}
	var count atomic.Int64
	par.For(100, func(int) { count.Add(1) }, par.On(p))
	if count.Load() != 100 {
		t.Fatalf("the pool after panics in cut grains ran %d of 100 items", count.Load())
	}
}

// FuzzCuts drives the length, the places of up to three long items, the
// pool size and the verb through calls on pools whose idle workers spin,
// so that thieves cut running pieces, and checks that the pieces run tile
// [0, n) (ForRange) and that ReduceRange's concatenation is in order.
func FuzzCuts(f *testing.F) {
	for _, seed := range [][4]uint64{{1000, 0, 2, 0}, {1000, 999, 4, 1}, {3, 1, 2, 1}, {257, 0x1_0040_0080, 8, 0}} {
		f.Add(seed[0], seed[1], seed[2], seed[3])
	}
	pools := map[int]*par.Pool{}
	f.Cleanup(func() {
		for _, p := range pools {
			p.Close()
		}
	})
	f.Fuzz(func(t *testing.T, n64, long64, workers64, verb64 uint64) {
		workers := int(2 + workers64%7)
		p := pools[workers]
		if p == nil {
			p = par.NewPool(par.Workers(workers), par.SpinForTest())
			pools[workers] = p
		}
		n := int(1 + n64%2000)
		long := map[int]bool{}
		for k := range 3 {
			long[int((long64>>(20*k))&0xfffff)%n] = true
		}
		work := func(i int) {
			if long[i] {
				spinFor(30 * time.Microsecond)
			}
		}
		err := forRangePieces(n, p, work)
		if verb64%2 == 1 {
			err = reduceInOrder(n, p, work, nil)
		}
		if err != nil {
			t.Fatalf("verb %d over %d on %d workers: %v", verb64%2, n, workers, err)
		}
	})
}
