package par_test

// The chaos soak: random verbs, nested up to three deep, on the default
// pool, a shared private pool and pools made for one call and closed while
// it runs; bodies that panic, fail, cancel, call runtime.Goexit or sleep;
// GOMAXPROCS changed every few milliseconds; bursts of a thousand callers.
// Every call's outcome is checked: each index run exactly once when the call
// returns normally (at most once when it stops), every sum right, the
// panic, error or Goexit the call must report. A watchdog fails the soak,
// with every goroutine's stack, when no call has finished for a while.
//
//	go test ./par -run '^TestSoak$' -soak 30m -v                 # GOMAXPROCS as given
//	go test ./par -run '^TestSoak$' -soak 30m -soak.procs vary -v # GOMAXPROCS 1 to 8, changing
//
// Without -soak the test runs for a second, with 16 callers instead of 64
// and calls of at most 300 items instead of 3,000 (skipped under -short).

import (
	"context"
	"errors"
	"flag"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/pprof"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/parloop/parloop/par"
)

var (
	soakFor   = flag.Duration("soak", 0, "run the chaos soak for this long (TestSoak)")
	soakProcs = flag.String("soak.procs", "", `"vary": change GOMAXPROCS between 1 and 8 every few ms during the soak`)
	soakSeed  = flag.Uint64("soak.seed", 0, "the soak's random seed (0: from the clock)")
)

func TestSoak(t *testing.T) {
	d, callers, sizes := *soakFor, 64, [3]int{3000, 300, 30}
	if d == 0 {
		if testing.Short() {
			t.Skip("the soak runs for a second without -soak; skipped under -short")
		}
		d, callers, sizes = time.Second, 16, [3]int{300, 100, 30}
	}
	seed := *soakSeed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("soak for %v, seed %d, GOMAXPROCS %d, procs %q", d, seed, runtime.GOMAXPROCS(0), *soakProcs)
	sk := &soak{t: t, shared: par.NewPool(), deadline: time.Now().Add(d), sizes: sizes}
	defer sk.shared.Close()
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))

	stopBg := make(chan struct{})
	var bg sync.WaitGroup
	if *soakProcs == "vary" {
		bg.Go(func() {
			r := rand.New(rand.NewPCG(seed, 1))
			for {
				select {
				case <-stopBg:
					return
				case <-time.After(time.Duration(r.IntN(20)+1) * time.Millisecond):
					runtime.GOMAXPROCS(r.IntN(8) + 1)
				}
			}
		})
	}
	bg.Go(sk.watchdog(stopBg))

	var running sync.WaitGroup
	for c := range callers {
		running.Go(func() {
			r := rand.New(rand.NewPCG(seed, uint64(c)+2))
			for time.Now().Before(sk.deadline) && !sk.failed.Load() {
				if r.IntN(2000) == 0 {
					sk.burst(r.Uint64())
					continue
				}
				if c%2 == 0 {
					sk.top(r)
				} else {
					sk.fanOut(r)
				}
			}
		})
	}
	running.Wait()
	t.Logf("the last call ended %v after the deadline; longest top-level call %v", time.Since(sk.deadline).Round(time.Millisecond), time.Duration(sk.longest.Load()).Round(time.Millisecond))
	close(stopBg)
	bg.Wait()
	t.Logf("%d calls, %d bodies, %d panics, %d errors, %d Goexits, %d bursts", sk.calls.Load(), sk.bodies.Load(),
		sk.panics.Load(), sk.errs.Load(), sk.goexits.Load(), sk.bursts.Load())
}

type soak struct {
	t        *testing.T
	shared   *par.Pool
	deadline time.Time
	sizes    [3]int // the most items of a call at depth 0, 1 and 2 or more
	failed   atomic.Bool
	failures atomic.Int32

	calls, bodies, panics, errs, goexits, bursts atomic.Int64
	lastDone                                     atomic.Int64 // unix ns of the last call that finished
	longest                                      atomic.Int64 // ns of the longest top-level call
}

func (sk *soak) fail(format string, args ...any) {
	sk.failed.Store(true)
	if sk.failures.Add(1) <= 10 { // the first few: one defect often shows in several checks
		sk.t.Errorf(format, args...)
	}
}

// watchdog fails the soak when no call has finished for stallAfter.
func (sk *soak) watchdog(stop chan struct{}) func() {
	const stallAfter = 60 * time.Second
	sk.lastDone.Store(time.Now().UnixNano())
	return func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(time.Second):
			}
			if idle := time.Since(time.Unix(0, sk.lastDone.Load())); idle > stallAfter {
				pprof.Lookup("goroutine").WriteTo(os.Stderr, 2)
				sk.fail("stall: no call finished for %v", idle.Round(time.Second))
				os.Exit(2) // a stalled call cannot be unwound; the stacks above say where
			}
		}
	}
}

