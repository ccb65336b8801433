package iter

import (
	"context"

	"github.com/parloop/parloop/par"
)

// Option configures a pipeline; pass options to its source.
type Option struct{ apply func(*options) }

type options struct {
	unordered bool
	window    int // batches in flight; 0: 8 per runner
	batch     int // fixed batch size; 0: adaptive
	limit     int // blocking runners; 0: CPU-bound, one runner per worker
	blocking  int // the sum of the stages' Limits
	ctx       context.Context
	stages    string // "Slice | Map | Filter": the source and stages so far, for traces (trace.go)
	pool      *par.Pool
}

// Unordered lets results come out in any order (Collect, All), for
// throughput: a slow batch no longer holds back the ones after it.
func Unordered() Option { return Option{func(o *options) { o.unordered = true }} }

// Window sets how many batches a streaming pipeline holds at once (the live
// tokens of oneTBB's parallel_pipeline): pulled from the source and not yet
// consumed. The default is eight per runner. It panics if k < 1.
func Window(k int) Option {
	if k < 1 {
		panic("iter: Window(k) with k < 1")
	}
	return Option{func(o *options) { o.window = k }}
}

// Batch fixes the number of items a streaming source pulls per batch, instead
// of adapting it to the measured cost of an item. It panics if n < 1.
func Batch(n int) Option {
	if n < 1 {
		panic("iter: Batch(n) with n < 1")
	}
	return Option{func(o *options) { o.batch = n }}
}

// Limit declares that work blocks (on files, the network, sleeps). Given to
// a source, it runs the whole pipeline on n goroutines of their own
// (par.Blocking), off the pool's workers. Given to a stage (Map, MapErr,
// Filter, FilterErr, FlatMap, FlatMapErr), it lets at most n items be in
// that stage's function at once, and adds n goroutines to the pipeline's
// runners, so that items waiting in the stage do not hold up the CPU-bound
// stages; the whole pipeline then runs on goroutines of its own. It panics
// if n < 1.
func Limit(n int) Option {
	if n < 1 {
		panic("iter: Limit(n) with n < 1")
	}
	return Option{func(o *options) { o.limit = n }}
}

// stageLimit returns the Limit among a stage's options (0 if none), and
// panics if another option is given to the stage.
func stageLimit(stage string, opts []Option) int {
	if len(opts) == 0 {
		return 0
	}
	o := makeOptions(opts)
	if o != (options{limit: o.limit}) {
		panic("iter: " + stage + " takes no option but Limit")
	}
	return o.limit
}

// limited returns f, run under the stage's Limit: taking a place in the
// run's semaphore for the stage (key) around each call. ok is false if the
// run stopped while f waited for a place.
func limited[T, R any](st *state, key *int, n int, f func(T) R) func(T) (r R, ok bool) {
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

// withLimit is p with a stage's Limit counted in its runners.
func withLimit[T any](p Pipe[T], n int) Pipe[T] {
	p.o.blocking += n
	return p
}

// Context makes the pipeline stop when ctx is cancelled, and hands (a child
// of) ctx to the error forms of the stages. The default is
// context.Background(). It panics if ctx is nil.
func Context(ctx context.Context) Option {
	if ctx == nil {
		panic("iter: Context(ctx) with nil ctx")
	}
	return Option{func(o *options) { o.ctx = ctx }}
}

// On runs the pipeline on pool p rather than the default pool: an indexed
// pipeline splits on p's workers, and a streaming one has one runner per
// worker of p. It panics if p is nil.
func On(p *par.Pool) Option {
	if p == nil {
		panic("iter: On(p) with nil p")
	}
	return Option{func(o *options) { o.pool = p }}
}

func makeOptions(opts []Option) options {
	var o options
	for _, op := range opts {
		if op.apply == nil {
			panic("iter: zero Option")
		}
		op.apply(&o)
	}
	return o
}
