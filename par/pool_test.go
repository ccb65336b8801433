package par_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/parloop/parloop/par"
)

// Catches: a default pool started at import (an init that starts workers)
// rather than on first use. TestMain records what goleak saw before any test
// ran.
func TestNothingStartsAtImport(t *testing.T) {
	if err := par.ImportTimeGoroutines; err != nil {
		t.Errorf("goroutines were running before any call into par:\n%v", err)
	}
}

// Catches: a worker count that ignores Workers(n) or GOMAXPROCS.
func TestWorkersCount(t *testing.T) {
	t.Parallel()
	if got, want := par.Default().Workers(), runtime.GOMAXPROCS(0); got != want {
		t.Errorf("Default().Workers() = %d; want GOMAXPROCS = %d", got, want)
	}
	if got, want := newPool(t).Workers(), runtime.GOMAXPROCS(0); got != want {
		t.Errorf("NewPool().Workers() = %d; want GOMAXPROCS = %d", got, want)
	}
	for _, k := range []int{1, 2, 3, 5, 2*runtime.NumCPU() + 1} {
		if got := newPool(t, par.Workers(k)).Workers(); got != k {
			t.Errorf("NewPool(Workers(%d)).Workers() = %d", k, got)
		}
	}
}

// smallWorkload runs a loop, a reduction and a nested sort on the case's pool
// and reports what went wrong.
func smallWorkload(t *testing.T, what string, pc poolCase) {
	t.Helper()
	n := sized(5000, 20_000)
	counts := make([]atomic.Int32, n)
	var got span
	a := make([]int, 5000)
	rng := rand.New(rand.NewPCG(uint64(len(what)), 7))
	for i := range a {
		a[i] = rng.IntN(1000)
	}
	var err error
	noHang(t, what, func() {
		par.For(n, func(i int) { counts[i].Add(1) }, pc.opts...)
		got = par.Reduce(spans(n), span{lo: -1, hi: 0}, combineSpan, pc.opts...)
		par.For(1, func(int) { quicksort(a, func(f, g func()) { par.Join(f, g) }, nil) }, pc.opts...)
		err = par.ForErr(context.Background(), n, func(_ context.Context, i int) error {
			if i == n-7 {
				return errBoom
			}
			return nil
		}, pc.opts...)
	})
	checkOnce(t, what+": For", counts)
	if want := (span{lo: -1, hi: n}); got != want {
		t.Errorf("%s: Reduce = %+v; want %+v", what, got, want)
	}
	if !slices.IsSorted(a) {
		t.Errorf("%s: nested quicksort left the slice unsorted", what)
	}
	if err != errBoom {
		t.Errorf("%s: ForErr = %v; want errBoom", what, err)
	}
}

// Catches: bugs confined to one configuration's code path: pinning (more
// workers than CPUs, affinity calls that fail in a container), each victim
// policy, and parking without back-off (the lost wake-up window is widest
// there).
func TestPoolOptions(t *testing.T) {
	t.Parallel()
	cfgs := []struct {
		name string
		opts []par.PoolOption
	}{
		{"pinning", []par.PoolOption{par.Pinning(true)}},
		{"pinning, more workers than CPUs", []par.PoolOption{par.Pinning(true), par.Workers(2*runtime.NumCPU() + 1)}},
		{"no pinning", []par.PoolOption{par.Pinning(false), par.Workers(3)}},
		{"victims=nearest", []par.PoolOption{par.VictimsForTest("nearest"), par.Workers(4)}},
		{"victims=random", []par.PoolOption{par.VictimsForTest("random"), par.Workers(4)}},
		{"backoff", []par.PoolOption{par.BackoffForTest(true), par.Workers(3)}},
		{"no backoff", []par.PoolOption{par.BackoffForTest(false), par.Workers(3)}},
		{"no backoff, 1 worker", []par.PoolOption{par.BackoffForTest(false), par.Workers(1)}},
		{"locked threads", []par.PoolOption{par.ThreadsForTest(true), par.Workers(3)}},
		{"locked threads, no backoff", []par.PoolOption{par.ThreadsForTest(true), par.BackoffForTest(false), par.Workers(3)}},
		{"unlocked threads, pinning", []par.PoolOption{par.ThreadsForTest(false), par.Pinning(true)}},
	}
	for _, c := range cfgs {
		p := newPool(t, c.opts...)
		for r := 0; r < sized(2, 3); r++ { // again after the workers have parked
			smallWorkload(t, c.name, poolCase{name: c.name, opts: []par.Option{par.On(p)}, pool: p})
		}
	}
}

