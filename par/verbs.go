package par

import (
	"context"
	"runtime/trace"
)

// enter finds the slot on which the calling goroutine runs a call on pool p
// (nil: the pool of the worker or guest seat the goroutine already holds,
// else Default). guest reports that a guest seat was acquired for this call
// and must be released. s is nil when the call must run serially on the
// caller: the pool is closed, or every guest seat is taken.
func enter(p *Pool) (s *slot, guest bool, pool *Pool) {
	k := goroutineKey()
	if s := lookupWorker(k); s != nil && (p == nil || s.pool == p) {
		return s, false, s.pool
	}
	if s := lookupGuest(k); s != nil && (p == nil || s.pool == p) {
		return s, false, s.pool
	}
	if p == nil {
		p = Default()
	}
	if p.closed.Load() {
		return nil, false, p
	}
	p.ensureStarted()
	if s := acquireGuest(p, k); s != nil {
		return s, true, p
	}
	return nil, false, p
}

// rangeBody is what a range call runs: exactly one of i, r and e is set.
type rangeBody struct {
	i      func(int)
	r      func(lo, hi int)
	e      func(context.Context, int) error
	ctx    context.Context // ForErr: the context handed to the bodies
	cancel context.CancelFunc
}

// doRange runs a range call of verb over [0, n) and re-raises a body's
// panic (or Goexit) in the caller. The frame comes from the caller's slot
// (one is kept per slot, owner-only) or, for a nested call on the same
// slot, from framePool.
func doRange(verb string, opts []Option, n int, b rangeBody) error {
	var c callConfig
	if len(opts) != 0 {
		c = mergeOptions(verb, loopOptions, opts)
		checkWeights(verb, &c, n)
		if c.progress != nil {
			c.progress.total.Add(int64(n))
		}
		if c.blocking > 0 {
			return runBlocking(verb, n, &c, &b)
		}
	}
	lo := 0
	if cp, now := crowdedPool(&c); cp != nil {
		next, err := runCrowded(cp, now, n, &c, &b)
		if next == n || err != nil {
			return err
		}
		lo = next // the crowd left: the rest runs as a parallel call
	}
	s, guest, p := enter(c.pool)
	if s == nil || p.solo.Load() {
		_, err := runSolo(verb, s, guest, lo, n, &c, &b, false)
		return err
	}
	if c.plainNested(s, guest) {
		next, err := runSolo(verb, s, false, lo, n, &c, &b, true)
		if next == n {
			return err
		}
		lo = next // the deque emptied: the rest runs as a parallel call
	}
	f := s.frame
	if f != nil {
		s.frame = nil
	} else {
		f = framePool.Get().(*rangeFrame)
	}
	f.begin(p, s, &c)
	f.shape(s, guest, n-lo)
	f.startTrace(verb, n-lo, s, b.ctx)
	f.bodyI, f.bodyR, f.bodyE, f.ctx, f.cancel = b.i, b.r, b.e, b.ctx, b.cancel
	var t0 int64
	if guest {
		t0 = cputicks()
		f.startTicks = t0
	}
	returned := false
	defer func() {
		if !returned {
			// A Goexit from a body this goroutine ran is unwinding it
			// (panic.go): stop the call, let it finish, give back the
			// seat, and let the Goexit go on.
			f.fail(goexitError)
			f.waitUnwinding(s)
			endRange(s, f, guest, t0)
		}
	}()
	runRange(s, f, lo, n)
	returned = true
	pe, err := endRange(s, f, guest, t0)
	if pe != nil {
		raise(pe)
	}
	return err
}

// endRange ends the call of frame f on slot s after every piece is done:
// it reads the outcome, recycles f and, for a guest, accounts the call's
// time since t0 and releases the seat.
func endRange(s *slot, f *rangeFrame, guest bool, t0 int64) (*PanicError, error) {
	f.endTrace()
	pe, err, t1 := f.pe.Load(), f.err, f.endTicks
	*f = rangeFrame{}
	if s.frame == nil {
		s.frame = f
	} else {
		framePool.Put(f)
	}
	if guest {
		if t1 < t0 { // the owner ran no grain (all stolen, or stopped at once)
			t1 = cputicks()
		}
		releaseGuestBusy(s, t1-t0)
	}
	return pe, err
}

// For calls body(i) exactly once for each i in [0, n), in parallel. It does
// nothing if n <= 0. Everything each body did happens before For returns.
// The bodies must not wait for each other (a barrier, or one body sending
// to another over a channel): bodies of one call may run one after another
// on the same thread. Bodies that block on I/O, sleeps or locks run best
// with the Blocking option.
//
// If a body panics, no new iterations start (each running piece stops
// before its next iteration), and once every running body has returned For
// panics in the caller's goroutine with a *PanicError holding the value and
// the stack. If a body calls runtime.Goexit (as t.Fatal does), the call
// stops in the same way and then the caller's goroutine exits too.
//
// For allocates nothing of its own in the steady state: a call from outside
// the pool borrows a seat and a recycled frame.
func For(n int, body func(i int), opts ...Option) {
	mustBody("For", "body", body == nil)
	if n <= 0 {
		return
	}
	_ = doRange("For", opts, n, rangeBody{i: body})
}

