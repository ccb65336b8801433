package par

import (
	"fmt"
	"os"
	"strings"
)

// Option adjusts one call of a verb. Options are plain values, so a call that
// passes none allocates nothing for them. Every verb takes On; the others
// are taken by the verbs that can honour them, and a verb given one it
// cannot honour panics, naming it:
//
//	option          For ForRange Map ForErr MapErr   Reduce ReduceRange   Fold   Join Invoke Both BothOf
//	On              yes                              yes                  yes    yes
//	Grain           yes                              yes                  yes    no
//	Track           yes                              yes                  yes    no
//	Weighted        yes                              yes                  yes    no
//	Blocking        yes                              no                   no     no
//	Deterministic   no                               yes                  no     no
type Option struct {
	pool          *Pool
	grain         int
	blocking      int
	deterministic bool
	progress      *Progress
	weights       *weights
}

// On runs the call on pool p instead of the default pool (or, for a call made
// from inside a body, instead of the pool that runs the body). It panics if
// p is nil; the zero Pool is a valid pool.
func On(p *Pool) Option {
	if p == nil {
		panic("par: On(nil): no pool given")
	}
	return Option{pool: p}
}

// Grain sets the smallest number of iterations a piece runs before it checks
// for demand and may split. The scheduler adapts the grain to the measured
// cost of an iteration; the hint is never required, only a lower bound. It
// panics if n < 1.
func Grain(n int) Option {
	if n < 1 {
		panic(fmt.Sprintf("par: Grain(%d): the grain must be at least 1", n))
	}
	return Option{grain: n}
}

// Blocking declares that the bodies block (they wait on files, the network,
// sleeps, locks or channels) and runs them on at most limit goroutines of
// their own, off the pool's workers, taking indices one at a time in
// increasing order. Use it where a fan-out of goroutines with a semaphore of
// limit would be written by hand: the pool's workers, one per CPU, keep
// running CPU-bound calls at full speed meanwhile. With limit >= n every
// body runs at once, so bodies may wait on each other (a barrier, one body
// sending to another); without Blocking they must not. Panics, errors,
// cancellation and pprof labels behave as without it. The call does not
// use a pool, so On and Grain have no effect beside it. It panics if
// limit < 1.
func Blocking(limit int) Option {
	if limit < 1 {
		panic(fmt.Sprintf("par: Blocking(%d): the limit must be at least 1", limit))
	}
	return Option{blocking: limit}
}

// Deterministic makes Reduce and ReduceRange combine along a split tree
// fixed by the input length alone, so a non-associative-in-practice combine
// (floating-point addition) gives bitwise the same result on every run and
// every pool size.
func Deterministic() Option { return Option{deterministic: true} }

// callConfig is the merge of a call's options.
type callConfig struct {
	pool          *Pool
	grain         int
	blocking      int
	deterministic bool
	progress      *Progress
	weights       *weights
}

// What a verb accepts besides On (mergeOptions' allow argument).
const (
	allowGrain = 1 << iota
	allowBlocking
	allowDeterministic
	allowTrack
	allowWeighted

	loopOptions   = allowGrain | allowBlocking | allowTrack | allowWeighted      // For, ForRange, Map, ForErr, MapErr
	reduceOptions = allowGrain | allowDeterministic | allowTrack | allowWeighted // Reduce, ReduceRange
	foldOptions   = allowGrain | allowTrack | allowWeighted                      // Fold
	forkOptions   = 0                                                            // Join, Invoke, Both, BothOf
)

// mergeOptions merges opts for the verb named verb, which accepts the
// options in allow, and panics on one it does not. A call with no options
// costs a length test.
func mergeOptions(verb string, allow int, opts []Option) callConfig {
	var c callConfig
	for _, o := range opts {
		switch {
		case o.pool != nil:
			c.pool = o.pool
		case o.grain > 0:
			if allow&allowGrain == 0 {
				rejectOption(verb, "Grain")
			}
			c.grain = o.grain
		case o.blocking > 0:
			if allow&allowBlocking == 0 {
				rejectOption(verb, "Blocking")
			}
			c.blocking = o.blocking
		case o.deterministic:
			if allow&allowDeterministic == 0 {
				rejectOption(verb, "Deterministic")
			}
			c.deterministic = true
		case o.progress != nil:
			if allow&allowTrack == 0 {
				rejectOption(verb, "Track")
			}
			c.progress = o.progress
		case o.weights != nil:
			if allow&allowWeighted == 0 {
				rejectOption(verb, "Weighted")
			}
			c.weights = o.weights
		default:
			panic("par: " + verb + ": the zero Option is not an option; use On, Grain, Blocking, Deterministic, Track or Weighted")
		}
	}
	return c
}

func rejectOption(verb, opt string) {
	var which string
	switch opt {
	case "Grain":
		which = "it applies to the loop verbs and the reductions"
	case "Blocking":
		which = "it applies to For, ForRange, Map, ForErr and MapErr"
	case "Deterministic":
		which = "it applies to Reduce and ReduceRange"
	case "Track", "Weighted":
		which = "it applies to the loop verbs, the reductions and Fold"
	}
	panic(fmt.Sprintf("par: %s does not take the %s option: %s", verb, opt, which))
}