// Catches: a pool that breaks, loses work or keeps a stale worker count when
// runtime.GOMAXPROCS changes at run time (as Go 1.25+ does by itself when a
// container's CPU limit changes), and a fixed Workers(n) pool that follows
// GOMAXPROCS although told not to.
// Not parallel: GOMAXPROCS is global.
func TestGOMAXPROCSChange(t *testing.T) {
	old := runtime.GOMAXPROCS(0)
	t.Cleanup(func() { runtime.GOMAXPROCS(old) })
	following := newPool(t)
	fixed := newPool(t, par.Workers(3))
	smallWorkload(t, "before", poolCase{name: "following", opts: []par.Option{par.On(following)}})
	for _, procs := range []int{1, 4, 2, old} {
		runtime.GOMAXPROCS(procs)
		for _, pc := range []poolCase{
			{name: "default"},
			{name: "following", opts: []par.Option{par.On(following)}, pool: following},
			{name: "fixed", opts: []par.Option{par.On(fixed)}, pool: fixed},
		} {
			smallWorkload(t, fmt.Sprintf("GOMAXPROCS=%d %s", procs, pc.name), pc)
		}
		// The pool notices the change lazily, at a slow path (a split, a
		// wake-up) at least 10 ms after it last looked: big loops make
		// such paths until both pools follow, within a liveness bound.
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline) && (following.Workers() != procs || par.Default().Workers() != procs); {
			par.For(200, func(int) { spin(20000) }, par.On(following), par.Grain(1))
			par.For(200, func(int) { spin(20000) }, par.Grain(1))
			time.Sleep(time.Millisecond)
		}
		if got := following.Workers(); got != procs {
			t.Errorf("GOMAXPROCS=%d: NewPool().Workers() = %d after 10 s of big loops; want %d", procs, got, procs)
		}
		if got := par.Default().Workers(); got != procs {
			t.Errorf("GOMAXPROCS=%d: Default().Workers() = %d after 10 s of big loops; want %d", procs, got, procs)
		}
		if got := fixed.Workers(); got != 3 {
			t.Errorf("GOMAXPROCS=%d: NewPool(Workers(3)).Workers() = %d; want 3", procs, got)
		}
	}
}

// Catches: Close leaving workers (or their timers, spinners, wake-up helpers)
// behind, after ordinary use, a panic, a cancelled loop, pinning, or no use
// at all.
// Not parallel: goleak sees every goroutine in the process.
func TestCloseLeavesNoGoroutines(t *testing.T) {
	ignore := goleak.IgnoreCurrent()
	for _, opts := range [][]par.PoolOption{
		nil,
		{par.Workers(1)},
		{par.Workers(4)},
		{par.Workers(3), par.Pinning(true)},
		{par.Workers(2), par.BackoffForTest(false)},
	} {
		p := par.NewPool(opts...)
		pc := poolCase{name: "pool", opts: []par.Option{par.On(p)}, pool: p}
		smallWorkload(t, "before Close", pc)
		wantPanicError(t, "For", func() { par.For(1000, func(i int) { panicSite(i) }, pc.opts...) })
		ctx, cancel := context.WithCancel(context.Background())
		_ = par.ForErr(ctx, 1<<16, func(context.Context, int) error { cancel(); return nil }, pc.opts...)
		cancel()
		p.Close()
	}
	par.NewPool(par.Workers(2)).Close() // never used
	goleak.VerifyNone(t, ignore)
}

// Catches: a second Close that panics, blocks, or double-closes a channel.
func TestCloseTwice(t *testing.T) {
	t.Parallel()
	p := par.NewPool(par.Workers(2))
	par.For(100, func(int) {}, par.On(p))
	noHang(t, "Close twice", func() {
		p.Close()
		p.Close()
	})
}

