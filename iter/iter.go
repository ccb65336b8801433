package iter

import (
	"bufio"
	"context"
	stditer "iter"

	"github.com/parloop/parloop/par"
)

// Seq is the standard iter.Seq, so that a file importing this package needs
// no second import named iter.
type Seq[V any] = stditer.Seq[V]

// Seq2 is the standard iter.Seq2.
type Seq2[K, V any] = stditer.Seq2[K, V]

// Pair is one element of an iter.Seq2 source (From2).
type Pair[K, V any] struct {
	Key K
	Val V
}

// Pipe is a pipeline whose results are of type T: a source and the stages
// applied to it so far. It is a value that describes the work; nothing runs
// until a terminal (ForEach, Collect, All, ...) is called, and each terminal
// call runs the whole pipeline once. A source that can be read only once (a
// channel, a Scanner, a one-shot Seq) gives its items to the first run.
type Pipe[T any] struct {
	o options
	// n is the length of an indexed source, or -1 for a streaming one.
	n int
	// item (indexed sources) returns the function that runs source index i
	// through the stages into down; it reports false once the pipeline or
	// down asked to stop.
	item func(st *state, down func(T) bool) func(i int) bool
	// chunk (an indexed source whose stages are all Filter and Map, none
	// given Limit; nil otherwise) returns the function that runs the
	// source indices [lo, hi), at most chunkLen of them, through the
	// stages and returns their results, stage by stage over the whole
	// chunk: one call of a stage's function an item, and none of the
	// plumbing between stages. The slice holds the results until the next
	// call, and must not be written to. Each goroutine that runs pieces
	// binds its own (the stages' buffers are in it).
	chunk func(st *state) func(lo, hi int) []T
	// filtered (a chunked pipeline whose last stage is a Filter; nil
	// otherwise) is that Filter's input and predicate, so that a Map after
	// it runs both in one loop over a chunk.
	filtered *filtered[T]
	// reduce (a chunked pipeline whose last stage is a Map; nil otherwise)
	// returns the function that runs the source indices [lo, hi), at most
	// chunkLen of them, through the stages and folds the results into acc
	// with combine, in the Map's loop: Reduce's leaf, with no buffer
	// between the last stages and the reduction.
	reduce func(st *state) func(lo, hi int, acc T, combine func(a, b T) T) T
	// pull (streaming sources) produces the source's items in batches, with
	// the size size() returns, until yield returns false or the source ends,
	// and returns the source's error. It runs on one goroutine.
	pull func(st *state, size func() int, yield func(batch[T]) bool) error
}

// batch is a run of consecutive source items, with the stages bound to it.
// done, if not nil, is called once the batch's items have all been run
// (or the run stopped): its source may reuse their buffer.
type batch[T any] struct {
	n    int
	bind func(st *state, down func(T) bool) func(j int) bool
	done func()
}

// buffers is a free list of item slices for one run: a batch's inputs go
// back to it once a runner has run them, and the source takes its next
// buffer from it, so a long stream reuses a bounded set of buffers
// instead of allocating one a batch. The channel is its only shared state.
type buffers[T any] struct{ free chan []T }

// maxFree bounds the slices a free list keeps.
const maxFree = 64

func newBuffers[T any]() *buffers[T] { return &buffers[T]{free: make(chan []T, maxFree)} }

// get returns an empty slice with room for n items.
func (b *buffers[T]) get(n int) []T {
	select {
	case s := <-b.free:
		if cap(s) >= n {
			return s[:0]
		}
	default:
	}
	return make([]T, 0, n)
}

// put gives s back, cleared so that it holds on to nothing.
func (b *buffers[T]) put(s []T) {
	clear(s)
	select {
	case b.free <- s:
	default:
	}
}

// Option configures a pipeline; pass options to its source.
type Option struct{ apply func(*options) }