// mustBody panics, naming the verb and the argument, when a function
// argument is nil. The check is at the call, so the panic blames the
// caller rather than a body the user never wrote.
func mustBody(verb, arg string, isNil bool) {
	if isNil {
		panic("par: " + verb + " called with a nil " + arg)
	}
}

// PoolOption configures NewPool.
type PoolOption func(*poolConfig)

type poolConfig struct {
	workers int       // 0: follow runtime.GOMAXPROCS(0)
	pinning pinChoice // pinDefault: defaultPinning
	machine *Machine
	exp     *experiment // tests only (export_test.go); nil: PARLOOP_EXPERIMENT
}

type pinChoice uint8

const (
	pinDefault pinChoice = iota
	pinOn
	pinOff
)

// pinned reports whether the pool pins its workers.
func (c *poolConfig) pinned() bool {
	if c.pinning == pinDefault {
		return defaultPinning
	}
	return c.pinning == pinOn
}

// MaxWorkers is the largest parallelism a pool can have.
const MaxWorkers = 1024

// Workers fixes the pool's parallelism at n: n-1 worker threads and the
// calling goroutine. By default a pool has one per usable CPU and follows
// runtime.GOMAXPROCS(0) as it changes. It panics if n < 1 or n >
// MaxWorkers: workers are CPU threads, and a pool wider than the machine
// only adds switching. For bodies that block, use the Blocking option.
func Workers(n int) PoolOption {
	if n < 1 || n > MaxWorkers {
		panic(fmt.Sprintf("par: Workers(%d): the parallelism must be between 1 and %d (for bodies that block, use the Blocking option)", n, MaxWorkers))
	}
	return func(c *poolConfig) { c.workers = n }
}

// Pinning pins each worker's OS thread to one CPU with sched_setaffinity
// (Linux only; elsewhere it does nothing). See the README for when to turn it
// off.
func Pinning(on bool) PoolOption {
	return func(c *poolConfig) {
		c.pinning = pinOff
		if on {
			c.pinning = pinOn
		}
	}
}

// OnMachine places workers on the CPUs of m. A machine read from a capture
// (ReadMachine over an fs.FS, such as one that package par/capture opens
// from a directory or tar archive) is simulated: its CPU ids are used for
// placement and victim orders, and no thread is pinned. It panics if m is
// nil.
func OnMachine(m *Machine) PoolOption {
	if m == nil {
		panic("par: OnMachine(nil): no machine given")
	}
	return func(c *poolConfig) { c.machine = m }
}

// Experiments. The benchmarks compare scheduling policies that users have
// no reason to change; they select them with the environment variable
// PARLOOP_EXPERIMENT, a comma-separated list read when a pool starts (so a
// benchmark can set it before a pool's first call):
//
//	victims=nearest|random|longest   the order in which idle workers steal (default nearest)
//	backoff=on|off                   spin before parking (default on)
//	threads=locked|unlocked          unpinned workers lock their threads (default unlocked)
//	spinners=half|all                how many idle workers may spin at once (default half)
//
// An unknown setting panics at the pool's start, so a typo cannot pass for
// a measurement.

// victimPolicy chooses the order in which an idle worker tries to steal.
type victimPolicy int

const (
	// victimNearest tries the workers nearest in the machine's topology first
	// (SMT sibling, shared L2, shared L3, NUMA node, remote), randomised
	// within each level.
	victimNearest victimPolicy = iota
	// victimRandom tries the other workers in a fresh random order.
	victimRandom
	// victimLongest tries the worker with the longest deque first.
	victimLongest
)

// experiment is the parsed PARLOOP_EXPERIMENT.
type experiment struct {
	victims   victimPolicy
	noBackoff bool
	locked    bool // threads=locked: unpinned workers lock their threads too
	allSpin   bool // spinners=all: every idle worker may spin, not half
	noKick    bool // kicks=off: a first grain kicks no parked worker (cut.go)

	// spinForever keeps idle workers spinning instead of parking (tests
	// only, export_test.go: no PARLOOP_EXPERIMENT setting).
	spinForever bool
}

// experiments reads PARLOOP_EXPERIMENT.
func experiments() experiment {
	e, err := parseExperiment(os.Getenv("PARLOOP_EXPERIMENT"))
	if err != nil {
		panic(err)
	}
	return e
}

func parseExperiment(s string) (experiment, error) {
	var e experiment
	for _, kv := range strings.Split(s, ",") {
		if kv = strings.TrimSpace(kv); kv == "" {
			continue
		}
		switch kv {
		case "victims=nearest":
			e.victims = victimNearest
		case "victims=random":
			e.victims = victimRandom
		case "victims=longest":
			e.victims = victimLongest
		case "backoff=on":
			e.noBackoff = false
		case "backoff=off":
			e.noBackoff = true
		case "threads=locked":
			e.locked = true
		case "threads=unlocked":
			e.locked = false
		case "spinners=half":
			e.allSpin = false
		case "spinners=all":
			e.allSpin = true
		case "kicks=on":
			e.noKick = false
		case "kicks=off":
			e.noKick = true
		default:
			return e, fmt.Errorf("par: PARLOOP_EXPERIMENT: unknown setting %q (want victims=nearest|random|longest, backoff=on|off, threads=locked|unlocked, spinners=half|all or kicks=on|off)", kv)
		}
	}
	return e, nil
}