// burst makes a thousand goroutines each call a small loop at once.
func (sk *soak) burst(seed uint64) {
	sk.bursts.Add(1)
	var wg sync.WaitGroup
	for i := range 1000 {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(seed, uint64(i)))
			sk.op(r, 2, nil, fault{})
		})
	}
	wg.Wait()
}

// fanOut is a top-level Invoke of 2 to 12 functions, each making a random
// nested call, on the default pool: the shape that keeps several of a call
// tree's forks out on other workers while their callers help each other.
func (sk *soak) fanOut(r *rand.Rand) {
	ran := make([]atomic.Int32, 2+r.IntN(11))
	fns := make([]func(), len(ran))
	for j := range fns {
		seed := r.Uint64()
		fns[j] = func() {
			sk.op(rand.New(rand.NewPCG(seed, 3)), 1, nil, fault{})
			ran[j].Add(1)
		}
	}
	par.Invoke(fns)
	for j := range ran {
		if c := ran[j].Load(); c != 1 {
			sk.fail("Invoke of %d functions returned with function %d run %d times", len(fns), j, c)
		}
	}
	sk.calls.Add(1)
	sk.lastDone.Store(time.Now().UnixNano())
}

// fault is what a call's bodies do wrong: panic, fail (ForErr), cancel the
// call's context, call Goexit, or sleep instead of computing.
type fault struct {
	kind  int  // faultNone ...
	at    int  // the index (or function) that does it
	every bool // faultGoexit: every index from at on calls Goexit
}

const (
	faultNone = iota
	faultPanic
	faultError
	faultCancel
	faultGoexit
	faultSleep
	numFaults
)

var errSoak = errors.New("soak: a body's error")

// act is what the body at index i of an error-returning verb does for
// fault f, after its work: fail, cancel the call's context, or nothing.
func (f fault) act(i int, cancel context.CancelFunc) error {
	switch {
	case f.kind == faultError && i == f.at:
		return errSoak
	case f.kind == faultCancel && i == f.at:
		cancel()
	}
	return nil
}

// checkErr checks the error an error-returning verb returned for fault f.
func (sk *soak) checkErr(verb string, f fault, err error) {
	switch {
	case f.kind == faultError && !errors.Is(err, errSoak):
		sk.fail("%s: the body at %d failed, the call returned %v", verb, f.at, err)
	case f.kind == faultCancel && !errors.Is(err, context.Canceled):
		sk.fail("%s: the context was cancelled at %d, the call returned %v", verb, f.at, err)
	case f.kind != faultError && f.kind != faultCancel && err != nil:
		sk.fail("%s returned %v", verb, err)
	}
}

// top runs one top-level call with a random fault, pool and nesting, and
// checks its outcome.
func (sk *soak) top(r *rand.Rand) {
	start := time.Now()
	defer func() {
		d := int64(time.Since(start))
		for old := sk.longest.Load(); d > old && !sk.longest.CompareAndSwap(old, d); old = sk.longest.Load() {
		}
	}()
	f := fault{kind: r.IntN(numFaults + 3)} // mostly no fault
	if f.kind >= numFaults {
		f.kind = faultNone
	}
	f.every = f.kind == faultGoexit && r.IntN(2) == 0 // Goexits while others unwind
	var pool *par.Pool
	switch r.IntN(4) {
	case 0:
		pool = sk.shared
	case 1: // a pool for this call alone, closed at a random moment while it runs
		pool = par.NewPool(par.Workers(r.IntN(4) + 1))
		closeAfter := time.Duration(r.IntN(300)) * time.Microsecond
		defer time.AfterFunc(closeAfter, pool.Close).Stop()
		defer pool.Close()
	}
	var desc string
	defer func() {
		if d := time.Since(start); d > 30*time.Second {
			sk.t.Logf("slow call: %v: %s pool=%v", d, desc, pool != nil)
		}
	}()
	if f.kind != faultGoexit {
		desc = sk.op(r, 0, pool, f)
		return
	}
	// Goexit ends the goroutine that made the call: make it on one of
	// its own and check that it exited, only after every body returned.
	done := make(chan bool)
	go func() {
		returned := false
		defer func() { done <- returned }()
		sk.op(r, 0, pool, f)
		returned = true
	}()
	sk.goexits.Add(1)
	if <-done {
		sk.fail("a call whose body called runtime.Goexit returned normally")
	}
}
