package par_test

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/parloop/parloop/par"
)

// long selects the long runs: loops of 2^18 items (2^20 without the race
// detector), more rounds, callers, depth and seeds. Without it every test
// makes the same checks on smaller inputs, so that the package's tests take
// seconds under the race detector; CI runs both. The internal tests read it
// with longRun.
var long = flag.Bool("long", false, "run the long loops, rounds and stress runs")

// sized returns n, or nLong under -long.
func sized(n, nLong int) int {
	if *long {
		return nLong
	}
	return n
}

// hangLimit bounds how long one verb call in a test may take before the test
// declares a deadlock or a lost wake-up. It is a liveness bound, far above
// any honest run time (even under -race on two loaded cores), not a timing
// assertion.
const hangLimit = 90 * time.Second

// newPool makes a pool that is closed when the test ends.
func newPool(t testing.TB, opts ...par.PoolOption) *par.Pool {
	t.Helper()
	p := par.NewPool(opts...)
	t.Cleanup(p.Close)
	return p
}

// poolCase is a place a verb can run: the default pool (no On option) or a
// fresh pool with a fixed number of workers.
type poolCase struct {
	name string
	opts []par.Option // nil for the default pool
	pool *par.Pool    // nil for the default pool
}

// poolCases returns the default pool and pools of 1 to 4 workers; without
// -long, of 1 and 3 (a pool of one worker, and one of an odd size).
func poolCases(t testing.TB) []poolCase {
	t.Helper()
	cs := []poolCase{{name: "default"}}
	for w := 1; w <= 4; w++ {
		if !*long && w%2 == 0 {
			continue
		}
		p := newPool(t, par.Workers(w))
		cs = append(cs, poolCase{name: "workers=" + strconv.Itoa(w), opts: []par.Option{par.On(p)}, pool: p})
	}
	return cs
}

// defaultAndFour returns the default pool and a fresh pool of 4 workers:
// the cases of the tests that load a pool with many concurrent callers.
func defaultAndFour(t testing.TB) []poolCase {
	t.Helper()
	p := newPool(t, par.Workers(4))
	return []poolCase{{name: "default"}, {name: "workers=4", opts: []par.Option{par.On(p)}, pool: p}}
}

// with returns the case's options followed by extra ones.
func (c poolCase) with(extra ...par.Option) []par.Option {
	return append(append([]par.Option(nil), c.opts...), extra...)
}

// invoke and join run Invoke and Join on the case's pool.
func (c poolCase) invoke(fns ...func()) {
	if c.pool == nil {
		par.Invoke(fns)
		return
	}
	par.Invoke(fns, par.On(c.pool))
}

func (c poolCase) join(f, g func()) {
	if c.pool == nil {
		par.Join(f, g)
		return
	}
	par.Join(f, g, par.On(c.pool))
}

// bigN is the large loop length: 1<<14, enough for many splits and steals
// on every pool; under -long 1<<20, or 1<<18 under -race, where an
// iteration costs tens of times more and races show at any size.
func bigN() int {
	switch {
	case !*long:
		return 1 << 14
	case raceEnabled:
		return 1 << 18
	}
	return 1 << 20
}

// sizes are the loop lengths every verb is checked on.
func sizes() []int { return []int{0, 1, 2, 3, 7, 1000, bigN()} }

// waitParked waits until every worker goroutine in the process is blocked
// on its token and p's workers are all listed as sleepers: from then on,
// until a call wakes one, no worker runs. Parking takes about 100 µs of
// spinning; the bound is for a descheduled worker on a loaded machine, a
// liveness bound, not a timing assertion.
func waitParked(t testing.TB, p *par.Pool) {
	t.Helper()
	n := len(p.Stats().Workers)
	deadline := time.Now().Add(10 * time.Second)
	for {
		all, blocked := par.BlockedWorkersForTest()
		parked := par.ParkedWorkersForTest(p)
		if all >= n && blocked == all && parked == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 10 s with no work, %d of %d workers in the process blocked, %d of the pool's %d listed as sleepers", blocked, all, parked, n)
		}
		time.Sleep(time.Millisecond)
	}
}