// Catches: a closed pool that hangs (waiting on workers that are gone),
// drops the work, crashes, or hands bodies to goroutines after Close. The
// documented behaviour: verbs on a closed pool run on the caller's
// goroutine, with the same results and the same panic semantics.
func TestClosedPoolRunsOnCaller(t *testing.T) {
	t.Parallel()
	used := par.NewPool(par.Workers(3))
	par.For(1000, func(int) { spin(100) }, par.On(used))
	used.Close()
	neverUsed := par.NewPool(par.Workers(3))
	neverUsed.Close()
	for _, p := range []*par.Pool{used, neverUsed} {
		noHang(t, "verbs on a closed pool", func() {
			caller := goid()
			var elsewhere atomic.Int64
			here := func() {
				if goid() != caller {
					elsewhere.Add(1)
				}
			}
			const n = 3000
			counts := make([]atomic.Int32, n)
			par.For(n, func(i int) { here(); counts[i].Add(1) }, par.On(p))
			checkOnce(t, "For on a closed pool", counts)
			var pieces [][2]int
			par.ForRange(n, func(lo, hi int) { here(); pieces = append(pieces, [2]int{lo, hi}) }, par.On(p))
			checkCover(t, "ForRange on a closed pool", n, pieces)
			out := par.Map([]int{1, 2, 3}, func(x int) int { here(); return x * 2 }, par.On(p))
			if !slices.Equal(out, []int{2, 4, 6}) {
				t.Errorf("Map on a closed pool = %v", out)
			}
			got := par.Reduce(spans(n), span{lo: -1, hi: 0}, func(a, b span) span { here(); return combineSpan(a, b) }, par.On(p))
			if want := (span{lo: -1, hi: n}); got != want {
				t.Errorf("Reduce on a closed pool = %+v; want %+v", got, want)
			}
			var a, b bool
			par.Join(func() { here(); a = true }, func() { here(); b = true }, par.On(p))
			var c [5]bool
			par.Invoke([]func(){func() { here(); c[0] = true }, func() { here(); c[1] = true }, func() { here(); c[2] = true },
				func() { here(); c[3] = true }, func() { here(); c[4] = true }}, par.On(p))
			if !a || !b || c != [5]bool{true, true, true, true, true} {
				t.Errorf("Join/Invoke on a closed pool skipped a function: %v %v %v", a, b, c)
			}
			err := par.ForErr(context.Background(), n, func(_ context.Context, i int) error {
				here()
				if i == 17 {
					return errBoom
				}
				return nil
			}, par.On(p))
			if err != errBoom {
				t.Errorf("ForErr on a closed pool = %v; want errBoom", err)
			}
			if e := elsewhere.Load(); e != 0 {
				t.Errorf("%d bodies of verbs on a closed pool ran off the caller's goroutine", e)
			}
		})
		pe := wantPanicError(t, "For on a closed pool", func() {
			par.For(10, func(i int) {
				if i == 4 {
					panicSite(errBoom)
				}
			}, par.On(p))
		})
		checkPanicError(t, "For on a closed pool", pe, errBoom)
	}
}

// Catches: a pool whose workers never take part (everything runs on the
// caller), and one that makes a goroutine per piece: the bodies of one call
// run on at most Workers()+1 goroutines (the workers and the caller).
func TestWorkersTakePart(t *testing.T) {
	atLeastTwoPs(t)
	p := newPool(t, par.Workers(2))
	if w := p.Workers(); w != 2 {
		t.Fatalf("NewPool(Workers(2)).Workers() = %d", w)
	}
	var g goroutines
	timedOut := false
	noHang(t, "For", func() {
		g.owner = goid()
		par.For(400, func(int) {
			spin(20000)
			// The caller's first grain has ended, and with it its chance to
			// split the rest: its second body waits for a worker to run one.
			if g.record() == 2 && !await(&g.elsewhere) {
				timedOut = true
			}
		}, par.On(p), par.Grain(1))
	})
	if timedOut {
		t.Errorf("no worker ran a body while the caller waited %v in its second one", rendezvousBound)
	}
	if n := g.count(); n > p.Workers()+1 {
		t.Errorf("one loop's bodies ran on %d goroutines; a pool of %d workers plus the caller has %d", n, p.Workers(), p.Workers()+1)
	}
}

// Catches: data races and lost work between many callers sharing one pool
// (a shared loop frame, a lost wake-up between two submissions, one caller's
// pieces completing another's join).
func TestThousandConcurrentCallers(t *testing.T) {
	t.Parallel()
	callers := sized(200, 1000)
	for _, pc := range defaultAndFour(t) {
		var wg sync.WaitGroup
		for c := range callers {
			wg.Go(func() {
				n := 50 + c%400
				counts := make([]atomic.Int32, n)
				par.For(n, func(i int) { counts[i].Add(1) }, pc.opts...)
				checkOnce(t, fmt.Sprintf("%s caller %d For", pc.name, c), counts)
				in := make([]int, n)
				want := 0
				for i := range in {
					in[i] = c*1000 + i
					want += in[i]
				}
				if got := par.Reduce(in, 0, func(a, b int) int { return a + b }, pc.opts...); got != want {
					t.Errorf("%s caller %d: Reduce = %d; want %d", pc.name, c, got, want)
				}
				if got := par.Reduce(spans(n), span{lo: -1, hi: 0}, combineSpan, pc.opts...); got != (span{lo: -1, hi: n}) {
					t.Errorf("%s caller %d: Reduce(spans) = %+v", pc.name, c, got)
				}
				var x, y int
				pc.join(func() { x = c }, func() { y = -c })
				if x != c || y != -c {
					t.Errorf("%s caller %d: Join results %d, %d", pc.name, c, x, y)
				}
			})
		}
		noHang(t, "1000 concurrent callers", wg.Wait)
	}
}