// ForRange calls body on disjoint pieces [lo, hi) that together cover
// [0, n), in parallel, so that body can run a tight loop with per-piece
// state in locals. A piece is what one worker runs between two checks for
// demand: about 2 µs of the measured cost of an iteration (one index, if
// an iteration takes longer), and the whole range at parallelism 1. So
// the number of pieces grows with n and the cost of the work, not with the
// number of workers: keep nothing per piece that is expensive to make or to
// merge (a map per piece, say); for one accumulator per worker use
// ReduceRange. A piece runs to its end: after a panic, other pieces stop at
// their next piece boundary. Otherwise as For.
func ForRange(n int, body func(lo, hi int), opts ...Option) {
	mustBody("ForRange", "body", body == nil)
	if n <= 0 {
		return
	}
	_ = doRange("ForRange", opts, n, rangeBody{r: body})
}

// Map returns out with out[i] = f(in[i]) for every i, computed in parallel.
// len(out) == len(in). Panics, Goexit and options are handled as in For.
func Map[T, U any](in []T, f func(T) U, opts ...Option) []U {
	mustBody("Map", "function", f == nil)
	out := make([]U, len(in))
	if len(in) != 0 {
		_ = doRange("Map", opts, len(in), rangeBody{i: func(i int) { out[i] = f(in[i]) }})
	}
	return out
}

// ForErr calls body(ctx, i) for each i in [0, n) in parallel, and returns
// the first error a body returns. The first error cancels the context
// handed to the bodies and stops new iterations. If ctx is cancelled, no new
// iterations start and ForErr returns ctx.Err() (unless a body's error came
// first). ForErr returns only after every running body has returned. It
// panics if ctx is nil. Otherwise as For.
func ForErr(ctx context.Context, n int, body func(ctx context.Context, i int) error, opts ...Option) error {
	if ctx == nil {
		panic("par: ForErr called with a nil context")
	}
	mustBody("ForErr", "body", body == nil)
	return forErr("ForErr", ctx, n, body, opts)
}

func forErr(verb string, ctx context.Context, n int, body func(ctx context.Context, i int) error, opts []Option) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if n <= 0 {
		return nil
	}
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if err := doRange(verb, opts, n, rangeBody{e: body, ctx: cctx, cancel: cancel}); err != nil {
		return err
	}
	// Stopped by ctx: some iterations may not have run.
	return ctx.Err()
}

