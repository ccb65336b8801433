package par

import (
	"context"
	"runtime/trace"

	"github.com/parloop/parloop/par/internal/locals"
	"github.com/parloop/parloop/par/internal/platform"
	"github.com/parloop/parloop/par/internal/tracing"
)

// For calls body(i) exactly once for each i in [0, n), in parallel, and
// does nothing if n <= 0. Everything the bodies did happens before For
// returns. Bodies must not wait for each other (a barrier, one body sending
// to another): bodies of one call may run one after another on one thread.
// Bodies that block on I/O, sleeps or locks run best with Blocking.
//
// If a body panics, no new iterations start (each running piece stops
// before its next index), and once every running body has returned For
// panics in the caller with a *PanicError holding the value, the stack and
// where it happened. If a body calls runtime.Goexit (as t.Fatal does), the
// call stops the same way and then the caller's goroutine exits too. For
// allocates nothing of its own in the steady state.
func For(n int, body func(i int), opts ...Option) {
	mustBody("For", "body", body == nil)
	if nothingToDo(n, opts) {
		return
	}
	s, d := callerSeat(opts)
	from := 0
	if d {
		if _, from = direct(s, n, body, eachWhole, none{}, nil); from == n {
			return
		}
	}
	loopOn(s, "For", from, n, &job[none]{each: body}, opts)
}

// loopOn runs a loop's job b over [from, n) through route, made from seat s
// (callerSeat's), after its verb ran [0, from) (direct). For, ForRange and
// Map each call direct themselves: one function doing both for the three
// cost a nested For of 8 items 33 more instructions (339 against 372).
func loopOn(s *slot, verb string, from, n int, b *job[none], opts []Option) {
	sp, _ := makeSpec(verb, loopOptions, opts, n)
	if n > 0 {
		sp.seat, sp.looked, sp.from = s, true, from
		run(&sp, b, n)
	}
}

// ForRange calls body on disjoint pieces [lo, hi) that together cover
// [0, n), in parallel, so that body can run a tight loop with per-piece
// state in locals. A piece is about 2 µs of work at the measured cost (at
// least one index; the whole range at parallelism 1), so pieces grow in
// number with the work, not the workers: for state costly to make or merge
// (a map, say) use Fold. After a panic, other pieces stop at their next
// boundary. Otherwise as For.
func ForRange(n int, body func(lo, hi int), opts ...Option) {
	mustBody("ForRange", "body", body == nil)
	if nothingToDo(n, opts) {
		return
	}
	s, d := callerSeat(opts)
	from := 0
	if d {
		if _, from = direct(s, n, body, rangeWhole, none{}, nil); from == n {
			return
		}
	}
	loopOn(s, "ForRange", from, n, &job[none]{rng: body}, opts)
}

// Map returns out with out[i] = f(in[i]) for every i, computed in parallel.
// len(out) == len(in). Panics, Goexit and options are handled as in For.
func Map[T, U any](in []T, f func(T) U, opts ...Option) []U {
	mustBody("Map", "function", f == nil)
	out := make([]U, len(in))
	body := func(i int) { out[i] = f(in[i]) }
	s, d := callerSeat(opts)
	from := 0
	if d && len(in) != 0 {
		if _, from = direct(s, len(in), body, eachWhole, none{}, nil); from == len(in) {
			return out
		}
	}
	loopOn(s, "Map", from, len(in), &job[none]{each: body}, opts)
	return out
}

// ForErr calls body(ctx, i) for each i in [0, n) in parallel and returns
// the first error a body returns, which cancels the bodies' context and
// stops new iterations. ctx is looked at before each iteration: once it is
// done none starts, and ForErr returns ctx.Err() unless a body's error came
// first. It returns after every running body has returned, and panics if
// ctx is nil. A body's panic or Goexit cancels the bodies' context too.
// Otherwise as For.
func ForErr(ctx context.Context, n int, body func(ctx context.Context, i int) error, opts ...Option) error {
	if ctx == nil {
		panic("par: ForErr called with a nil context")
	}
	mustBody("ForErr", "body", body == nil)
	sp, _ := makeSpec("ForErr", loopOptions, opts, n)
	return forErr(&sp, ctx, n, body)
}

