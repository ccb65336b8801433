package iter

import (
	"context"
	"fmt"

	"github.com/parloop/parloop/par"
)

// Option adjusts a pipeline (given to its source) or one stage. Options are
// plain values, merged once, at the call that takes them. A source or stage
// given an option it cannot honour panics at the call, naming it:
//
//	option      Slice Range   From From2 Chan Lines   Map MapErr Filter FilterErr FlatMap FlatMapErr
//	Unordered   yes           yes                     no
//	Window      no            yes                     no
//	Batch       no            yes                     no
//	Blocking    yes           yes                     yes
//	Context     yes           yes                     no
//	On          yes           yes                     no
//
// Window and Batch shape the batches a streaming source is pulled in; an
// indexed source is not pulled. On beside Blocking on a source, whose
// runners are goroutines of their own, means nothing and panics too. Of the
// terminals, Find panics on an Unordered pipeline: it returns the first
// match in input order (FindAny returns any). The terminals take no
// options of their own.
type Option struct {
	unordered bool
	window    int
	batch     int
	blocking  int
	ctx       context.Context
	pool      *par.Pool
}

// options is a pipeline's options, merged.
type options struct {
	unordered bool
	window    int // batches pulled and not yet consumed; 0: eight per runner
	batch     int // fixed batch size; 0: adaptive
	blocking  int // the source's Blocking: the whole pipeline on that many goroutines; 0: none
	// stageBlocking is the sum of the stages' Blocking limits: that many
	// runners more, on goroutines of their own.
	stageBlocking int
	ctx           context.Context
	pool          *par.Pool
	stages        string // "Slice | Map | Filter": the source and stages so far, for traces (trace.go)
}

// Unordered lets results come out in any order (Collect, All, Reduce), for
// throughput: a slow batch no longer holds back the ones after it.
func Unordered() Option { return Option{unordered: true} }

// Window bounds the items a streaming pipeline holds at once to k batches:
// pulled from the source and not yet consumed (being filled, queued,
// running, or in the reorder buffer), as the live tokens of oneTBB's
// parallel_pipeline. The default is eight per runner. It panics if k < 1.
func Window(k int) Option {
	if k < 1 {
		panic(fmt.Sprintf("iter: Window(%d): the window must be at least 1 batch", k))
	}
	return Option{window: k}
}

// Batch fixes the number of items a streaming source pulls per batch,
// instead of adapting it to the measured cost of an item. It panics if
// n < 1.
func Batch(n int) Option {
	if n < 1 {
		panic(fmt.Sprintf("iter: Batch(%d): a batch must hold at least 1 item", n))
	}
	return Option{batch: n}
}

// Blocking declares that work blocks (on files, the network, sleeps), as
// par.Blocking does for a loop. Given to a source, it runs the whole
// pipeline on n goroutines of their own (par.Blocking), off the pool's
// workers. Given to a stage (Map, MapErr, Filter, FilterErr, FlatMap,
// FlatMapErr), it lets at most n items be in that stage's function at once,
// and adds n goroutines to the pipeline's runners, so that items waiting in
// the stage do not hold up the CPU-bound stages; the whole pipeline then
// runs on goroutines of its own. It panics if n < 1.
func Blocking(n int) Option {
	if n < 1 {
		panic(fmt.Sprintf("iter: Blocking(%d): the limit must be at least 1", n))
	}
	return Option{blocking: n}
}

// Context makes the pipeline stop when ctx is done, and hands (a child of)
// ctx to the error forms of the stages. The default is
// context.Background(). It panics if ctx is nil.
func Context(ctx context.Context) Option {
	if ctx == nil {
		panic("iter: Context(nil): no context given")
	}
	return Option{ctx: ctx}
}

// On runs the pipeline on pool p rather than the default pool: an indexed
// pipeline splits on p's workers, and a streaming one has one runner per
// worker of p. It panics if p is nil.
func On(p *par.Pool) Option {
	if p == nil {
		panic("iter: On(nil): no pool given")
	}
	return Option{pool: p}
}

// What a source or a stage accepts (makeOptions' allow argument).
const (
	allowUnordered = 1 << iota
	allowWindow
	allowBatch
	allowBlocking
	allowContext
	allowOn

	indexedOptions   = allowUnordered | allowBlocking | allowContext | allowOn // Slice, Range
	streamingOptions = indexedOptions | allowWindow | allowBatch               // From, From2, Chan, Lines
	stageOptions     = allowBlocking                                           // Map, MapErr, Filter, FilterErr, FlatMap, FlatMapErr
)

// optionUse says, in a panic, where an option applies.
var optionUse = map[int]string{
	allowUnordered: "it applies to the sources, which set the pipeline's order",
	allowWindow:    "it applies to the streaming sources (From, From2, Chan, Lines), which are pulled in batches",
	allowBatch:     "it applies to the streaming sources (From, From2, Chan, Lines), which are pulled in batches",
	allowContext:   "it applies to the sources, which set the pipeline's context",
	allowOn:        "it applies to the sources, which set the pipeline's pool",
}

// makeOptions merges opts given to where (a source or a stage), which
// accepts the options in allow, and panics on one it cannot honour. A
// call with no options costs a length test.
func makeOptions(where string, allow int, opts []Option) options {
	o := options{stages: where}
	for _, op := range opts {
		var opt int
		var name string
		switch {
		case op.unordered:
			opt, name, o.unordered = allowUnordered, "Unordered", true
		case op.window > 0:
			opt, name, o.window = allowWindow, "Window", op.window
		case op.batch > 0:
			opt, name, o.batch = allowBatch, "Batch", op.batch
		case op.blocking > 0:
			opt, name, o.blocking = allowBlocking, "Blocking", op.blocking
		case op.ctx != nil:
			opt, name, o.ctx = allowContext, "Context", op.ctx
		case op.pool != nil:
			opt, name, o.pool = allowOn, "On", op.pool
		default:
			panic("iter: " + where + ": the zero Option is not an option; use Unordered, Window, Batch, Blocking, Context or On")
		}
		if allow&opt == 0 {
			panic(fmt.Sprintf("iter: %s does not take the %s option: %s", where, name, optionUse[opt]))
		}
	}
	if o.blocking > 0 && o.pool != nil {
		panic("iter: " + where + ": On means nothing beside Blocking, whose runners are goroutines of their own")
	}
	return o
}

// stageBlocking returns the Blocking limit among a stage's options (0 if
// none), and panics on any other option.
func stageBlocking(stage string, opts []Option) int {
	if len(opts) == 0 {
		return 0
	}
	return makeOptions(stage, stageOptions, opts).blocking
}

// blocked returns f, run under the stage's Blocking limit: taking a place
// in the run's semaphore for the stage (key) around each call. ok is false
// if the run stopped while f waited for a place.
func blocked[T, R any](st *state, key *int, n int, f func(T) R) func(T) (r R, ok bool) {
	if n == 0 {
		return func(v T) (R, bool) { return f(v), true }
	}
	g := st.gate(key, n)
	return func(v T) (r R, ok bool) {
		if !st.enter(g) {
			return r, false
		}
		defer func() { <-g }()
		return f(v), true
	}
}

// withBlocking is p with a stage's Blocking limit counted in its runners.
func withBlocking[T any](p Pipe[T], n int) Pipe[T] {
	p.o.stageBlocking += n
	return p
}
