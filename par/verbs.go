package par

import (
	"context"
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

// serialSlot is a seat with no deque: nothing it runs ever splits or forks.
func serialSlot(p *Pool) *slot {
	return &slot{pool: p, id: -1, cpu: -1, stats: &p.callerStats}
}

// rangeBody is what a range call runs: exactly one of i, r and e is set.
type rangeBody struct {
	i      func(int)
	r      func(lo, hi int)
	e      func(context.Context, int) error
	ctx    context.Context // ForErr: the context handed to the bodies
	cancel context.CancelFunc
}

// doRange runs a range call over [0, n) and re-panics a body's panic in
// the caller. The frame comes from the caller's slot (one is kept per slot,
// owner-only) or, for a nested call on the same slot, from framePool.
func doRange(opts []Option, n int, b rangeBody) error {
	c := mergeOptions(opts)
	s, guest, p := enter(c.pool)
	if s == nil {
		s = serialSlot(p)
	}
	f := s.frame
	if f != nil {
		s.frame = nil
	} else {
		f = framePool.Get().(*rangeFrame)
	}
	f.loopCore = loopCore{pool: p, owner: s, minGrain: int64(max(1, c.grain))}
	f.bodyI, f.bodyR, f.bodyE, f.ctx, f.cancel = b.i, b.r, b.e, b.ctx, b.cancel
	var t0 int64
	if guest {
		t0 = cputicks()
		f.startTicks = t0
	}
	runRange(s, f, n)
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
		s.stats.busyNs.Add(ticksToNs(t1 - t0))
		releaseGuest(s)
	}
	if pe != nil {
		panic(pe)
	}
	return err
}

// For calls body(i) exactly once for each i in [0, n), in parallel. It does
// nothing if n <= 0. Everything each body did happens before For returns.
//
// If a body panics, no new iterations start (running pieces stop at their
// next grain), and once every running body has returned For panics in the
// caller's goroutine with a *PanicError holding the value and the stack.
//
// For allocates nothing of its own in the steady state: a call from outside
// the pool borrows a seat and a recycled frame.
func For(n int, body func(i int), opts ...Option) {
	if n <= 0 {
		return
	}
	_ = doRange(opts, n, rangeBody{i: body})
}

// ForRange calls body on disjoint pieces [lo, hi) that together cover
// [0, n), in parallel. Pieces are as large as the scheduler finds useful,
// so body can keep per-piece state in locals. Panics are handled as in For.
func ForRange(n int, body func(lo, hi int), opts ...Option) {
	if n <= 0 {
		return
	}
	_ = doRange(opts, n, rangeBody{r: body})
}

// Map returns out with out[i] = f(in[i]) for every i, computed in parallel.
// len(out) == len(in). Panics are handled as in For.
func Map[T, U any](in []T, f func(T) U, opts ...Option) []U {
	out := make([]U, len(in))
	ForRange(len(in), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			out[i] = f(in[i])
		}
	}, opts...)
	return out
}

// ForErr calls body(ctx, i) for each i in [0, n) in parallel, and returns
// the first error a body returns. The first error cancels the context
// handed to the bodies and stops new iterations. If ctx is cancelled, no new
// iterations start and ForErr returns ctx.Err() (unless a body's error came
// first). ForErr returns only after every running body has returned.
func ForErr(ctx context.Context, n int, body func(ctx context.Context, i int) error, opts ...Option) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if n <= 0 {
		return nil
	}
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if err := doRange(opts, n, rangeBody{e: body, ctx: cctx, cancel: cancel}); err != nil {
		return err
	}
	// Stopped by ctx: some iterations may not have run.
	return ctx.Err()
}

// MapErr is Map with a context and errors, with the semantics of ForErr.
// On error it returns nil and the first error.
func MapErr[T, U any](ctx context.Context, in []T, f func(context.Context, T) (U, error), opts ...Option) ([]U, error) {
	out := make([]U, len(in))
	err := ForErr(ctx, len(in), func(ctx context.Context, i int) error {
		v, err := f(ctx, in[i])
		out[i] = v
		return err
	}, opts...)
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
// run and pool size. Panics are handled as in For.
func Reduce[T any](in []T, identity T, combine func(a, b T) T, opts ...Option) T {
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
	return ReduceRange(len(in), identity, leaf, combine, opts...)
}

// ReduceRange folds [0, n) in parallel, a piece at a time: leaf(lo, hi)
// returns the fold of the indices in [lo, hi) (a partial sum, say, in a
// tight loop with no call per element), and combine joins the results of
// adjacent pieces, in index order. It returns
//
//	combine(identity, combine(...combine(leaf(p0), leaf(p1))..., leaf(pk)))
//
// for pieces p0, ..., pk that cover [0, n) in order; for a leaf that folds
// with combine, that is the sequential left fold. It returns identity when
// n <= 0. Deterministic() makes the pieces (and so the grouping) depend on
// n alone. Panics are handled as in For.
func ReduceRange[T any](n int, identity T, leaf func(lo, hi int) T, combine func(a, b T) T, opts ...Option) T {
	if n <= 0 {
		return identity
	}
	if mergeOptions(opts).deterministic {
		return reduceDeterministic(n, identity, leaf, combine, opts)
	}
	return runReduce(&reduceFrame[T]{leaf: leaf, combine: combine}, n, identity, opts)
}

// runReduce runs the reduce frame f over [0, n) and applies identity.
func runReduce[T any](f *reduceFrame[T], n int, identity T, opts []Option) T {
	c := mergeOptions(opts)
	s, guest, p := enter(c.pool)
	if s == nil {
		s = serialSlot(p)
	}
	f.loopCore = loopCore{pool: p, owner: s, minGrain: int64(max(1, c.grain))}
	root := s.newTask()
	root.kind, root.frame = taskRange, f
	root.lo, root.hi = 0, n
	f.runPiece(s, root)
	f.wait(s)
	if guest {
		releaseGuest(s)
	}
	if pe := f.pe.Load(); pe != nil {
		panic(pe)
	}
	var out T
	if pe := catch(func() { out = f.combine(identity, f.result) }); pe != nil {
		panic(pe)
	}
	return out
}

// Invoke runs every fn, in parallel, and returns when all have returned. A
// panic in any fn is re-raised in the caller as a *PanicError after all
// have returned. Called from a body, Invoke forks onto the running worker's
// deque; called from outside, it runs on the default pool.
func Invoke(fns ...func()) { invoke(nil, fns) }

// Invoke runs every fn on p, as the package-level Invoke.
func (p *Pool) Invoke(fns ...func()) { invoke(p, fns) }

func invoke(p *Pool, fns []func()) {
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
		defer releaseGuest(s)
	}
	if len(fns) == 2 {
		s.join2(fns[0], fns[1])
		return
	}
	s.invokeN(fns)
}

// Join runs f and g, in parallel, and returns when both have returned. It is
// Invoke for two functions, and cheaper: f runs on the calling goroutine and
// does not escape, so only g's closure is allocated.
func Join(f, g func()) { joinOn(nil, f, g) }

// Join runs f and g on p, as the package-level Join.
func (p *Pool) Join(f, g func()) { joinOn(p, f, g) }

func joinOn(p *Pool, f, g func()) {
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
	defer releaseGuest(s)
	s.join2(f, g)
}