// goroutines records the goroutines that run a call's bodies, telling the
// call's owner, set before the call, from the others.
type goroutines struct {
	owner     int64 // goid of the owner
	mu        sync.Mutex
	ids       map[int64]bool
	elsewhere atomic.Bool // a body ran on a goroutine other than the owner
	ownerRan  int         // bodies run by the owner; only the owner touches it
}

// record notes the calling goroutine. It returns the number of bodies the
// owner has run, this one included, or 0 on another goroutine.
func (g *goroutines) record() int {
	id := goid()
	g.mu.Lock()
	if g.ids == nil {
		g.ids = map[int64]bool{}
	}
	g.ids[id] = true
	g.mu.Unlock()
	if id != g.owner {
		g.elsewhere.Store(true)
		return 0
	}
	g.ownerRan++
	return g.ownerRan
}

// count returns how many goroutines ran a body.
func (g *goroutines) count() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.ids)
}

// goid returns the id of the calling goroutine, parsed from its stack header
// ("goroutine 18 [running]:"). Slow (about a microsecond); tests only.
func goid() int64 {
	var buf [64]byte
	n := runtime.Stack(buf[:], false)
	b := bytes.TrimPrefix(buf[:n], []byte("goroutine "))
	if i := bytes.IndexByte(b, ' '); i > 0 {
		b = b[:i]
	}
	id, err := strconv.ParseInt(string(b), 10, 64)
	if err != nil {
		panic("cannot parse goroutine id from " + strconv.Quote(string(buf[:n])))
	}
	return id
}

// noHang runs f on a fresh goroutine and waits for it; a panic in f is
// re-raised here. If f has not returned within hangLimit the whole test
// binary panics with every goroutine's stack, which names the deadlock more
// clearly than the global -timeout would, and sooner. f must report with
// t.Error, never t.Fatal.
func noHang(t testing.TB, what string, f func()) {
	t.Helper()
	type result struct {
		panicked bool
		value    any
	}
	done := make(chan result, 1)
	go func() {
		ok := false
		defer func() {
			if !ok {
				done <- result{panicked: true, value: recover()}
			}
		}()
		f()
		ok = true
		done <- result{}
	}()
	timer := time.NewTimer(hangLimit)
	defer timer.Stop()
	select {
	case r := <-done:
		if r.panicked {
			panic(r.value)
		}
	case <-timer.C:
		buf := make([]byte, 1<<24)
		n := runtime.Stack(buf, true)
		panic(fmt.Sprintf("%s: %s did not return within %v (deadlock or lost wake-up); all goroutines:\n%s",
			t.Name(), what, hangLimit, buf[:n]))
	}
}

// catch runs f and returns what it panicked with, and whether it panicked.
func catch(f func()) (value any, panicked bool) {
	panicked = true
	defer func() {
		if panicked {
			value = recover()
		}
	}()
	f()
	panicked = false
	return nil, false
}

// wantPanicError runs f, which must panic with a *par.PanicError, and
// returns it.
func wantPanicError(t testing.TB, what string, f func()) *par.PanicError {
	t.Helper()
	v, panicked := catch(f)
	if !panicked {
		t.Fatalf("%s: returned normally; want a panic with *par.PanicError", what)
	}
	pe, ok := v.(*par.PanicError)
	if !ok {
		t.Fatalf("%s: panicked with %T (%v); want *par.PanicError", what, v, v)
	}
	return pe
}

// rootValue follows PanicErrors nested by nested calls (an outer body that
// re-panics with the inner call's *PanicError) down to the original value.
func rootValue(pe *par.PanicError) any {
	var v any = pe
	for {
		p, ok := v.(*par.PanicError)
		if !ok || p == nil {
			return v
		}
		v = p.Value
	}
}

