package par_test

// Tests for what a user dropping parloop into fan-out code relies on: few
// expensive items run at once, blocking bodies, Goexit (t.Fatal) in a body,
// closing pools from inside, and stopping promptly (bad input: input_test.go).
// Each test asserts behaviour, not time: where a test waits, it
// waits for an event with a generous liveness bound.

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/parloop/parloop/par"
)

// rendezvous is a barrier for n bodies with a liveness bound: arrive
// reports whether all n arrived before the bound ran out. A scheduler that
// runs the bodies one after another makes the first arrival time out.
type rendezvous struct {
	n       int32
	arrived atomic.Int32
}

const rendezvousBound = 5 * time.Second

func (r *rendezvous) arrive() bool {
	r.arrived.Add(1)
	deadline := time.Now().Add(rendezvousBound)
	for r.arrived.Load() < r.n {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(50 * time.Microsecond)
	}
	return true
}

// await waits until flag is set, for at most rendezvousBound, and reports
// whether it was: a body that waits for another body to run, which only
// a scheduler that lets other goroutines take the call's work can end.
func await(flag *atomic.Bool) bool {
	deadline := time.Now().Add(rendezvousBound)
	for !flag.Load() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(50 * time.Microsecond)
	}
	return true
}

// Catches: a loop over n <= 4P expensive items that runs its first item
// before offering the rest (For(2, f) with 200 ms bodies took 400 ms: both
// on the caller), for every range verb. The bodies meet at a rendezvous,
// which only n concurrent bodies pass.
func TestFewItemsRunAtOnce(t *testing.T) {
	for _, workers := range []int{2, 4, 8} {
		p := newPool(t, par.Workers(workers))
		for _, n := range []int{2, workers} {
			verbs := map[string]func(body func(i int)){
				"For":      func(body func(int)) { par.For(n, body, par.On(p)) },
				"ForRange": func(body func(int)) { par.ForRange(n, func(lo, hi int) { body(lo) }, par.On(p)) },
				"Map": func(body func(int)) {
					par.Map(make([]int, n), func(int) int { return 0 }, par.On(p)) // warm
					idx := make([]int, n)
					for i := range idx {
						idx[i] = i
					}
					par.Map(idx, func(i int) int { body(i); return i }, par.On(p))
				},
				"Reduce": func(body func(int)) {
					par.ReduceRange(n, 0, func(lo, hi int) int { body(lo); return hi - lo },
						func(a, b int) int { return a + b }, par.On(p))
				},
				"ForErr": func(body func(int)) {
					_ = par.ForErr(context.Background(), n, func(_ context.Context, i int) error { body(i); return nil }, par.On(p))
				},
			}
			for name, run := range verbs {
				r := &rendezvous{n: int32(n)}
				var missed atomic.Int32
				noHang(t, name, func() {
					run(func(int) {
						if !r.arrive() {
							missed.Add(1)
						}
					})
				})
				if m := missed.Load(); m != 0 {
					t.Errorf("%s(%d) on %d workers: %d bodies timed out waiting for the others; want all %d running at once",
						name, n, workers, m, n)
				}
			}
		}
	}
}

// Catches: a nested call that runs its first item (here a whole subtree)
// before offering the rest, which made recursive walks written with loops
// sequential. Child 0 of the nested loop waits until a child of the upper
// half has started: only an offer made before the first item lets it.
func TestNestedCallOffersRestBeforeFirstItem(t *testing.T) {
	p := newPool(t, par.Workers(2))
	const kids = 10
	var upperStarted atomic.Bool
	timedOut := false
	noHang(t, "nested", func() {
		par.For(1, func(int) {
			par.For(kids, func(i int) {
				if i >= kids/2 {
					upperStarted.Store(true)
					return
				}
				if i == 0 && !await(&upperStarted) {
					timedOut = true
				}
			}, par.On(p))
		}, par.On(p))
	})
	if timedOut {
		t.Errorf("the nested call's upper half did not start while its first item ran")
	}
}

