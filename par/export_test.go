package par

import (
	"bytes"
	"io/fs"
	"runtime"

	"github.com/parloop/parloop/par/internal/experiment"
	"github.com/parloop/parloop/par/internal/platform"
)

// Test-only access, for the black-box tests in package par_test: the
// experiments the benchmarks select (internal/experiment), the captured-machine
// simulation, and a few looks at the scheduler's state.

// VictimsForTest returns a PoolOption that sets the victim order: "nearest",
// or "random".
func VictimsForTest(order string) PoolOption {
	e, err := experiment.Parse("victims=" + order)
	if err != nil {
		panic(err)
	}
	return withExperiment(func(x *experiment.Set) { x.Victims = e.Victims })
}

// BackoffForTest returns a PoolOption that turns spinning before parking on
// or off.
func BackoffForTest(on bool) PoolOption {
	return withExperiment(func(e *experiment.Set) { e.NoBackoff = !on })
}

// ThreadsForTest returns a PoolOption that makes unpinned workers lock
// their threads or not.
func ThreadsForTest(locked bool) PoolOption {
	return withExperiment(func(e *experiment.Set) { e.Locked = locked })
}

// SpinForTest returns a PoolOption that keeps idle workers spinning (those
// the spinner limit lets spin) instead of parking, so that a test sees at
// once what an idle worker does, whatever the machine's timing.
func SpinForTest() PoolOption {
	return withExperiment(func(e *experiment.Set) { e.SpinForever = true })
}

// ExperimentForTest returns a PoolOption with the experiment settings s
// (PARLOOP_EXPERIMENT's syntax).
func ExperimentForTest(s string) PoolOption {
	e, err := experiment.Parse(s)
	if err != nil {
		panic(err)
	}
	return func(c *poolConfig) { c.exp = &e }
}

// withExperiment changes one setting of the pool's experiment, keeping
// those set by earlier options.
func withExperiment(set func(*experiment.Set)) PoolOption {
	return func(c *poolConfig) {
		var e experiment.Set
		if c.exp != nil {
			e = *c.exp
		}
		set(&e)
		c.exp = &e
	}
}

// OnMachine places a pool's workers on the CPUs of m, a captured machine.
func OnMachine(m *Machine) PoolOption {
	if m == nil {
		panic("par: OnMachine(nil): no machine given")
	}
	return func(c *poolConfig) { c.machine = m }
}

// ReadMachine reads a captured machine from fsys.
func ReadMachine(fsys fs.FS) (*Machine, error) { return readMachine(fsys) }

// Placement describes where p's workers run.
func (p *Pool) Placement() string {
	m := p.init().machine
	if m == nil {
		if m = p.cfg.machine; m == nil {
			m = hostOnce()
		}
	}
	return placement(m, p.Workers(), p.cfg.pinned())
}

// SaturatedForTest fixes the saturation answer to yes or no until the
// returned function restores measuring. A test that uses it must not run
// in parallel with others.
func SaturatedForTest(yes bool) (restore func()) { return platform.FixSaturation(yes) }

// WorkerPool returns the pool of the worker the calling goroutine is, or
// nil if it is no worker.
func WorkerPool() *Pool {
	if s := lookupWorker(platform.GoroutineKey()); s != nil {
		return s.pool
	}
	return nil
}

// PoolHereForTest returns the pool a call without On made here would run
// on.
func PoolHereForTest() *Pool { return poolOf(nil) }

// HoldsGuestSeat reports whether the calling goroutine holds a guest seat
// (a call from outside the pool that took the framed path).
func HoldsGuestSeat() bool { return lookupGuest(platform.GoroutineKey()) != nil }

// BlockedWorkersForTest returns the number of worker goroutines in the
// process, of every pool, and how many of them are blocked on a channel
// (a parked worker waits for its token), from the goroutine dump.
func BlockedWorkersForTest() (workers, blocked int) {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	for _, g := range bytes.Split(buf, []byte("\n\n")) {
		if !bytes.Contains(g, []byte("par.(*Pool).workerMain(")) {
			continue
		}
		workers++
		header, _, _ := bytes.Cut(g, []byte("\n"))
		if bytes.Contains(header, []byte("[chan receive")) || bytes.Contains(header, []byte("[select")) {
			blocked++
		}
	}
	return workers, blocked
}

// ParkedWorkersForTest returns the number of p's workers listed as
// sleepers (par/internal/sleep).
func ParkedWorkersForTest(p *Pool) int {
	return p.sleep.Workers()
}