// panicSite panics with v. Its name is what the tests look for in the stack a
// PanicError carries.
//
//go:noinline
func panicSite(v any) {
	panic(v)
}

const panicSiteName = "par_test.panicSite"

// checkPanicError checks everything a PanicError for a panic(v) raised in
// panicSite must carry: the value (possibly under nested PanicErrors), a
// stack naming panicSite, an Error text with both, errors.As and, for an
// error value, errors.Is through Unwrap.
func checkPanicError(t testing.TB, what string, pe *par.PanicError, v any) {
	t.Helper()
	if got := rootValue(pe); got != v {
		t.Errorf("%s: PanicError carries %v (%T); want the original value %v (%T)", what, got, got, v, v)
	}
	// The innermost PanicError holds the stack of the goroutine that panicked.
	inner := pe
	for {
		next, ok := inner.Value.(*par.PanicError)
		if !ok {
			break
		}
		inner = next
	}
	if !bytes.Contains(inner.Stack, []byte(panicSiteName)) {
		t.Errorf("%s: PanicError.Stack does not mention %s, where the panic happened:\n%s", what, panicSiteName, inner.Stack)
	}
	msg := pe.Error()
	if !bytes.Contains([]byte(msg), []byte(fmt.Sprint(v))) || !bytes.Contains([]byte(msg), []byte(panicSiteName)) {
		t.Errorf("%s: Error() = %q; want it to show the value %v and the stack naming %s", what, msg, v, panicSiteName)
	}
	var err error = pe
	var target *par.PanicError
	if !errors.As(err, &target) || target != pe {
		t.Errorf("%s: errors.As(err, *PanicError) does not find the PanicError", what)
	}
	if verr, ok := v.(error); ok && !errors.Is(err, verr) {
		t.Errorf("%s: errors.Is(PanicError, %v) = false; Unwrap must expose an error value", what, verr)
	}
}

// spinSink keeps spin's work from being optimised away.
var spinSink atomic.Uint64

// spin does about k units of CPU work (a unit is a few nanoseconds) and
// touches no shared memory until the end.
//
//go:noinline
func spin(k int) {
	x := uint64(k) | 1
	for i := 0; i < k; i++ {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
	}
	if x == 0 {
		spinSink.Add(1)
	}
}

// maxGauge records the largest value it has seen.
type maxGauge struct{ v atomic.Int64 }

func (g *maxGauge) observe(x int64) {
	for {
		old := g.v.Load()
		if x <= old || g.v.CompareAndSwap(old, x) {
			return
		}
	}
}

// goroutineGauge samples runtime.NumGoroutine into a maxGauge.
func (g *maxGauge) sampleGoroutines() { g.observe(int64(runtime.NumGoroutine())) }

// checkOnce checks that counts[i] == 1 for every i and reports the first few
// offenders.
func checkOnce(t testing.TB, what string, counts []atomic.Int32) {
	t.Helper()
	bad := 0
	for i := range counts {
		if c := counts[i].Load(); c != 1 {
			if bad < 5 {
				t.Errorf("%s: index %d ran %d times; want exactly once", what, i, c)
			}
			bad++
		}
	}
	if bad > 5 {
		t.Errorf("%s: ... %d indices in all ran a wrong number of times", what, bad)
	}
}

// atLeastTwoPs raises GOMAXPROCS to 2 for the rest of the test if it is 1
// (go test -cpu 1): a test that asserts a worker ran some body needs a P
// for the worker while the caller runs, which one P gives it only when the
// caller happens to be preempted, and then the caller's pieces may not split
// at all, the scheduler having a goroutine waiting for the P (pool.go).
func atLeastTwoPs(t testing.TB) {
	if prev := runtime.GOMAXPROCS(0); prev < 2 {
		runtime.GOMAXPROCS(2)
		t.Cleanup(func() { runtime.GOMAXPROCS(prev) })
	}
}
