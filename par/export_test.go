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
	return func(c *poolConfig) {
		e := experiment{noBackoff: !on}
		if c.exp != nil {
			e.victims = c.exp.victims
		}
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