// resetStats resets p's counters and waits until a snapshot shows them at
// zero: a worker may still be booking its last piece just after a call has
// returned, so a single reset may miss it; a reset that does nothing never
// gets there. The bound is a liveness bound, not a timing assertion.
func resetStats(t *testing.T, p *par.Pool) {
	t.Helper()
	var s par.Stats
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		p.ResetStats()
		if s = p.Stats(); statsZero(s) {
			return
		}
	}
	t.Fatalf("ResetStats on an idle pool did not zero the counters in 10 s: %+v", s)
}

// statsZero reports whether the counters that only move while work runs are
// zero. FailedSteals and Idle may tick while workers look for work and park.
func statsZero(s par.Stats) bool {
	for _, w := range append(slices.Clone(s.Workers), s.Callers) {
		if w.Pieces != 0 || w.Steals != 0 || w.Splits != 0 || w.Busy != 0 {
			return false
		}
	}
	return true
}

// Catches: counters that are not counted (no pieces after a loop), derived
// figures computed wrongly (imbalance below 1, NaN on division by zero),
// negative counters, and a ResetStats that does not reset. Busy time is
// counted in cycle-counter ticks and Wall in nanoseconds, so how busy time
// and utilization compare with the wall clock is measured by
// BenchmarkStatsBusyOverWall, not asserted here;
// TestStatsDerivedMatchXExpStats checks the utilization's formula.
func TestStats(t *testing.T) {
	t.Parallel()
	for _, w := range []int{2, 3} {
		p := newPool(t, par.Workers(w))
		resetStats(t, p)
		for r := 0; r < 2; r++ {
			noHang(t, "For", func() { par.For(2000, func(int) { spin(10000) }, par.On(p)) })
			s := p.Stats()
			what := fmt.Sprintf("Workers(%d) round %d", w, r)
			// One entry per worker thread: Workers() counts them, or them
			// plus the calling goroutine where the caller is the P-th
			// participant (the oneTBB arena model).
			if len(s.Workers) != p.Workers() && len(s.Workers) != p.Workers()-1 {
				t.Errorf("%s: Stats has %d worker entries; want %d (or %d if Workers counts the caller)", what, len(s.Workers), p.Workers(), p.Workers()-1)
			}
			if pc := s.Total().Pieces; pc < 1 {
				t.Errorf("%s: %d pieces counted after a loop of 2000 bodies; want at least 1", what, pc)
			}
			var busy time.Duration
			var steals, pieces int64
			for i, ws := range append(slices.Clone(s.Workers), s.Callers) {
				if ws.Pieces < 0 || ws.Steals < 0 || ws.FailedSteals < 0 || ws.Splits < 0 || ws.Busy < 0 || ws.Idle < 0 {
					t.Errorf("%s: entry %d has a negative counter: %+v", what, i, ws)
				}
				if i < len(s.Workers) {
					busy += ws.Busy
				}
				steals += ws.Steals
				pieces += ws.Pieces
			}
			for name, f := range map[string]float64{"Imbalance": s.Imbalance, "Straggler": s.Straggler, "Utilization": s.Utilization, "StealRate": s.StealRate} {
				if math.IsNaN(f) || f < 0 {
					t.Errorf("%s: %s = %v", what, name, f)
				}
			}
			if busy > 0 && s.Imbalance < 1-1e-9 {
				t.Errorf("%s: Imbalance = %v; max/mean busy time is at least 1", what, s.Imbalance)
			}
			if s.StealRate > 1 || steals > pieces {
				t.Errorf("%s: %d steals for %d pieces (StealRate %v); a stolen task is a piece run", what, steals, pieces, s.StealRate)
			}
			if s.Wall <= 0 {
				t.Errorf("%s: Wall = %v after a loop", what, s.Wall)
			}
			resetStats(t, p)
		}
	}
}