// Catches: bodies that block keeping the pool's CPU workers (500 waits of 2
// ms took 630 ms on 2 workers), a limit that is not honoured, and bodies
// that wait on each other hanging when the limit admits them all.
func TestBlocking(t *testing.T) {
	for _, limit := range []int{1, 3, 64} {
		const n = 200
		var running, peak atomic.Int32
		var counts [n]atomic.Int32
		noHang(t, "Blocking", func() {
			par.For(n, func(i int) {
				r := running.Add(1)
				for {
					m := peak.Load()
					if r <= m || peak.CompareAndSwap(m, r) {
						break
					}
				}
				time.Sleep(100 * time.Microsecond)
				counts[i].Add(1)
				running.Add(-1)
			}, par.Blocking(limit))
		})
		checkOnce(t, fmt.Sprintf("Blocking(%d)", limit), counts[:])
		if pk := peak.Load(); int(pk) > limit {
			t.Errorf("Blocking(%d): %d bodies ran at once", limit, pk)
		}
		if limit == 64 && peak.Load() < 8 {
			t.Errorf("Blocking(64): at most %d bodies ran at once; sleeping bodies should overlap far beyond the CPU count", peak.Load())
		}
	}
	// With limit >= n, bodies may wait on each other.
	const n = 50
	r := &rendezvous{n: n}
	var missed atomic.Int32
	noHang(t, "Blocking barrier", func() {
		par.For(n, func(int) {
			if !r.arrive() {
				missed.Add(1)
			}
		}, par.Blocking(n))
	})
	if missed.Load() != 0 {
		t.Errorf("Blocking(%d): %d of %d bodies missed a barrier that all can reach", n, missed.Load(), n)
	}
	// Every range verb takes it, with results in place.
	out := par.Map([]int{1, 2, 3, 4}, func(x int) int { return x * x }, par.Blocking(2))
	if fmt.Sprint(out) != "[1 4 9 16]" {
		t.Errorf("Map with Blocking = %v", out)
	}
	var pieces atomic.Int32
	par.ForRange(10, func(lo, hi int) { pieces.Add(int32(hi - lo)) }, par.Blocking(3))
	if pieces.Load() != 10 {
		t.Errorf("ForRange with Blocking covered %d of 10", pieces.Load())
	}
	// Errors, cancellation and panics behave as without it.
	errBoom := errors.New("boom")
	var started atomic.Int32
	err := par.ForErr(context.Background(), 1000, func(ctx context.Context, i int) error {
		started.Add(1)
		if i == 10 {
			return errBoom
		}
		time.Sleep(50 * time.Microsecond)
		return ctx.Err()
	}, par.Blocking(4))
	if !errors.Is(err, errBoom) {
		t.Errorf("ForErr with Blocking = %v, want boom", err)
	}
	if s := started.Load(); s > 10+1+4 {
		t.Errorf("ForErr with Blocking: %d bodies started after the error at index 10 with 4 goroutines", s)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := par.ForErr(ctx, 10, func(context.Context, int) error { return nil }, par.Blocking(4)); !errors.Is(err, context.Canceled) {
		t.Errorf("ForErr with Blocking on a cancelled context = %v", err)
	}
	pe := wantPanicError(t, "For with Blocking", func() {
		par.For(100, func(i int) {
			if i == 7 {
				panic("seven")
			}
		}, par.Blocking(8))
	})
	if pe != nil && rootValue(pe) != "seven" {
		t.Errorf("For with Blocking panicked with %v", rootValue(pe))
	}
}

// Catches: runtime.Goexit (t.Fatal, t.SkipNow) in a body hanging the call
// or leaving the caller running on, in every verb, on a worker or on the
// caller, with and without Blocking. The caller's goroutine must exit, the
// pool must stay usable, and no body may be left running.
func TestGoexitInBody(t *testing.T) {
	p := newPool(t, par.Workers(4))
	verbs := map[string]func(hit func()){
		"For":    func(hit func()) { par.For(1000, func(i int) { hitAt(i, hit) }, par.On(p)) },
		"ForBlk": func(hit func()) { par.For(100, func(i int) { hitAt(i, hit) }, par.Blocking(8)) },
		"ForRange": func(hit func()) {
			par.ForRange(1000, func(lo, hi int) {
				for i := lo; i < hi; i++ {
					hitAt(i, hit)
				}
			}, par.On(p))
		},
		"ReduceRange": func(hit func()) {
			par.ReduceRange(1000, 0, func(lo, hi int) int {
				for i := lo; i < hi; i++ {
					hitAt(i, hit)
				}
				return 0
			}, func(a, b int) int { return a + b }, par.On(p))
		},
		"ForErr": func(hit func()) {
			_ = par.ForErr(context.Background(), 1000, func(_ context.Context, i int) error { hitAt(i, hit); return nil }, par.On(p))
		},
		"Join-f": func(hit func()) { par.Join(hit, func() {}, par.On(p)) },
		"Join-g": func(hit func()) { par.Join(func() { spin(1000) }, hit, par.On(p)) },
		"Both-g": func(hit func()) {
			par.Both(func() int { spin(1000); return 1 }, func() int { hit(); return 2 }, par.On(p))
		},
		"BothOf": func(hit func()) {
			par.BothOf(func(int) int { return 1 }, 0, func(int) int { hit(); return 2 }, 0, par.On(p))
		},
		"Invoke3": func(hit func()) { par.Invoke([]func(){func() {}, hit, func() { spin(100) }}, par.On(p)) },
		"nested": func(hit func()) {
			par.For(4, func(int) { par.For(100, func(i int) { hitAt(i, hit) }) }, par.On(p))
		},
	}
	for name, run := range verbs {
		for round := 0; round < 5; round++ {
			var after atomic.Bool
			done := make(chan struct{})
			go func() {
				defer close(done)
				run(runtime.Goexit)
				after.Store(true)
			}()
			select {
			case <-done:
			case <-time.After(hangLimit):
				panic(name + ": a Goexit in a body hung the call")
			}
			if after.Load() {
				t.Errorf("%s: the caller went on after a body called runtime.Goexit; want it to exit too", name)
			}
		}
		// The pool still works at full width.
		var counts [2000]atomic.Int32
		noHang(t, name+" after", func() {
			par.For(len(counts), func(i int) { spin(200); counts[i].Add(1) }, par.On(p))
		})
		checkOnce(t, name+": a call after Goexit", counts[:])
	}
	if w := p.Workers(); w != 4 {
		t.Errorf("after Goexits the pool has parallelism %d, want 4", w)
	}
	// t.SkipNow, the everyday Goexit, marks a subtest skipped and must not hang.
	ran := t.Run("skip", func(t *testing.T) {
		par.For(100, func(i int) {
			if i == 50 {
				t.SkipNow()
			}
		}, par.On(p))
		t.Errorf("par.For returned after t.SkipNow in a body")
	})
	if !ran {
		t.Errorf("a subtest that skipped from a body was reported failed")
	}
}

// hitAt calls hit at index 500 (or the last index for short loops).
func hitAt(i int, hit func()) {
	if i == 50 {
		hit()
	}
}

// Catches: Pool.Close called from a body running on the pool waiting for
// itself forever, from the caller's goroutine and from a worker.
func TestCloseFromBodyPanics(t *testing.T) {
	// Not crowded (crowd.go): a crowded call runs plainly on its caller,
	// holding no seat, and Close from its body just closes the pool. Under
	// -race at GOMAXPROCS=1 the Ps are often saturated.
	defer par.SaturatedForTest(false)()
	p := newPool(t, par.Workers(2))
	pe := wantPanicError(t, "Close in a body", func() {
		par.For(2, func(int) { p.Close() }, par.On(p))
	})
	if pe == nil || !strings.Contains(fmt.Sprint(rootValue(pe)), "Pool.Close called from a body") {
		t.Errorf("Close from a body: got %v, want a panic naming Pool.Close", pe)
	}
	// From a worker for sure: a nested call's body on a worker thread.
	var onWorker atomic.Bool
	var msg atomic.Value
	caller := goid()
	noHang(t, "Close on a worker", func() {
		par.For(64, func(int) {
			if goid() == caller {
				spin(2000)
				return
			}
			v, panicked := catch(p.Close)
			if panicked {
				onWorker.Store(true)
				msg.Store(fmt.Sprint(v))
			}
		}, par.On(p))
	})
	if !onWorker.Load() || !strings.Contains(msg.Load().(string), "Pool.Close") {
		t.Errorf("Close from a worker did not panic with a clear message (ran on a worker: %v)", onWorker.Load())
	}
	// The pool is still open and works; closing it from outside works.
	var n atomic.Int32
	par.For(100, func(int) { n.Add(1) }, par.On(p))
	if n.Load() != 100 {
		t.Errorf("after the refused Close the pool ran %d of 100 bodies", n.Load())
	}
	p.Close()
}

// Catches: the default pool, once closed, turning every later default call
// serial for the rest of the process.
func TestCloseDefaultRestarts(t *testing.T) {
	old := par.Default()
	par.For(10, func(int) {})
	old.Close()
	if par.Default() == old {
		t.Fatalf("Default() returned the closed pool")
	}
	if runtime.GOMAXPROCS(0) == 1 {
		return // a pool of parallelism 1 runs every call on its caller
	}
	// Two items that wait for each other pass only if the new default pool
	// runs them at once.
	r := &rendezvous{n: 2}
	var missed atomic.Int32
	par.For(2, func(int) {
		if !r.arrive() {
			missed.Add(1)
		}
	})
	if missed.Load() != 0 {
		t.Errorf("after closing the default pool, a default call ran serially")
	}
}

// Catches: iterations starting long after a panic, when cheap iterations
// sized a large grain and expensive ones followed (974 started, For
// returned 100-300 ms late). With iterations of 10 µs or more, at most one
// more starts per slot once the panic is stored.
func TestStopAfterPanicIsPrompt(t *testing.T) {
	for _, workers := range []int{1, 2, 4} {
		if workers > runtime.NumCPU() {
			// More workers than CPUs: the panicking body's thread can be
			// descheduled between the panic and the stop flag's store,
			// and the others run on meanwhile.
			continue
		}
		p := newPool(t, par.Workers(workers))
		for _, verb := range []string{"For", "ForErr", "Map"} {
			// The fewest of three tries: the OS can deschedule the panicking
			// body's thread between its panic and the stop flag's store (on
			// a loaded machine), and the other workers run on meanwhile; a
			// grain grown too large starts hundreds late every time.
			least := int32(math.MaxInt32)
			for range 3 {
				least = min(least, startedAfterPanic(t, p, verb))
			}
			// Counted from the moment of the panic: a body that checked the
			// call's stop flag just before may still start, one per worker.
			if int(least) > workers {
				t.Errorf("%s on %d workers: %d iterations started after the panic (the fewest of 3 tries); want at most one per worker", verb, workers, least)
			}
		}
	}
}

// startedAfterPanic runs verb over 40,000 iterations, cheap up to 20,000 and
// of 10 µs from there, one of which panics, and returns how many iterations
// started after the panic.
func startedAfterPanic(t *testing.T, p *par.Pool, verb string) int32 {
	var stopped atomic.Bool
	var after atomic.Int32
	body := func(i int) {
		if i < 20_000 {
			return // cheap: the grain grows
		}
		if stopped.Load() {
			after.Add(1)
		}
		spinFor(10 * time.Microsecond)
		if i == 20_010 {
			stopped.Store(true) // the call stores its stop flag as the panic reaches its piece
			panic("stop")
		}
	}
	wantPanicError(t, verb, func() {
		switch verb {
		case "For":
			par.For(40_000, body, par.On(p))
		case "ForErr":
			_ = par.ForErr(context.Background(), 40_000, func(_ context.Context, i int) error { body(i); return nil }, par.On(p))
		case "Map":
			idx := make([]int, 40_000)
			for i := range idx {
				idx[i] = i
			}
			par.Map(idx, func(i int) int { body(i); return 0 }, par.On(p))
		}
	})
	return after.Load()
}

func spinFor(d time.Duration) {
	for t0 := time.Now(); time.Since(t0) < d; {
	}
}

// Catches: the callers' busy time reading 0 after forks made from outside
// the pool, or not growing with each, and a Stats.String that does not
// name the figures. (How long Busy reads against the wall clock is for
// benchmarks: it is measured in cycle-counter ticks.)
func TestCallersBusyAndStatsString(t *testing.T) {
	p := newPool(t, par.Workers(2))
	p.ResetStats()
	par.Join(func() { spinFor(2 * time.Millisecond) }, func() {}, par.On(p))
	afterJoin := p.Stats().Callers.Busy
	if afterJoin <= 0 {
		t.Errorf("Callers.Busy = %v after a 2 ms Join from outside; want its time", afterJoin)
	}
	par.Both(func() int { spinFor(2 * time.Millisecond); return 0 }, func() int { return 0 }, par.On(p))
	if b := p.Stats().Callers.Busy; b <= afterJoin {
		t.Errorf("Callers.Busy = %v after a 2 ms Both from outside, %v before it; want it to grow", b, afterJoin)
	}
	s := p.Stats().String()
	for _, want := range []string{"imbalance", "straggler", "utilization", "steal rate", "worker 0", "callers", "busy", "idle"} {
		if !strings.Contains(s, want) {
			t.Errorf("Stats.String() lacks %q:\n%s", want, s)
		}
	}
}

// Catches: a goroutine waiting for its own call running another caller's
// pieces (task isolation): with a lock held across the call while the other
// caller's bodies take that lock, that deadlocks. Here the waiting caller
// must never run a body of the other call, which every body checks.
func TestWaitingCallerRunsOnlyItsOwnCall(t *testing.T) {
	for _, pc := range defaultAndFour(t) {
		var mu sync.Mutex
		stop := make(chan struct{})
		var wg sync.WaitGroup
		var lockerID atomic.Int64
		var foreign atomic.Int32
		wg.Add(1)
		go func() { // the other caller: bodies take mu
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				par.For(256, func(int) {
					if goid() == lockerID.Load() {
						foreign.Add(1)
						return // running it would deadlock on mu
					}
					mu.Lock() // the body waits for mu, which the other caller holds across its call
					spin(100)
					mu.Unlock()
				}, pc.opts...)
			}
		}()
		noHang(t, "locker", func() {
			lockerID.Store(goid())
			for round := 0; round < 300; round++ {
				mu.Lock()
				// Uneven items: the caller finishes its share first and
				// waits for pieces that workers took.
				par.For(8, func(i int) { spin(300 * (i + 1) * (i + 1)) }, pc.opts...)
				mu.Unlock()
			}
		})
		close(stop)
		wg.Wait()
		if f := foreign.Load(); f != 0 {
			t.Errorf("%s: a caller waiting for its own call ran %d bodies of another call", pc.name, f)
		}
	}
}