func forErr(sp *spec, ctx context.Context, n int, body func(ctx context.Context, i int) error) error {
	if err := ctx.Err(); err != nil || n <= 0 {
		return err
	}
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if _, _, err := run(sp, &job[none]{eachErr: body, ctx: cctx, cancel: cancel}, n); err != nil {
		return err
	}
	return ctx.Err() // stopped by ctx: some iterations may not have run
}

// MapErr is Map with a context and errors, with the semantics of ForErr.
// On error it returns nil and the first error.
func MapErr[T, U any](ctx context.Context, in []T, f func(context.Context, T) (U, error), opts ...Option) ([]U, error) {
	if ctx == nil {
		panic("par: MapErr called with a nil context")
	}
	mustBody("MapErr", "function", f == nil)
	sp, _ := makeSpec("MapErr", loopOptions, opts, len(in))
	out := make([]U, len(in))
	err := forErr(&sp, ctx, len(in), func(ctx context.Context, i int) error {
		v, err := f(ctx, in[i])
		out[i] = v
		return err
	})
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
// combine must be associative, not necessarily commutative; identity is
// applied once, on the left. Floating-point addition is associative only up
// to rounding, so the last bits depend on the split; Deterministic() makes
// them the same on every run and pool size. Panics as in For.
func Reduce[T any](in []T, identity T, combine func(a, b T) T, opts ...Option) T {
	mustBody("Reduce", "combine function", combine == nil)
	leaf := func(lo, hi int) T { // a piece folds from its first element
		acc := in[lo]
		for _, x := range in[lo+1 : hi] {
			acc = combine(acc, x)
		}
		return acc
	}
	return reduce("Reduce", len(in), identity, leaf, combine, opts)
}

// ReduceRange folds [0, n) in parallel, a piece at a time: leaf(lo, hi)
// returns the fold of [lo, hi) (a partial sum in a tight loop, say), and
// combine joins adjacent pieces' results in index order. It returns
//
//	combine(identity, combine(...combine(leaf(p0), leaf(p1))..., leaf(pk)))
//
// for pieces p0, ..., pk (as in ForRange) that cover [0, n) in order, or
// identity when n <= 0: for an associative combine with identity its
// identity, and a leaf that folds its piece with combine, the sequential
// left fold. Deterministic() makes the pieces depend on n alone. Panics as
// in For.
func ReduceRange[T any](n int, identity T, leaf func(lo, hi int) T, combine func(a, b T) T, opts ...Option) T {
	mustBody("ReduceRange", "leaf function", leaf == nil)
	mustBody("ReduceRange", "combine function", combine == nil)
	if nothingToDo(n, opts) {
		return identity
	}
	return reduce("ReduceRange", n, identity, leaf, combine, opts)
}

func reduce[T any](verb string, n int, identity T, leaf func(lo, hi int) T, combine func(a, b T) T, opts []Option) T {
	s, d := callerSeat(opts)
	var head T
	from := 0
	if d && n > 0 {
		if head, from = direct(s, n, leaf, leafWhole[T], identity, combine); from == n {
			return head
		}
	}
	return reduceOn(s, verb, from, n, head, identity, leaf, combine, opts)
}

// reduceOn runs a reduction through route, made from seat s (callerSeat's),
// after its verb folded [0, from) into head (direct).
func reduceOn[T any](s *slot, verb string, from, n int, head, identity T, leaf func(lo, hi int) T, combine func(a, b T) T, opts []Option) T {
	sp, deterministic := makeSpec(verb, reduceOptions, opts, n)
	if n <= 0 {
		return identity
	}
	sp.seat, sp.looked, sp.from = s, true, from
	if deterministic {
		return reduceDeterministic(&sp, n, identity, leaf, combine)
	}
	return reduceJob(&sp, n, head, identity, &job[T]{leaf: leaf, combine: combine})
}

// reduceJob runs a reduction's job b over [sp.from, n), n > 0, folds head
// (the fold of [0, sp.from)) on its left, and applies identity on the left.
func reduceJob[T any](sp *spec, n int, head, identity T, b *job[T]) T {
	acc, have, _ := run(sp, b, n)
	if sp.from > 0 {
		acc, have = fold(b, head, true, acc, have)
	}
	if !have {
		return identity
	}
	out, pe := catchCombine(b.combine, identity, acc)
	if pe != nil {
		panic(pe)
	}
	return out
}

// Invoke runs every fn in parallel and returns when all have returned:
// every fn runs, even after another panicked or called runtime.Goexit. The
// first panic in the order of fns is then re-raised as a *PanicError naming
// the function's index; a Goexit in any ends the caller's goroutine. It
// takes the On option only.
func Invoke(fns []func(), opts ...Option) {
	for _, fn := range fns {
		mustBody("Invoke", "function", fn == nil)
	}
	sp, _ := makeSpec("Invoke", forkOptions, opts, len(fns))
	switch len(fns) {
	case 0:
		return
	case 1:
		invokeSpan(fnSpan{fns: fns})
		return
	case 2: // a Join: its functions are numbered 0 and 1 already
		f := fns[0]
		forkCall(&sp, func() none { f(); return none{} }, callFunc, nil, fns[1])
		return
	}
	mid := len(fns) / 2
	forkCall(&sp, func() none { return invokeSpan(fnSpan{fns[:mid], 0}) }, invokeSpan, nil, fnSpan{fns[mid:], mid})
}

// Join runs f and g in parallel and returns when both have returned:
// Invoke for two functions, cheaper (only g's closure is allocated). It
// takes the On option only.
func Join(f, g func(), opts ...Option) {
	mustBody("Join", "function", f == nil || g == nil)
	sp, _ := makeSpec("Join", forkOptions, opts, 2)
	forkCall(&sp, func() none { f(); return none{} }, callFunc, nil, g)
}

// Both runs f and g in parallel and returns their results: Join for
// functions with results, as cheap. Panics as in Join. It takes the On
// option only.
func Both[A, B any](f func() A, g func() B, opts ...Option) (A, B) {
	mustBody("Both", "function", f == nil || g == nil)
	sp, _ := makeSpec("Both", forkOptions, opts, 2)
	return forkCall[func() B, A, B](&sp, f, nil, nil, g)
}

// BothOf runs f(x) and g(y) in parallel and returns their results: Both
// without closures. A recursive fib or tree walk written as
//
//	a, b := par.BothOf(fib, n-1, fib, n-2)
//	l, r := par.BothOf(walk, node.Left, walk, node.Right)
//
// allocates nothing, whatever the types of x and y. It takes the On option
// only.
func BothOf[X, Y, A, B any](f func(X) A, x X, g func(Y) B, y Y, opts ...Option) (A, B) {
	mustBody("BothOf", "function", f == nil || g == nil)
	sp := spec{verb: "BothOf"}
	if len(opts) != 0 {
		sp, _ = makeSpec("BothOf", forkOptions, opts, 2)
	}
	return forkCall(&sp, func() A { return f(x) }, g, nil, y)
}

// JoinOf runs f(x) and g(y) in parallel and returns when both have
// returned: BothOf for functions without results, as cheap. A recursion
// over a slice,
//
//	par.JoinOf(sortHalf, a[:mid], sortHalf, a[mid:])
//
// allocates nothing. It takes the On option only.
func JoinOf[X, Y any](f func(X), x X, g func(Y), y Y, opts ...Option) {
	mustBody("JoinOf", "function", f == nil || g == nil)
	sp := spec{verb: "JoinOf"}
	if len(opts) != 0 {
		sp, _ = makeSpec("JoinOf", forkOptions, opts, 2)
	}
	forkCall[Y, none, none](&sp, func() none { f(x); return none{} }, nil, g, y)
}

// forkCall runs a fork on the seat enter finds, or serially without one.
// Not through route, which would cost a fifth of the fast path (DESIGN.md).
func forkCall[Y, A, B any](sp *spec, f func() A, g func(Y) B, gv func(Y), y Y) (A, B) {
	s, guest, _ := enter(sp.pool, seatOf(platform.GoroutineKey()))
	switch {
	case s == nil:
		return serialFork(f, g, gv, y)
	case guest:
		return forkAsGuest(sp, s, f, g, gv, y)
	default:
		return fork(s, f, g, gv, y) // the nested fast path: no defer here
	}
}

// forkAsGuest is a fork from outside the pool, the root of a call tree:
// while tracing, one trace task for the whole tree (internal/tracing).
func forkAsGuest[Y, A, B any](sp *spec, s *slot, f func() A, g func(Y) B, gv func(Y), y Y) (a A, b B) {
	defer releaseGuest(s, platform.Ticks())
	if trace.IsEnabled() {
		tracing.Fork(s.tree, sp.verb, max(sp.n, 2), func() { a, b = fork(s, f, g, gv, y) })
		return a, b
	}
	return fork(s, f, g, gv, y)
}

// Deterministic reduction: the input is cut into blocks whose size depends
// only on its length, each folded by the leaf in parallel, and the block
// results are combined pairwise along a fixed balanced tree. No step
// depends on timing or the number of workers, so floating-point sums are
// bitwise reproducible, for one slice of block results.

const (
	detMinBlock  = 1024 // elements per block at least
	detMaxBlocks = 4096 // blocks at most
)

func reduceDeterministic[T any](sp *spec, n int, identity T, leaf func(lo, hi int) T, combine func(a, b T) T) T {
	block := max(detMinBlock, (n-1)/detMaxBlocks+1) // rounds up, safe near math.MaxInt
	nb := (n-1)/block + 1
	parts := make([]T, nb)
	blocks := spec{verb: sp.verb, pool: sp.pool, grain: (sp.grain + block - 1) / block} // Grain, in blocks
	run(&blocks, &job[none]{rng: func(lo, hi int) {
		for b := lo; b < hi; b++ {
			start, end := b*block, n
			if block < n-start {
				end = start + block
			}
			parts[b] = leaf(start, end)
			if sp.progress != nil {
				sp.progress.Add(int64(end - start))
			}
		}
	}}, nb)
	out, pe := catchCombine(func(T, T) T { return combine(identity, combineTree(parts, combine)) }, identity, identity)
	if pe != nil {
		panic(pe)
	}
	return out
}

// combineTree combines parts (non-empty) pairwise along the balanced tree
// that splits at len/2, keeping index order.
func combineTree[T any](parts []T, combine func(a, b T) T) T {
	if len(parts) == 1 {
		return parts[0]
	}
	mid := len(parts) / 2
	return combine(combineTree(parts[:mid], combine), combineTree(parts[mid:], combine))
}

// Fold runs body over disjoint pieces [lo, hi) that together cover [0, n),
// in parallel, handing each piece the accumulator of the worker running it,
// made by init the first time that worker runs a piece of this call: at
// most one per worker and one for the caller, however many pieces. Fold
// then merges them with merge and returns the result; with n <= 0, init().
//
// Pieces reach workers in no particular order, so merge must be associative
// and commutative (adding counts, merging maps of counts), and the result
// must not depend on which worker folded which piece. For an ordered fold
// use ReduceRange. Panics as in For. It takes the On, Grain, Track and
// Weighted options.
func Fold[L any](n int, init func() L, body func(acc *L, lo, hi int), merge func(a, b L) L, opts ...Option) L {
	mustBody("Fold", "init function", init == nil)
	mustBody("Fold", "body", body == nil)
	mustBody("Fold", "merge function", merge == nil)
	sp, _ := makeSpec("Fold", foldOptions, opts, n)
	if n <= 0 {
		return init()
	}
	p := poolOf(sp.pool)
	p.init()
	p.ensureStarted() // size the table by the workers the call will have
	// The accumulators and their protocol: par/internal/locals.
	tab := locals.New(len(p.layout.Load().workers), init)
	run(&sp, &job[none]{rng: func(lo, hi int) {
		// The piece's cell: its worker's, by id, or the caller's. A worker
		// of another pool is this call's caller. (Written out here, not
		// as a function, which would be too large to inline.)
		i := locals.Caller
		if s := lookupWorker(platform.GoroutineKey()); s != nil && s.pool == p {
			i = int(s.id)
		}
		cell := tab.Cell(i)
		body(&cell.Acc, lo, hi)
		cell.Release()
	}}, n)
	return tab.Merge(merge)
}
