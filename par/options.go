package par

// Option adjusts one call of a verb. Options are plain values, so a call that
// passes none allocates nothing for them.
type Option struct {
	pool          *Pool
	grain         int
	deterministic bool
}

// On runs the call on pool p instead of the default pool (or, for a call made
// from inside a body, instead of the pool that runs the body).
func On(p *Pool) Option { return Option{pool: p} }

// Grain sets the smallest number of iterations a piece runs before it checks
// for demand and may split. The scheduler adapts the grain to the measured
// cost of an iteration; the hint is never required, only a lower bound.
func Grain(n int) Option { return Option{grain: n} }

// Deterministic makes Reduce combine along a split tree fixed by the input
// length alone, so a non-associative-in-practice combine (floating-point
// addition) gives bitwise the same result on every run and every pool size.
func Deterministic() Option { return Option{deterministic: true} }

// callConfig is the merge of a call's options.
type callConfig struct {
	pool          *Pool
	grain         int
	deterministic bool
}

func mergeOptions(opts []Option) callConfig {
	var c callConfig
	for _, o := range opts {
		if o.pool != nil {
			c.pool = o.pool
		}
		if o.grain > 0 {
			c.grain = o.grain
		}
		if o.deterministic {
			c.deterministic = true
		}
	}
	return c
}

// VictimPolicy chooses the order in which an idle worker tries to steal.
type VictimPolicy int

const (
	// VictimNearest tries the workers nearest in the machine's topology first
	// (SMT sibling, shared L2, shared L3, NUMA node, remote), randomised
	// within each level. It is the default.
	VictimNearest VictimPolicy = iota
	// VictimRandom tries the other workers in a fresh random order.
	VictimRandom
	// VictimLongest tries the worker with the longest deque first.
	VictimLongest
)

// PoolOption configures NewPool.
type PoolOption func(*poolConfig)

type poolConfig struct {
	workers int // 0: follow runtime.GOMAXPROCS(0)
	pinning bool
	machine *Machine
	victims VictimPolicy
	backoff bool
}

func defaultPoolConfig() poolConfig {
	return poolConfig{victims: VictimNearest, backoff: true, pinning: defaultPinning}
}

// Workers fixes the number of workers. By default a pool has one worker per
// usable CPU and follows runtime.GOMAXPROCS(0) as it changes.
func Workers(n int) PoolOption { return func(c *poolConfig) { c.workers = n } }

// Pinning pins each worker's OS thread to one CPU with sched_setaffinity
// (Linux only; elsewhere it does nothing). See the README for when to turn it
// off.
func Pinning(on bool) PoolOption { return func(c *poolConfig) { c.pinning = on } }

// OnMachine places workers on the CPUs of m. A machine read from a capture
// (ReadMachine over a directory or archive that is not this machine's "/")
// is simulated: its CPU ids are used for placement and victim orders, and no
// thread is pinned.
func OnMachine(m *Machine) PoolOption { return func(c *poolConfig) { c.machine = m } }

// Victims sets the victim selection policy.
func Victims(v VictimPolicy) PoolOption { return func(c *poolConfig) { c.victims = v } }

// Backoff turns bounded spinning before parking on (the default) or off. With
// it off, a worker that finds no work parks at once.
func Backoff(on bool) PoolOption { return func(c *poolConfig) { c.backoff = on } }