// MapErr is Map with a context and errors, with the semantics of ForErr.
// On error it returns nil and the first error.
func MapErr[T, U any](ctx context.Context, in []T, f func(context.Context, T) (U, error), opts ...Option) ([]U, error) {
	if ctx == nil {
		panic("par: MapErr called with a nil context")
	}
	mustBody("MapErr", "function", f == nil)
	out := make([]U, len(in))
	err := forErr("MapErr", ctx, len(in), func(ctx context.Context, i int) error {
		v, err := f(ctx, in[i])
		out[i] = v
		return err
	}, opts)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Reduce combines the elements of in with combine, in parallel, and returns
// the same value as the sequential left fold
//
//	combine(...combine(combine(identity, in[0]), in[1])..., in[len(in)-1])
//
// combine must be associative; it need not be commutative (string
// concatenation and matrix products come out right). identity is applied
// once, on the left. Floating-point addition is associative only up to
// rounding: the grouping, and so the last bits, depend on how the work was
// split; pass Deterministic() for a result that is bitwise the same on every
// run and pool size. Panics and Goexit are handled as in For.
func Reduce[T any](in []T, identity T, combine func(a, b T) T, opts ...Option) T {
	mustBody("Reduce", "combine function", combine == nil)
	if len(in) == 0 {
		return identity
	}
	// A piece folds its elements from its first one; pieces (and grains)
	// are then combined in index order, which by associativity is the
	// left fold.
	leaf := func(lo, hi int) T {
		acc := in[lo]
		for _, x := range in[lo+1 : hi] {
			acc = combine(acc, x)
		}
		return acc
	}
	return reduceRange("Reduce", len(in), identity, leaf, combine, opts)
}

// ReduceRange folds [0, n) in parallel, a piece at a time: leaf(lo, hi)
// returns the fold of the indices in [lo, hi) (a partial sum, say, in a
// tight loop with no call per element), and combine joins the results of
// adjacent pieces, in index order. It returns
//
//	combine(identity, combine(...combine(leaf(p0), leaf(p1))..., leaf(pk)))
//
// for pieces p0, ..., pk that cover [0, n) in order; for a leaf that folds
// with combine, that is the sequential left fold. Pieces are as in
// ForRange. It returns identity when n <= 0. Deterministic() makes the
// pieces (and so the grouping) depend on n alone. Panics and Goexit are
// handled as in For.
func ReduceRange[T any](n int, identity T, leaf func(lo, hi int) T, combine func(a, b T) T, opts ...Option) T {
	mustBody("ReduceRange", "leaf function", leaf == nil)
	mustBody("ReduceRange", "combine function", combine == nil)
	return reduceRange("ReduceRange", n, identity, leaf, combine, opts)
}

func reduceRange[T any](verb string, n int, identity T, leaf func(lo, hi int) T, combine func(a, b T) T, opts []Option) T {
	var c callConfig
	if len(opts) != 0 {
		c = mergeOptions(verb, reduceOptions, opts)
	}
	if n <= 0 {
		return identity
	}
	checkWeights(verb, &c, n)
	if c.progress != nil {
		c.progress.total.Add(int64(n))
	}
	if c.deterministic {
		return reduceDeterministic(n, identity, leaf, combine, c)
	}
	if cp, now := crowdedPool(&c); cp != nil {
		w := newCrowdWatch(cp, c.grain, now)
		return reduceSolo(verb, nil, false, n, identity, leaf, combine, c, false, &w)
	}
	s, guest, p := enter(c.pool)
	if s == nil || p.solo.Load() {
		return reduceSolo(verb, s, guest, n, identity, leaf, combine, c, false, nil)
	}
	if c.plainNested(s, guest) { // no frame
		return reduceSolo(verb, s, false, n, identity, leaf, combine, c, true, nil)
	}
	return runReduce(verb, &reduceFrame[T]{leaf: leaf, combine: combine}, s, guest, p, n, identity, c)
}

// runReduce runs the reduce frame f over [0, n) on slot s of pool p (a
// guest seat to release if guest) and applies identity.
func runReduce[T any](verb string, f *reduceFrame[T], s *slot, guest bool, p *Pool, n int, identity T, c callConfig) T {
	f.begin(p, s, &c)
	f.shape(s, guest, n)
	f.startTrace(verb, n, s, nil)
	defer f.endTrace()
	var t0 int64
	if guest {
		t0 = cputicks()
	}
	returned := false
	defer func() {
		if !returned { // a Goexit is unwinding this goroutine: as in doRange
			f.fail(goexitError)
			f.waitUnwinding(s)
			if guest {
				releaseGuest(s, t0)
			}
		}
	}()
	root := s.newTask()
	root.kind, root.frame = taskRange, f
	root.lo, root.hi = 0, n
	f.runPiece(s, root)
	f.wait(s)
	returned = true
	if guest {
		releaseGuest(s, t0)
	}
	if pe := f.pe.Load(); pe != nil {
		raise(pe)
	}
	var out T
	if pe := catch(func() { out = f.combine(identity, f.result) }, nil); pe != nil {
		panic(pe)
	}
	return out
}

// Invoke runs every fn, in parallel, and returns when all have returned. A
// panic in any fn is re-raised in the caller as a *PanicError after all
// have returned; a Goexit in any ends the caller's goroutine after all have
// returned. Called from a body, Invoke forks onto the running worker's
// deque; called from outside, it runs on the default pool or the one On
// names. It takes the On option only.
func Invoke(fns []func(), opts ...Option) {
	for _, fn := range fns {
		mustBody("Invoke", "function", fn == nil)
	}
	var p *Pool
	if len(opts) != 0 {
		p = mergeOptions("Invoke", forkOptions, opts).pool
	}
	switch len(fns) {
	case 0:
		return
	case 1:
		runSerial(fns[0])
		return
	}
	s, guest, _ := enter(p)
	if s == nil {
		runSerial(fns...)
		return
	}
	if guest {
		defer releaseGuest(s, cputicks())
		if trace.IsEnabled() {
			tracedFork(s, "Invoke", len(fns), func() { Invoke(fns) })
			return
		}
	}
	if len(fns) == 2 {
		s.join2(fns[0], fns[1])
		return
	}
	s.invokeN(fns)
}

// Join runs f and g, in parallel, and returns when both have returned. It is
// Invoke for two functions, and cheaper: f runs on the calling goroutine and
// does not escape, so only g's closure is allocated. It takes the On option
// only.
func Join(f, g func(), opts ...Option) {
	mustBody("Join", "function", f == nil || g == nil)
	var p *Pool
	if len(opts) != 0 {
		p = mergeOptions("Join", forkOptions, opts).pool
	}
	s, guest, _ := enter(p)
	switch {
	case s == nil:
		runSerial(f, g)
	case guest:
		joinAsGuest(s, f, g)
	default:
		s.join2(f, g) // the nested fast path: no defer here
	}
}

func joinAsGuest(s *slot, f, g func()) {
	defer releaseGuest(s, cputicks())
	if trace.IsEnabled() {
		tracedFork(s, "Join", 2, func() { s.join2(f, g) })
		return
	}
	s.join2(f, g)
}
