package par

// Test-only access to what the benchmarks select through PARLOOP_EXPERIMENT
// (options.go), for the black-box tests in package par_test.

// VictimsForTest returns a PoolOption that sets the victim order: "nearest",
// "random" or "longest".
func VictimsForTest(order string) PoolOption {
	e, err := parseExperiment("victims=" + order)
	if err != nil {
		panic(err)
	}
	return func(c *poolConfig) { c.exp = &e }
}

// BackoffForTest returns a PoolOption that turns spinning before parking on
// or off.
func BackoffForTest(on bool) PoolOption {
	return withExperiment(func(e *experiment) { e.noBackoff = !on })
}

// ThreadsForTest returns a PoolOption that makes unpinned workers lock
// their threads or not (threads=locked|unlocked).
func ThreadsForTest(locked bool) PoolOption {
	return withExperiment(func(e *experiment) { e.locked = locked })
}

// SpinForTest returns a PoolOption that keeps idle workers spinning (those
// the spinner limit lets spin) instead of parking, so that a test sees at
// once what an idle worker does, whatever the machine's timing.
func SpinForTest() PoolOption {
	return withExperiment(func(e *experiment) { e.spinForever = true })
}

// withExperiment changes one setting of the pool's experiment, keeping
// those set by earlier options.
func withExperiment(set func(*experiment)) PoolOption {
	return func(c *poolConfig) {
		var e experiment
		if c.exp != nil {
			e = *c.exp
		}
		set(&e)
		c.exp = &e
	}
}

// SetStoppedHook makes f run whenever a panicking piece has stopped its
// call (just after the stop flag is stored), until the returned function
// restores the previous hook. Tests only; not safe while calls run.
func SetStoppedHook(f func()) (restore func()) {
	old := stoppedHook
	stoppedHook = f
	return func() { stoppedHook = old }
}

// WorkerPool returns the pool of the worker the calling goroutine is, or
// nil if it is no worker.
func WorkerPool() *Pool {
	if s := lookupWorker(goroutineKey()); s != nil {
		return s.pool
	}
	return nil
}

// ParkedWorkersForTest returns the number of p's workers listed as
// sleepers (sleep.go).
func ParkedWorkersForTest(p *Pool) int {
	st := &p.sleep
	st.mu.Lock()
	defer st.mu.Unlock()
	n := 0
	for _, s := range st.sleepers {
		if s.worker {
			n++
		}
	}
	return n
}

// SaturatedForTest fixes the saturation answer (saturation.go) to yes or
// no, until the returned function restores measuring. Tests only; a test
// that uses it must not run in parallel with others.
func SaturatedForTest(yes bool) (restore func()) {
	v := int32(2)
	if yes {
		v = 1
	}
	old := saturationForTest.Swap(v)
	return func() { saturationForTest.Store(old) }
}

// HoldsGuestSeat reports whether the calling goroutine holds a guest seat
// (a call from outside the pool that took the framed path).
func HoldsGuestSeat() bool { return lookupGuest(goroutineKey()) != nil }