type options struct {
	unordered bool
	window    int // batches in flight; 0: 8 per runner
	batch     int // fixed batch size; 0: adaptive
	limit     int // blocking runners; 0: CPU-bound, one runner per worker
	blocking  int // the sum of the stages' Limits
	ctx       context.Context
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

// Slice returns a pipeline over the elements of s, in order. It is indexed:
// it splits on the pool like par.ForRange. s must not change while the
// pipeline runs.
func Slice[T any](s []T, opts ...Option) Pipe[T] {
	return Pipe[T]{o: makeOptions(opts), n: len(s),
		item: func(_ *state, down func(T) bool) func(int) bool {
			return func(i int) bool { return down(s[i]) }
		},
		chunk: func(*state) func(lo, hi int) []T {
			return func(lo, hi int) []T { return s[lo:hi:hi] }
		}}
}

// Range returns a pipeline over the integers 0, 1, ..., n-1 (none if n <= 0).
// It is indexed, like Slice.
func Range(n int, opts ...Option) Pipe[int] {
	return Pipe[int]{o: makeOptions(opts), n: max(n, 0),
		item: func(_ *state, down func(int) bool) func(int) bool { return down },
		chunk: func(*state) func(lo, hi int) []int {
			buf := make([]int, chunkLen)
			return func(lo, hi int) []int {
				b := buf[:hi-lo]
				for i := range b {
					b[i] = lo + i
				}
				return b
			}
		}}
}

// filtered is the last stage of a chunked pipeline that is a Filter: its
// input's chunks and its predicate.
type filtered[T any] struct {
	in   func(st *state) func(lo, hi int) []T
	keep func(T) bool
}

// chunkLen is the most items a chunk of an indexed pipeline holds (see
// Pipe.chunk): enough that a stage's loop over it costs far more than
// the call that starts it, few enough that its buffers stay in cache.
const chunkLen = 256

// From returns a pipeline over the values of seq. seq is iterated once, on one
// goroutine the pipeline starts, and is pulled in batches.
func From[T any](seq Seq[T], opts ...Option) Pipe[T] {
	if seq == nil {
		panic("iter: From with nil seq")
	}
	return Pipe[T]{o: makeOptions(opts), n: -1,
		pull: func(st *state, size func() int, yield func(batch[T]) bool) error {
			bufs := newBuffers[T]()
			buf := bufs.get(size())
			for v := range seq {
				buf = append(buf, v)
				if len(buf) == cap(buf) {
					if !yield(sliceBatch(bufs, buf)) {
						return nil
					}
					buf = bufs.get(size())
				}
			}
			if len(buf) > 0 {
				yield(sliceBatch(bufs, buf))
			}
			return nil
		}}
}

// From2 returns a pipeline over the pairs of seq (maps.All(m), say), as From.
func From2[K, V any](seq Seq2[K, V], opts ...Option) Pipe[Pair[K, V]] {
	if seq == nil {
		panic("iter: From2 with nil seq")
	}
	return From(func(yield func(Pair[K, V]) bool) {
		for k, v := range seq {
			if !yield(Pair[K, V]{k, v}) {
				return
			}
		}
	}, opts...)
}

// Chan returns a pipeline over the values received from c until it is
// closed. A batch is handed on as soon as c has nothing ready, so a slow
// channel does not delay its items. A pipeline that stops early (an error,
// a Find, a break) leaves the rest of c unread: its sender must not block
// forever on a send.
func Chan[T any](c <-chan T, opts ...Option) Pipe[T] {
	if c == nil {
		panic("iter: Chan with nil channel")
	}
	return Pipe[T]{o: makeOptions(opts), n: -1,
		pull: func(st *state, size func() int, yield func(batch[T]) bool) error {
			for {
				var v T
				var ok bool
				select {
				case v, ok = <-c:
				case <-st.ctx.Done():
					return nil
				}
				if !ok {
					return nil
				}
				buf := make([]T, 1, size())
				buf[0] = v
			fill:
				for len(buf) < cap(buf) {
					select {
					case v, ok = <-c:
						if !ok {
							break fill
						}
						buf = append(buf, v)
					default:
						break fill
					}
				}
				if !yield(sliceBatch(nil, buf)) || !ok {
					return nil
				}
			}
		}}
}

// Lines returns a pipeline over the tokens of sc (lines, by default), and
// ends with sc.Err() as the pipeline's error if scanning fails.
func Lines(sc *bufio.Scanner, opts ...Option) Pipe[string] {
	if sc == nil {
		panic("iter: Lines with nil scanner")
	}
	p := From(func(yield func(string) bool) {
		for sc.Scan() {
			if !yield(sc.Text()) {
				return
			}
		}
	}, opts...)
	pull := p.pull
	p.pull = func(st *state, size func() int, yield func(batch[string]) bool) error {
		if err := pull(st, size, yield); err != nil {
			return err
		}
		return sc.Err()
	}
	return p
}

// sliceBatch is the batch of the items in buf, which goes back to bufs (if
// not nil) once they have been run.
func sliceBatch[T any](bufs *buffers[T], buf []T) batch[T] {
	b := batch[T]{n: len(buf), bind: func(_ *state, down func(T) bool) func(int) bool {
		return func(j int) bool { return down(buf[j]) }
	}}
	if bufs != nil {
		b.done = func() { bufs.put(buf) }
	}
	return b
}

// then returns p with one more stage: stage turns the sink of the stage's
// results into the sink of its inputs. It is built once per piece or batch,
// not per item.
func then[T, U any](p Pipe[T], stage func(st *state, down func(U) bool) func(T) bool) Pipe[U] {
	q := Pipe[U]{o: p.o, n: p.n}
	if item := p.item; item != nil {
		q.item = func(st *state, down func(U) bool) func(int) bool {
			return item(st, stage(st, down))
		}
	}
	if pull := p.pull; pull != nil {
		q.pull = func(st *state, size func() int, yield func(batch[U]) bool) error {
			return pull(st, size, func(b batch[T]) bool {
				bind := b.bind
				return yield(batch[U]{n: b.n, bind: func(st *state, down func(U) bool) func(int) bool {
					return bind(st, stage(st, down))
				}, done: b.done})
			})
		}
	}
	return q
}

// Map returns the pipeline of f(v) for every result v of p. It takes the
// Limit option, for an f that blocks.
func Map[T, U any](p Pipe[T], f func(T) U, opts ...Option) Pipe[U] {
	if f == nil {
		panic("iter: Map with nil f")
	}
	n, key := stageLimit("Map", opts), new(int)
	q := then(withLimit(p, n), func(st *state, down func(U) bool) func(T) bool {
		if n == 0 {
			return func(v T) bool { return down(f(v)) }
		}
		g := limited(st, key, n, f)
		return func(v T) bool {
			u, ok := g(v)
			return ok && down(u)
		}
	})
	if fl := p.filtered; fl != nil && n == 0 {
		// Filter, then Map: one loop, with no buffer between them.
		q.reduce = func(st *state) func(lo, hi int, acc U, combine func(a, b U) U) U {
			in, keep := fl.in(st), fl.keep
			return func(lo, hi int, acc U, combine func(a, b U) U) U {
				for _, v := range in(lo, hi) {
					if st.stopped() {
						break
					}
					if keep(v) {
						acc = combine(acc, f(v))
					}
				}
				return acc
			}
		}
		q.chunk = func(st *state) func(lo, hi int) []U {
			in, keep, buf := fl.in(st), fl.keep, make([]U, chunkLen)
			return func(lo, hi int) []U {
				vs := in(lo, hi)
				k := 0
				for _, v := range vs {
					if st.stopped() {
						break
					}
					if keep(v) {
						buf[k] = f(v)
						k++
					}
				}
				return buf[:k]
			}
		}
	} else if chunk := p.chunk; chunk != nil && n == 0 {
		q.reduce = func(st *state) func(lo, hi int, acc U, combine func(a, b U) U) U {
			in := chunk(st)
			return func(lo, hi int, acc U, combine func(a, b U) U) U {
				for _, v := range in(lo, hi) {
					if st.stopped() {
						break
					}
					acc = combine(acc, f(v))
				}
				return acc
			}
		}
		q.chunk = func(st *state) func(lo, hi int) []U {
			in, buf := chunk(st), make([]U, chunkLen)
			return func(lo, hi int) []U {
				vs := in(lo, hi)
				out := buf[:len(vs)]
				for i, v := range vs {
					if st.stopped() {
						return out[:i]
					}
					out[i] = f(v)
				}
				return out
			}
		}
	}
	return q
}

// MapErr is Map for a function that can fail: the first error stops the
// pipeline and is returned by its terminal. f gets the pipeline's context,
// cancelled once the pipeline stops. It takes the Limit option.
func MapErr[T, U any](p Pipe[T], f func(context.Context, T) (U, error), opts ...Option) Pipe[U] {
	if f == nil {
		panic("iter: MapErr with nil f")
	}
	n, key := stageLimit("MapErr", opts), new(int)
	type result struct {
		u   U
		err error
	}
	return then(withLimit(p, n), func(st *state, down func(U) bool) func(T) bool {
		g := limited(st, key, n, func(v T) result {
			u, err := f(st.ctx, v)
			return result{u, err}
		})
		return func(v T) bool {
			r, ok := g(v)
			if !ok {
				return false
			}
			u, err := r.u, r.err
			if err != nil {
				st.fail(err)
				return false
			}
			return down(u)
		}
	})
}

// Filter returns the pipeline of the results v of p for which keep(v). It
// takes the Limit option.
func (p Pipe[T]) Filter(keep func(T) bool, opts ...Option) Pipe[T] {
	if keep == nil {
		panic("iter: Filter with nil keep")
	}
	n, key := stageLimit("Filter", opts), new(int)
	q := then(withLimit(p, n), func(st *state, down func(T) bool) func(T) bool {
		if n == 0 {
			return func(v T) bool { return !keep(v) || down(v) }
		}
		g := limited(st, key, n, keep)
		return func(v T) bool {
			k, ok := g(v)
			return ok && (!k || down(v))
		}
	})
	if chunk := p.chunk; chunk != nil && n == 0 {
		q.chunk = func(st *state) func(lo, hi int) []T {
			in, buf := chunk(st), make([]T, chunkLen)
			return func(lo, hi int) []T {
				vs := in(lo, hi)
				out := buf[:len(vs)]
				k := 0
				for _, v := range vs {
					if st.stopped() {
						break
					}
					// Stored before the test, so that the loop
					// has no branch on keep's answer to mispredict.
					out[k] = v
					if keep(v) {
						k++
					}
				}
				return out[:k]
			}
		}
		q.filtered = &filtered[T]{chunk, keep}
	}
	return q
}

// FilterErr is Filter for a predicate that can fail, with the semantics of
// MapErr. It takes the Limit option.
func (p Pipe[T]) FilterErr(keep func(context.Context, T) (bool, error), opts ...Option) Pipe[T] {
	if keep == nil {
		panic("iter: FilterErr with nil keep")
	}
	n, key := stageLimit("FilterErr", opts), new(int)
	type result struct {
		ok  bool
		err error
	}
	return then(withLimit(p, n), func(st *state, down func(T) bool) func(T) bool {
		g := limited(st, key, n, func(v T) result {
			ok, err := keep(st.ctx, v)
			return result{ok, err}
		})
		return func(v T) bool {
			r, entered := g(v)
			if !entered {
				return false
			}
			ok, err := r.ok, r.err
			if err != nil {
				st.fail(err)
				return false
			}
			return !ok || down(v)
		}
	})
}

// FlatMap returns the pipeline of every value of f(v), for every result v of
// p, in order. It takes the Limit option: with Limit(n), at most n items are
// in f at once, an item keeping its place until its last value has been
// passed on to the next stages (so the values need not be buffered).
func FlatMap[T, U any](p Pipe[T], f func(T) Seq[U], opts ...Option) Pipe[U] {
	if f == nil {
		panic("iter: FlatMap with nil f")
	}
	n, key := stageLimit("FlatMap", opts), new(int)
	return then(withLimit(p, n), func(st *state, down func(U) bool) func(T) bool {
		g := limited(st, key, n, func(v T) bool {
			for u := range f(v) {
				if !down(u) {
					return false
				}
			}
			return true
		})
		return func(v T) bool {
			ok, entered := g(v)
			return entered && ok
		}
	})
}

// FlatMapErr is FlatMap for a function that can fail: f calls yield for each
// of its results (and stops if yield returns false), and returns an error
// with the semantics of MapErr. It takes the Limit option, as FlatMap.
func FlatMapErr[T, U any](p Pipe[T], f func(ctx context.Context, v T, yield func(U) bool) error, opts ...Option) Pipe[U] {
	if f == nil {
		panic("iter: FlatMapErr with nil f")
	}
	n, key := stageLimit("FlatMapErr", opts), new(int)
	return then(withLimit(p, n), func(st *state, down func(U) bool) func(T) bool {
		g := limited(st, key, n, func(v T) bool {
			ok := true
			err := f(st.ctx, v, func(u U) bool {
				ok = ok && down(u)
				return ok
			})
			if err != nil {
				st.fail(err)
				return false
			}
			return ok
		})
		return func(v T) bool {
			ok, entered := g(v)
			return entered && ok
		}
	})
}
