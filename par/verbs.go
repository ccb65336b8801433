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
	f.startTrace(verb, n-lo)
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

// runSolo runs a range call at parallelism 1 (or with no seat: a closed
// pool, or every guest seat taken): one loop on the caller over [lo, n),
// with no frame, no task and no clock, since nothing can be offered to
// anybody. A panic is wrapped and re-raised as the parallel path does; a
// Goexit simply goes on, nothing else being in flight. s, if not nil, is
// the caller's seat, released here if guest.
//
// It also runs plain nested calls (watch set, split.go): then For, Map and
// ForErr look at s's deque before each iteration and, once it is empty,
// return the index of the first iteration not run, for the caller to run
// the rest as a parallel call. Otherwise next is n.
func runSolo(verb string, s *slot, guest bool, lo, n int, c *callConfig, b *rangeBody, watch bool) (next int, err error) {
	sc := beginSolo(verb, s, guest, n-lo)
	defer sc.end()
	next = n
	switch {
	case b.r != nil && watch:
		// Chunks of 1, 2, 4, ... indices (g, 2g, 4g, ... with Grain(g)),
		// looking at the deque between them: a thief that empties it
		// waits at most about as long as the call has run so far.
		for size := max(c.grain, 1); lo < n; size = nextChunk(size) {
			if lo > 0 && s.dq.Len() == 0 {
				next = lo
				break
			}
			hi := lo + min(size, n-lo)
			b.r(lo, hi)
			lo = hi
		}
	case b.r != nil:
		b.r(lo, n)
		if c.progress != nil {
			c.progress.done.Add(int64(n - lo))
		}
	case b.i != nil && watch:
		for i := lo; i < n; i++ {
			if s.dq.Len() == 0 {
				next = i
				break
			}
			b.i(i)
		}
	case b.i != nil && c.progress != nil:
		// Count in chunks, as grains do elsewhere, not an atomic add per item.
		const chunk = 256
		for ; lo < n; lo += chunk {
			hi := lo + min(chunk, n-lo)
			for i := lo; i < hi; i++ {
				b.i(i)
			}
			c.progress.done.Add(int64(hi - lo))
		}
	case b.i != nil:
		for i := lo; i < n; i++ {
			b.i(i)
		}
	default:
		next, err = runErrSolo(s, lo, n, c, b, watch, nil)
	}
	sc.returned = true
	return next, err
}

// runCrowded runs a crowded call (crowd.go) over [0, n) on pool p, crowded
// since tick now, and counts it in p's stats; it returns the first index
// not run, for the caller to run the rest as a parallel call, as runSolo
// does for a plain nested call. It does runSolo's work for such a call
// (no trace task and no seat: crowded calls have neither) with a frame of
// its own, leaner than runSolo's: on a fresh goroutine's 2 KB stack, the
// path through runSolo made the runtime grow and copy the stack at every
// call of 512 callers (pprof: 4% of the time).
//
//go:noinline
func runCrowded(p *Pool, now int64, n int, c *callConfig, b *rangeBody) (next int, err error) {
	w := newCrowdWatch(p, c.grain, now)
	returned := false
	defer func() {
		if !returned { // a panic is wrapped as on every path; a Goexit goes on
			if r := recover(); r != nil {
				panic(recovered(r))
			}
		}
	}()
	switch {
	case b.r != nil:
		next = w.forRange(b.r, n)
	case b.i != nil:
		next = w.forEach(b.i, 0, n)
	default:
		next, err = runErrSolo(nil, 0, n, c, b, false, &w)
	}
	returned = true
	w.done()
	return next, err
}

// runErrSolo is runSolo's loop for ForErr (and MapErr): the context looked
// at before each item, the first error cancelling it. A function of its
// own, to keep runSolo's frame small (see runCrowded).
func runErrSolo(s *slot, lo, n int, c *callConfig, b *rangeBody, watch bool, crowd *crowdWatch) (next int, err error) {
	next = n
	done := b.ctx.Done()
	look := n
	if crowd != nil {
		look = lo + crowd.size
	}
	for i := lo; i < n; i++ {
		if watch && s.dq.Len() == 0 {
			return i, nil
		}
		if i == look {
			if !crowd.still(i) {
				return i, nil
			}
			look = i + crowd.size
		}
		select {
		case <-done:
			return n, nil
		default:
		}
		if err = b.e(b.ctx, i); err != nil {
			b.cancel()
			return n, err
		}
		if c.progress != nil { // ForErr bodies are rarely cheap: per item
			c.progress.done.Add(1)
		}
	}
	return n, nil
}

