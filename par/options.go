package par

import (
	"fmt"

	"github.com/parloop/parloop/par/internal/experiment"
)

// Option adjusts one call of a verb; a plain value, so options allocate
// nothing. A verb given an option it cannot honour panics at the call:
//
//	option          loops   reductions   Fold   forks   scopes
//	On              yes     yes          yes    yes     yes
//	Grain           yes     yes          yes    no      no
//	Track           yes     yes          yes    no      no
//	Weighted        yes     yes          yes    no      no
//	Blocking        yes     no           no     no      yes
//	Deterministic   no      yes          no     no      no
//
// Loops are For, ForRange, Map, ForErr, MapErr and ForOf; reductions
// Reduce, ReduceRange and ReduceRangeOf; forks Join, JoinOf, Invoke, Both
// and BothOf; scopes Scope and ScopeErr. On, Grain and Weighted beside
// Blocking (its bodies run on goroutines of their own) panic too, as does
// Weighted beside Deterministic.
type Option struct {
	pool          *Pool
	grain         int
	blocking      int
	deterministic bool
	progress      *Progress
	weights       *[]int64 // prefix sums (a pointer: an Option is comparable)
}

// On runs the call on pool p instead of the default pool (or, inside a
// body, instead of the body's pool). It panics if p is nil.
func On(p *Pool) Option {
	if p == nil {
		panic("par: On(nil): no pool given")
	}
	return Option{pool: p}
}

// Grain sets the fewest iterations a piece runs before it checks for
// demand and may split: a lower bound on the grain, which adapts to the
// measured cost of an iteration anyway. With Weighted it is a weight. It
// panics if n < 1.
func Grain(n int) Option {
	if n < 1 {
		panic(fmt.Sprintf("par: Grain(%d): the grain must be at least 1", n))
	}
	return Option{grain: n}
}

// Blocking declares that the bodies block (on files, the network, sleeps,
// locks or channels) and runs them on at most limit goroutines of their
// own, taking indices in increasing order, as a fan-out with a semaphore
// would, while the pool's workers run CPU-bound calls. With limit >= n
// every body runs at once, so bodies may wait on each other. Panics,
// errors, cancellation, Track and labels behave as without it. On, Grain
// and Weighted beside it panic, as does a limit < 1.
//
// The limit is a budget for a whole tree of blocking calls: a Blocking
// call with limit < n, or a Blocking scope, made from a body (or task) of a
// Blocking call or scope runs on the goroutine that made it and spends
// what is left of the outer limit, never more than its own, so a recursive
// walk with Blocking at every level runs at most the outermost limit of
// goroutines in all. A call with limit >= n starts every body at once
// wherever it is made.
func Blocking(limit int) Option {
	if limit < 1 {
		panic(fmt.Sprintf("par: Blocking(%d): the limit must be at least 1", limit))
	}
	return Option{blocking: limit}
}

// Deterministic makes Reduce and ReduceRange combine along a split tree
// fixed by n alone, so a combine associative only up to rounding gives
// bitwise the same result on every run and pool size.
func Deterministic() Option { return Option{deterministic: true} }

// Weighted gives item i the expected cost w[i] (any unit; 0: cheap), so
// that splits halve the remaining weight, not the items, and a grain (a
// Grain hint too) is a weight; n must equal len(w). Wrong weights cost
// balance, never correctness. Weighted reads w once: one Option serves many
// calls. It panics if a weight is negative or the weights sum past 2^62.
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

	loopOptions   = allowGrain | allowBlocking | allowTrack | allowWeighted      // For, ForRange, Map, ForErr, MapErr, ForOf
	reduceOptions = allowGrain | allowDeterministic | allowTrack | allowWeighted // Reduce, ReduceRange, ReduceRangeOf
	foldOptions   = allowGrain | allowTrack | allowWeighted                      // Fold
	forkOptions   = 0                                                            // Join, Invoke, Both, BothOf, JoinOf
	scopeOptions  = allowBlocking                                                // Scope, ScopeErr
)

// optionUse says, in a panic, where an option applies.
var optionUse = map[int]string{
	allowGrain:         "it applies to the loop verbs, the reductions and Fold",
	allowBlocking:      "it applies to For, ForRange, Map, ForErr, MapErr, Scope and ScopeErr",
	allowDeterministic: "it applies to Reduce and ReduceRange",
	allowTrack:         "it applies to the loop verbs, the reductions and Fold",
	allowWeighted:      "it applies to the loop verbs, the reductions and Fold",
}

// nothingToDo reports whether a call over n items has nothing to run and
// no options to check: recursive walks call their verb at every leaf, and
// this returns there before the call's spec is made.
func nothingToDo(n int, opts []Option) bool { return n <= 0 && len(opts) == 0 }

// makeSpec merges opts for a call of verb over n items, panicking on one
// not in allow, and starts Track's count. No options cost a length test.
func makeSpec(verb string, allow int, opts []Option, n int) (sp spec, deterministic bool) {
	if len(opts) != 0 {
		return specWith(verb, allow, opts, n)
	}
	sp.verb, sp.n = verb, n
	return
}

// specWith is makeSpec with options.
func specWith(verb string, allow int, opts []Option, n int) (sp spec, deterministic bool) {
	sp.verb, sp.n = verb, n
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

// mustBody panics, naming the verb and the argument, if isNil.
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
	exp     *experiment.Set
}

type pinChoice uint8

const (
	pinDefault pinChoice = iota
	pinOn
	pinOff
)

// defaultPinning: pinned workers were no faster on 2 and 16 cores, and
// waking a thread-locked worker costs more (bench/RESULTS.md).
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

// Workers fixes the pool's parallelism at n, n-1 worker threads and the
// calling goroutine, instead of following runtime.GOMAXPROCS(0). It panics
// if n < 1 or n > MaxWorkers. For bodies that block, use Blocking.
func Workers(n int) PoolOption {
	if n < 1 || n > MaxWorkers {
		panic(fmt.Sprintf("par: Workers(%d): the parallelism must be between 1 and %d (for bodies that block, use the Blocking option)", n, MaxWorkers))
	}
	return func(c *poolConfig) { c.workers = n }
}

// Pinning pins each worker's OS thread to one CPU with sched_setaffinity
// (Linux only; elsewhere a no-op). See the README for when to use it.
func Pinning(on bool) PoolOption {
	return func(c *poolConfig) {
		c.pinning = pinOff
		if on {
			c.pinning = pinOn
		}
	}
}
