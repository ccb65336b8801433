package iter

import (
	"context"
	"runtime/debug"
	"runtime/trace"
	"sync"
	"sync/atomic"

	"github.com/parloop/parloop/par"
)

// state is one run of a pipeline: its context, its first error, and
// whether it has stopped.
//
// Stopping follows par.ForErr: every goroutine of the run looks at
// stopped before each item, never during one. stopped reads one word,
// flags: its stopped bit, which fail and halt set before they cancel ctx,
// and its poll bit, set for a run whose parent context (the Context
// option's) can be done; then stopped also polls the parent's Done
// channel, which is closed by the time the parent's cancel returns. So once
// the run has stopped, by an error, an early exit or the parent being
// done, no item starts after it, and a run without a Context pays one load
// and one test an item. Goroutines that wait (for a batch, a token, a place
// in a stage) select on ctx.Done(), which all three close.
//
// Why the ordering suffices: a check that comes after a cancel in
// happens-before order sees it, since the parent's cancel closes Done
// before it returns and a close happens before the receive that observes
// it; flags is atomic, and fail and halt set the stopped bit before they
// cancel ctx, so a goroutine woken by ctx.Done() sees the bit. err and
// settled are guarded by mu, and read for the result only by finish, once
// every goroutine of the run has returned (par.For's and the WaitGroup's
// return order it after their writes).
type state struct {
	ctx    context.Context // handed to the stages; cancelled once the run stops
	cancel context.CancelFunc
	parent context.Context
	done   <-chan struct{} // parent.Done(); nil for a parent that is never done
	flags  atomic.Uint32   // flagStopped | flagPoll

	mu       sync.Mutex
	err      error                  // the first error a function returned
	settled  bool                   // halted: the terminal has its answer
	finished bool                   // finish has run; err is final
	gates    map[*int]chan struct{} // the semaphores of stages given Blocking

	traceCtx  context.Context // the run's trace task, if traced (trace.go)
	traceTask *trace.Task
}

func newState(o *options, n int) *state {
	parent := o.ctx
	if parent == nil {
		parent = context.Background()
	}
	st := &state{parent: parent, done: parent.Done()}
	if st.done != nil {
		st.flags.Store(flagPoll)
	}
	st.ctx, st.cancel = context.WithCancel(parent)
	st.startTrace(o, n)
	return st
}

// The bits of state.flags.
const (
	flagStopped = 1 << iota // the run has stopped
	flagPoll                // stopped polls the parent's Done channel
)

// stopped reports whether the run has stopped (see state). The per-item
// loops of the chunked stages (stage.go) and of From write its test out as
// two nested ifs: inlined there, its result became a bool tested again,
// four more instructions an item, an eighth of a chunked Map's.
func (st *state) stopped() bool {
	if st.flags.Load() != 0 {
		if st.stoppedOrDone() {
			return true
		}
	}
	return false
}

// stop marks the run stopped.
func (st *state) stop() { st.flags.Or(flagStopped) }

// stoppedOrDone is stopped's test once a flag is set: the stopped bit, or
// else the parent's Done channel, polled. It is out of line, so that the
// inlined test in stopped stays small.
//
//go:noinline
func (st *state) stoppedOrDone() bool {
	if st.flags.Load()&flagStopped != 0 {
		return true
	}
	select {
	case <-st.done:
		st.stop() // later checks need not poll
		return true
	default:
		return false
	}
}

// gate returns the semaphore of the stage key for this run, with room for n
// items: a stage given Blocking(n) holds a place in it while its function
// runs.
func (st *state) gate(key *int, n int) chan struct{} {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.gates == nil {
		st.gates = map[*int]chan struct{}{}
	}
	g, ok := st.gates[key]
	if !ok {
		g = make(chan struct{}, n)
		st.gates[key] = g
	}
	return g
}

// enter takes a place in g, and reports false if the run stopped first.
func (st *state) enter(g chan struct{}) bool {
	select {
	case g <- struct{}{}:
		return true
	case <-st.ctx.Done():
		return false
	}
}

// fail records err if it is the first error and the run has not been
// halted, and stops the run. An error after a halt (a function that saw
// ctx cancelled once Find had its match, or the loop over All ended) is
// dropped: the terminal has its answer.
func (st *state) fail(err error) {
	st.mu.Lock()
	if st.err == nil && !st.settled && !st.finished {
		st.err = err
	}
	st.mu.Unlock()
	st.stop()
	st.cancel()
}

// halt stops the run without an error: an early exit (a match found, a
// break), or a goroutine of the run ending abnormally.
func (st *state) halt() {
	st.mu.Lock()
	st.settled = true
	st.mu.Unlock()
	st.stop()
	st.cancel()
}

// finish ends the run and returns its result, as par.ForErr does: the first
// error a function returned, else the parent context's error if it is
// done, else nil. It is called once every goroutine of the run has
// stopped, and may be called again (a deferred call after a panic): it
// returns the same.
func (st *state) finish() error {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.finished {
		return st.err
	}
	st.finished = true
	defer st.endTrace()
	if st.err == nil {
		st.err = st.parent.Err()
	}
	st.cancel()
	return st.err
}

// catcher is deferred (catch) around user code that the run calls: a stage,
// the source, a terminal's function. The code sets returned when it
// returned normally, and at to the source position of the item it runs
// (-1: the source itself, or a function the terminal calls once).
type catcher struct {
	returned bool
	at       int
}

// catch does nothing if the code returned. Otherwise it stops the run;
// after a panic it panics again with a *par.PanicError naming the item at
// [at, at+1) (-1, -1 if at is -1)
// (one from a nested par call or pipeline goes on as it is, with the
// indices where it happened), and after runtime.Goexit it lets the
// goroutine go on exiting. It and the stream's driver (engine.go) are the
// package's only calls of recover besides Hedged's attempts.
func (c *catcher) catch(st *state) {
	if c.returned {
		return
	}
	r := recover()
	st.halt()
	if r == nil {
		return // runtime.Goexit
	}
	if _, ok := r.(*par.PanicError); !ok {
		pe := &par.PanicError{Value: r, Stack: debug.Stack(), Lo: c.at, Hi: c.at + 1}
		if c.at < 0 {
			pe.Hi = -1
		}
		r = pe
	}
	panic(r)
}

// guarded runs f, which calls user code on a goroutine of the run (see
// catcher), so that a panic in it reaches the caller as a *par.PanicError
// and nothing waits for it after it ends abnormally; in a traced run, in a
// region named role (trace.go).
func guarded(st *state, role string, f func()) {
	c := catcher{at: -1}
	defer c.catch(st)
	if st.traceCtx != nil {
		defer trace.StartRegion(st.traceCtx, role).End()
	}
	f()
	c.returned = true
}

// call returns f(): a function a terminal calls once, on the caller's
// goroutine (a merge, the last combine), whose panic reaches the caller as a
// *par.PanicError, as one in a stage does.
func call[R any](st *state, f func() R) R {
	c := catcher{at: -1}
	defer c.catch(st)
	r := f()
	c.returned = true
	return r
}

// runItems runs f(i) for the source indices i in [lo, hi) until the run
// stops or f returns false; a panic in f names its index.
func runItems(st *state, f func(i int) bool, lo, hi int) {
	c := catcher{at: lo} // the loop's index: a panic names it
	defer c.catch(st)
	for ; c.at < hi && !st.stopped(); c.at++ {
		if !f(c.at) {
			break
		}
	}
	c.returned = true
}