// soloCall is the bookkeeping of a call that runs as one loop on its
// caller (runSolo, reduceSolo): its trace task, and the guest seat to
// release. The caller defers end right after beginSolo and sets returned
// when its loop returns.
type soloCall struct {
	traced
	s        *slot
	guest    bool
	t0       int64 // guest: the call's start, for the callers' busy time
	returned bool
}

func beginSolo(verb string, s *slot, guest bool, n int) soloCall {
	sc := soloCall{s: s, guest: guest}
	sc.startTrace(verb, n)
	if s != nil {
		s.unflushedPieces++
		if guest {
			sc.t0 = cputicks()
			s.pool.maybeResize() // splits check GOMAXPROCS, and this call never splits
		}
	}
	return sc
}

// end ends the call on return, panic or Goexit: it releases the seat, ends
// the trace task and re-raises a panic wrapped as the parallel path does;
// a Goexit simply goes on, nothing else being in flight. It must be the
// deferred function itself, for recover.
func (sc *soloCall) end() {
	var r any
	if !sc.returned {
		r = recover()
	}
	if sc.guest {
		releaseGuest(sc.s, sc.t0)
	}
	sc.endTrace()
	if r != nil {
		panic(recovered(r))
	}
}

// reduceSolo is runSolo for Reduce and ReduceRange: leaf over the whole
// range, without a closure that would escape. With watch (a plain nested
// call) or crowd (a crowded call), it folds chunks of 1, 2, 4, ... indices
// left to right, looking at s's deque (or at the crowd) between them as
// runSolo does, and once a thief has emptied the deque (or the crowd has
// left) hands the rest to a parallel call whose identity is the fold so
// far, so the result is still combine(identity, fold of every chunk in
// order).
func reduceSolo[T any](verb string, s *slot, guest bool, n int, identity T, leaf func(lo, hi int) T, combine func(a, b T) T, c callConfig, watch bool, crowd *crowdWatch) T {
	sc := beginSolo(verb, s, guest, n)
	defer sc.end()
	if !watch && crowd == nil {
		out := combine(identity, leaf(0, n))
		if c.progress != nil {
			c.progress.done.Add(int64(n))
		}
		sc.returned = true
		return out
	}
	lo := min(max(c.grain, 1), n) // the first chunk: the Grain hint, or one index
	acc := leaf(0, lo)
	if crowd != nil {
		for lo < n && crowd.still(lo) {
			hi := lo + min(crowd.size, n-lo)
			acc = combine(acc, leaf(lo, hi))
			lo = hi
		}
		crowd.done()
	} else {
		for size := 2 * lo; lo < n && s.dq.Len() != 0; size = nextChunk(size) {
			hi := lo + min(size, n-lo)
			acc = combine(acc, leaf(lo, hi))
			lo = hi
		}
	}
	if lo < n {
		off := lo
		var opts []Option
		if crowd != nil {
			opts = []Option{On(crowd.p)} // a nested call finds its pool; a crowded one must name it
		}
		acc = reduceRange(verb, n-off, acc, func(a, b int) T { return leaf(a+off, b+off) }, combine, opts)
	}
	out := combine(identity, acc) // before returned: its panic is wrapped too
	sc.returned = true
	return out
}

// nextChunk doubles a plain call's chunk, short of overflowing.
func nextChunk(size int) int {
	if size < 1<<60 {
		return 2 * size
	}
	return size
}

// plainNested reports whether a call with these options, on slot s (guest:
// a seat taken for this call, so not nested), runs as a plain loop
// (split.go): a nested call on a slot whose deque offers thieves work
// already. Calls with Track (counted per grain) or Weighted (split by
// weight) take the parallel path.
func (c *callConfig) plainNested(s *slot, guest bool) bool {
	return !guest && c.progress == nil && c.weights == nil && s.offersWork()
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
	f.startTrace(verb, n)
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
	s.join2(f, g)
}
