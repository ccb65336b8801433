package par

import "fmt"

// Option adjusts one call of a verb. Options are plain values, so a call that
// passes none allocates nothing for them. A verb given an option it cannot
// honour panics at the call, naming it:
//
//	option          For ForRange Map ForErr MapErr   Reduce ReduceRange   Fold   Join Invoke Both BothOf
//	On              yes                              yes                  yes    yes
//	Grain           yes                              yes                  yes    no
//	Track           yes                              yes                  yes    no
//	Weighted        yes                              yes                  yes    no
//	Blocking        yes                              no                   no     no
//	Deterministic   no                               yes                  no     no
//
// Beside Blocking, whose bodies run on goroutines of their own, On, Grain
// and Weighted mean nothing and panic too, as does Weighted beside
// Deterministic, whose pieces depend on n alone.
type Option struct {
	pool          *Pool
	grain         int
	blocking      int
	deterministic bool
	progress      *Progress
	weights       *[]int64 // prefix sums (a pointer: an Option is comparable)
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
// cost of an iteration; the hint is never required, only a lower bound. With
// Weighted it is a weight. It panics if n < 1.
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
// cancellation, Track and pprof labels behave as without it. The call uses
// no pool, so On, Grain and Weighted beside it panic. It panics if
// limit < 1.
func Blocking(limit int) Option {
	if limit < 1 {
		panic(fmt.Sprintf("par: Blocking(%d): the limit must be at least 1", limit))
	}
	return Option{blocking: limit}
}

// Deterministic makes Reduce and ReduceRange combine along a split tree
// fixed by the input length alone, so a combine that is associative only up
// to rounding (floating-point addition) gives bitwise the same result on
// every run and every pool size.
func Deterministic() Option { return Option{deterministic: true} }

// Weighted gives item i the expected cost w[i] (any unit; only ratios
// matter), so that splitting balances cumulative weight instead of the count
// of items: a split cuts where the remaining weight is halved, and a grain
// is a weight (a Grain hint too). The call's n must equal len(w). A weight
// must not be negative; items of weight 0 are taken to cost little. Wrong
// weights cost balance, never correctness: stealing still fixes what they
// get wrong, as far as grains allow. Weighted reads w once, into prefix
// sums, so one Option serves many calls over the same items. It panics if a
// weight is negative or the weights sum past 2^62.
func Weighted(w []int64) Option {
	prefix := make([]int64, len(w)+1)
	for i, x := range w {
		if x < 0 {
			panic(fmt.Sprintf("par: Weighted: w[%d] = %d, a negative weight", i, x))
		}
		if prefix[i] > (1<<62)-x {
			panic(fmt.Sprintf("par: Weighted: the weights sum past 2^62 at w[%d]", i))
		}
		prefix[i+1] = prefix[i] + x
	}
	return Option{weights: &prefix}
}

// What a verb accepts besides On (makeSpec's allow argument).
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

// optionUse says, in a panic, where an option applies.
var optionUse = map[int]string{
	allowGrain:         "it applies to the loop verbs, the reductions and Fold",
	allowBlocking:      "it applies to For, ForRange, Map, ForErr and MapErr",
	allowDeterministic: "it applies to Reduce and ReduceRange",
	allowTrack:         "it applies to the loop verbs, the reductions and Fold",
	allowWeighted:      "it applies to the loop verbs, the reductions and Fold",
}

// makeSpec merges opts for a call of verb over n items, which accepts the
// options in allow, and panics on one it cannot honour. It also starts
// Track's count. A call with no options costs a length test.
func makeSpec(verb string, allow int, opts []Option, n int) (sp spec, deterministic bool) {
	sp.verb, sp.n = verb, n
	if len(opts) == 0 {
		return sp, false
	}
	var progress *Progress
	for _, o := range opts {
		var opt int
		var name string
		switch {
		case o.pool != nil:
			sp.pool = o.pool
			continue
		case o.grain > 0:
			opt, name, sp.grain = allowGrain, "Grain", o.grain
		case o.blocking > 0:
			opt, name, sp.blocking = allowBlocking, "Blocking", o.blocking
		case o.deterministic:
			opt, name, deterministic = allowDeterministic, "Deterministic", true
		case o.progress != nil:
			opt, name, progress = allowTrack, "Track", o.progress
		case o.weights != nil:
			opt, name, sp.prefix = allowWeighted, "Weighted", *o.weights
		default:
			panic("par: " + verb + ": the zero Option is not an option; use On, Grain, Blocking, Deterministic, Track or Weighted")
		}
		if allow&opt == 0 {
			panic(fmt.Sprintf("par: %s does not take the %s option: %s", verb, name, optionUse[opt]))
		}
	}
	for _, c := range [...]struct {
		beside, name string
		set          bool
		why          string
	}{
		{"Blocking", "On", sp.blocking > 0 && sp.pool != nil, "whose bodies run on goroutines of their own"},
		{"Blocking", "Grain", sp.blocking > 0 && sp.grain > 0, "whose bodies run on goroutines of their own"},
		{"Blocking", "Weighted", sp.blocking > 0 && sp.prefix != nil, "whose bodies run on goroutines of their own"},
		{"Deterministic", "Weighted", deterministic && sp.prefix != nil, "whose pieces depend on n alone"},
	} {
		if c.set {
			panic(fmt.Sprintf("par: %s: %s means nothing beside %s, %s", verb, c.name, c.beside, c.why))
		}
	}
	if sp.prefix != nil && len(sp.prefix)-1 != n {
		panic(fmt.Sprintf("par: %s over %d items given Weighted weights for %d", verb, n, len(sp.prefix)-1))
	}
	if progress != nil {
		progress.total.Add(int64(max(n, 0)))
		sp.progress = &progress.done
	}
	return sp, deterministic
}

// mustBody panics, naming the verb and the argument, when a function
// argument is nil: the panic blames the caller, not a body it never wrote.
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
	machine *Machine  // a captured machine (tests: export_test.go), or nil: the host
	exp     *experiment
}

type pinChoice uint8

const (
	pinDefault pinChoice = iota
	pinOn
	pinOff
)

// defaultPinning is decided by measurement (bench/RESULTS.md): on 2 and 16
// cores pinned workers were no faster, and waking a thread-locked worker
// costs 10 to 30 µs.
const defaultPinning = false

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
// on.
func Pinning(on bool) PoolOption {
	return func(c *poolConfig) {
		c.pinning = pinOff
		if on {
			c.pinning = pinOn
		}
	}
}
