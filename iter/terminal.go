package iter

import (
	"cmp"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/parloop/parloop/par"
)

// start checks p and begins a run.
func (p *Pipe[T]) start() *state {
	if p.item == nil && p.pull == nil {
		panic("iter: zero Pipe (make one with Slice, Range, From, From2, Chan or Lines)")
	}
	return newState(&p.o, p.n)
}

// indexed reports whether p runs as one par.ForRange over its index range
// (an indexed source with no Limit on it or on a stage).
func (p *Pipe[T]) indexed() bool {
	return p.item != nil && p.o.limit == 0 && p.o.blocking == 0
}

// each runs p and sends every result into a sink made by mk: for an indexed
// run, one per set of stages bound to a sink (kept in a sync.Pool and reused
// by later pieces, since par.ForRange calls its body for every piece and
// pieces of cheap items are many), or one per runner (streaming). The sinks
// of one run are called concurrently, each by one goroutine at a time;
// each returns false to stop its piece.
func (p Pipe[T]) each(st *state, mk func() func(T) bool) {
	if p.indexed() {
		type bound struct{ f func(i int) bool }
		chains := sync.Pool{New: func() any { return &bound{p.item(st, mk())} }}
		par.ForRange(p.n, func(lo, hi int) {
			if st.stopped() {
				return
			}
			c := chains.Get().(*bound)
			for i := lo; i < hi && !st.stopped() && c.f(i); i++ {
			}
			chains.Put(c)
		}, p.o.parOpts()...)
		return
	}
	p.stream(st, p.o.runners(), func(int) func(T) bool { return mk() }, nil)
}

// ForEach calls f for every result of p, concurrently and in no particular
// order, and returns the pipeline's error.
func (p Pipe[T]) ForEach(f func(T)) (err error) {
	if f == nil {
		panic("iter: ForEach with nil f")
	}
	st := p.start()
	defer func() { err = st.finish() }()
	if p.chunked() {
		leaves := sync.Pool{New: func() any {
			return p.leaf(st, func(vs []T) {
				for _, v := range vs {
					f(v)
				}
			})
		}}
		par.ForRange(p.n, func(lo, hi int) {
			lf := leaves.Get().(*leaf)
			lf.run(lo, hi)
			leaves.Put(lf)
		}, p.o.parOpts()...)
		return nil
	}
	p.each(st, func() func(T) bool {
		return func(v T) bool { f(v); return true }
	})
	return nil
}

// chunked reports whether p runs as one par.ForRange whose pieces are run
// chunk by chunk (see Pipe.chunk): an indexed run whose stages are all
// Filter and Map.
func (p *Pipe[T]) chunked() bool { return p.indexed() && p.chunk != nil }

// leaf is the stages of a chunked run bound to a sink of their results
// (see Pipe.leaf). Binding makes the stages' buffers, so a run keeps its
// leaves for later pieces (in a sync.Pool, or in an accumulator): one
// goroutine runs a leaf at a time.
type leaf struct{ run func(lo, hi int) }

// leaf returns a leaf whose run(lo, hi) runs source indices [lo, hi)
// through the stages, chunkLen at a time, and hands each chunk's results
// to sink, until the run stops. sink must not keep the slice.
func (p *Pipe[T]) leaf(st *state, sink func([]T)) *leaf {
	chunk := p.chunk(st)
	return stepLeaf(st, func(lo, hi int) { sink(chunk(lo, hi)) })
}

// stepLeaf returns a leaf whose run(lo, hi) calls step on [lo, hi) chunkLen
// indices at a time, until the run stops.
func stepLeaf(st *state, step func(lo, hi int)) *leaf {
	done := st.ctx.Done()
	return &leaf{func(lo, hi int) {
		for lo < hi && !st.stopped() {
			// The parent context's cancellation sets stop from a
			// goroutine of its own, which may wait for a thread while
			// the workers run: its Done channel, closed at once, ends
			// the run a chunk later.
			select {
			case <-done:
				return
			default:
			}
			end := min(hi, lo+chunkLen)
			step(lo, end)
			lo = end
		}
	}}
}

// Fold folds the results of p into accumulators, one per worker (made by init
// the first time that worker has a result, and passed to step by pointer),
// and merges them with merge at the end. merge must be associative and
// commutative: results reach the workers in no particular order. With no
// results, Fold returns init(). On error it returns the zero A.
func Fold[T, A any](p Pipe[T], init func() A, step func(acc *A, v T), merge func(a, b A) A) (acc A, err error) {
	if init == nil || step == nil || merge == nil {
		panic("iter: Fold with nil init, step or merge")
	}
	return fold(p, init, step, func(acc *A, vs []T) {
		for _, v := range vs {
			step(acc, v)
		}
	}, merge)
}

// fold is Fold, with steps, which folds a chunk of results into an
// accumulator (for a chunked run): a reduction whose step is known (Sum,
// Count, Reduce) gives one that makes no call an item, or one fewer.
func fold[T, A any](p Pipe[T], init func() A, step func(acc *A, v T), steps func(acc *A, vs []T), merge func(a, b A) A) (acc A, err error) {
	st := p.start()
	defer func() {
		if err = st.finish(); err != nil {
			var zero A
			acc = zero
		}
	}()
	if p.chunked() {
		// As below, a leaf bound once per accumulator.
		type foldAcc struct {
			a    A
			leaf *leaf
		}
		w := par.Fold(p.n, func() *foldAcc {
			fa := &foldAcc{a: init()}
			fa.leaf = p.leaf(st, func(vs []T) { steps(&fa.a, vs) })
			return fa
		}, func(acc **foldAcc, lo, hi int) {
			(*acc).leaf.run(lo, hi)
		}, func(x, y *foldAcc) *foldAcc {
			x.a = merge(x.a, y.a)
			return x
		}, p.o.parOpts()...)
		return w.a, nil
	}
	if p.indexed() {
		// The stages are bound once per accumulator (per worker), not
		// once per piece: par.Fold calls the leaf for every piece, and
		// pieces of cheap items are many. A foldAcc is reached only from
		// its accumulator, which par.Fold hands to one worker at a time.
		type foldAcc struct {
			a A
			f func(i int) bool
		}
		w := par.Fold(p.n, func() *foldAcc {
			fa := &foldAcc{a: init()}
			fa.f = p.item(st, func(v T) bool { step(&fa.a, v); return true })
			return fa
		}, func(acc **foldAcc, lo, hi int) {
			f := (*acc).f
			for i := lo; i < hi && !st.stopped() && f(i); i++ {
			}
		}, func(x, y *foldAcc) *foldAcc {
			x.a = merge(x.a, y.a)
			return x
		}, p.o.parOpts()...)
		return w.a, nil
	}
	// Runner w alone touches accs[w] while the run goes on.
	nr := p.o.runners()
	accs := make([]*A, nr)
	p.stream(st, nr, func(w int) func(T) bool {
		return func(v T) bool {
			if accs[w] == nil {
				a := init()
				accs[w] = &a
			}
			step(accs[w], v)
			return true
		}
	}, nil)
	var out *A
	for _, a := range accs {
		if a == nil {
			continue
		}
		if out == nil {
			out = a
		} else {
			*out = merge(*out, *a)
		}
	}
	if out == nil {
		return init(), nil
	}
	return *out, nil
}

// Reduce combines the results of p with combine, starting each worker's
// accumulator at identity, and returns identity if there are none. combine
// must be associative and commutative, and identity its identity element.
func (p Pipe[T]) Reduce(identity T, combine func(a, b T) T) (T, error) {
	if combine == nil {
		panic("iter: Reduce with nil combine")
	}
	if p.chunked() && p.reduce != nil {
		return p.reduceChunks(identity, combine)
	}
	return fold(p, func() T { return identity },
		func(acc *T, v T) { *acc = combine(*acc, v) },
		func(acc *T, vs []T) {
			a := *acc
			for _, v := range vs {
				a = combine(a, v)
			}
			*acc = a
		}, combine)
}

// reduceChunks is Reduce over a chunked run whose last stage is a Map: the
// Map folds its results into the accumulator as it makes them (see
// Pipe.reduce), in one accumulator per worker, bound once (as Fold's).
func (p Pipe[T]) reduceChunks(identity T, combine func(a, b T) T) (acc T, err error) {
	st := p.start()
	defer func() {
		if err = st.finish(); err != nil {
			var zero T
			acc = zero
		}
	}()
	type reduceAcc struct {
		a    T
		leaf *leaf
	}
	w := par.Fold(p.n, func() *reduceAcc {
		ra, red := &reduceAcc{a: identity}, p.reduce(st)
		ra.leaf = stepLeaf(st, func(lo, hi int) { ra.a = red(lo, hi, ra.a, combine) })
		return ra
	}, func(acc **reduceAcc, lo, hi int) {
		(*acc).leaf.run(lo, hi)
	}, func(x, y *reduceAcc) *reduceAcc {
		x.a = combine(x.a, y.a)
		return x
	}, p.o.parOpts()...)
	return w.a, nil
}

// Count returns the number of results of p.
func (p Pipe[T]) Count() (int, error) {
	return fold(p, func() int { return 0 }, func(acc *int, _ T) { *acc++ },
		func(acc *int, vs []T) { *acc += len(vs) },
		func(a, b int) int { return a + b })
}

// Number is the constraint of Sum: the integer and floating-point types.
type Number interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64 |
		~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uintptr |
		~float32 | ~float64
}

// Sum returns the sum of the results of p (0 if none). A floating-point sum
// is grouped as the work was split, so its last bits may vary between runs.
func Sum[T Number](p Pipe[T]) (T, error) {
	return fold(p, func() T { return 0 }, func(acc *T, v T) { *acc += v },
		func(acc *T, vs []T) {
			a := *acc
			for _, v := range vs {
				a += v
			}
			*acc = a
		},
		func(a, b T) T { return a + b })
}

type extreme[T any] struct {
	v  T
	ok bool
}

func pick[T cmp.Ordered](p Pipe[T], better func(a, b T) bool) (T, bool, error) {
	e, err := Fold(p, func() extreme[T] { return extreme[T]{} },
		func(acc *extreme[T], v T) {
			if !acc.ok || better(v, acc.v) {
				*acc = extreme[T]{v, true}
			}
		},
		func(a, b extreme[T]) extreme[T] {
			if !a.ok || (b.ok && better(b.v, a.v)) {
				return b
			}
			return a
		})
	return e.v, e.ok, err
}

// Min returns the smallest result of p, and false if there is none.
func Min[T cmp.Ordered](p Pipe[T]) (T, bool, error) {
	return pick(p, func(a, b T) bool { return cmp.Less(a, b) })
}

// Max returns the largest result of p, and false if there is none.
func Max[T cmp.Ordered](p Pipe[T]) (T, bool, error) {
	return pick(p, func(a, b T) bool { return cmp.Less(b, a) })
}

// Collect returns the results of p in a slice, in input order unless p is
// Unordered. On error it returns nil.
func (p Pipe[T]) Collect() (out []T, err error) {
	st := p.start()
	defer func() {
		if err = st.finish(); err != nil {
			out = nil
		}
	}()
	if p.indexed() {
		// Pieces are disjoint and cover [0, n): sorting them by their
		// first index puts their results in input order.
		type piece struct {
			lo  int
			out []T
		}
		var mu sync.Mutex
		var pieces []piece
		// The stages are bound once per collector, which a sync.Pool
		// hands to one piece at a time (see each).
		type collector struct {
			buf  []T
			f    func(i int) bool // per item
			leaf func(lo, hi int) // or chunked
		}
		collectors := sync.Pool{New: func() any {
			c := &collector{}
			if p.chunked() {
				leaf := p.leaf(st, func(vs []T) { c.buf = append(c.buf, vs...) })
				c.leaf = leaf.run
			} else {
				c.f = p.item(st, func(v T) bool { c.buf = append(c.buf, v); return true })
			}
			return c
		}}
		par.ForRange(p.n, func(lo, hi int) {
			if st.stopped() {
				return
			}
			c := collectors.Get().(*collector)
			// One result an item, as Map gives, but a piece may be the
			// whole range (at parallelism 1, or a plain nested call), of
			// an integer range a filter or an error may cut short: size
			// the buffer for a grain, not for the piece.
			c.buf = make([]T, 0, min(hi-lo, 4096))
			if c.leaf != nil {
				c.leaf(lo, hi)
			} else {
				for i := lo; i < hi && !st.stopped() && c.f(i); i++ {
				}
			}
			buf := c.buf
			c.buf = nil
			collectors.Put(c)
			mu.Lock()
			pieces = append(pieces, piece{lo, buf})
			mu.Unlock()
		}, p.o.parOpts()...)
		slices.SortFunc(pieces, func(a, b piece) int { return cmp.Compare(a.lo, b.lo) })
		total := 0
		for _, pc := range pieces {
			total += len(pc.out)
		}
		out = make([]T, 0, total)
		for _, pc := range pieces {
			out = append(out, pc.out...)
		}
		return out, nil
	}
	p.stream(st, p.o.runners(), nil, func(b []T) bool { out = append(out, b...); return true })
	return out, nil
}

// All returns the results of p as an iterator, in input order unless p is
// Unordered, for a range-over-func loop. Each loop runs the pipeline anew.
// If the pipeline fails, the last pair has the zero T and the error. A
// break out of the loop stops the pipeline, and the loop ends only when
// every goroutine the pipeline started has stopped.
func (p Pipe[T]) All() Seq2[T, error] {
	return func(yield func(T, error) bool) {
		st := p.start()
		defer st.finish() // after a panic or Goexit in a stage or the loop body
		broke := false
		p.stream(st, p.o.runners(), nil, func(b []T) bool {
			for _, v := range b {
				if !yield(v, nil) {
					broke = true
					return false
				}
			}
			return true
		})
		if err := st.finish(); err != nil && !broke {
			var zero T
			yield(zero, err)
		}
	}
}

// Values returns the results of p as an iter.Seq, as All does, for a loop
// that needs no error in each step: if the pipeline fails, the loop ends
// early and the error is stored in *err (which is otherwise left as it
// was), as bufio.Scanner's Err reports after its loop. It panics if err is
// nil.
func (p Pipe[T]) Values(err *error) Seq[T] {
	if err == nil {
		panic("iter: Values with nil err")
	}
	return func(yield func(T) bool) {
		for v, e := range p.All() {
			if e != nil {
				*err = e
				return
			}
			if !yield(v) {
				return
			}
		}
	}
}

// Find returns the first result of p in input order that satisfies pred,
// and false if none does. Items after a match stop being evaluated.
func (p Pipe[T]) Find(pred func(T) bool) (v T, found bool, err error) {
	if pred == nil {
		panic("iter: Find with nil pred")
	}
	q := p.Filter(pred)
	q.o.unordered = false
	st := q.start()
	defer func() {
		if err = st.finish(); err != nil {
			var zero T
			v, found = zero, false
		}
	}()
	if q.indexed() {
		// best is the smallest index with a match so far: pieces past it
		// stop, and only a smaller index may replace it.
		var best atomic.Int64
		best.Store(int64(q.n))
		var mu sync.Mutex
		par.ForRange(q.n, func(lo, hi int) {
			cur := lo
			f := q.item(st, func(x T) bool {
				mu.Lock()
				if int64(cur) < best.Load() {
					best.Store(int64(cur))
					v, found = x, true
				}
				mu.Unlock()
				return false
			})
			for i := lo; i < hi && int64(i) < best.Load() && !st.stopped(); i++ {
				cur = i
				if !f(i) {
					break
				}
			}
		}, q.o.parOpts()...)
		return v, found, nil
	}
	q.stream(st, q.o.runners(), nil, func(b []T) bool {
		if len(b) > 0 {
			v, found = b[0], true
			return false
		}
		return true
	})
	return v, found, nil
}

// FindAny returns some result of p that satisfies pred, not necessarily the
// first, and false if none does. The first match found stops the pipeline.
func (p Pipe[T]) FindAny(pred func(T) bool) (v T, found bool, err error) {
	if pred == nil {
		panic("iter: FindAny with nil pred")
	}
	q := p.Filter(pred)
	st := q.start()
	defer func() {
		if err = st.finish(); err != nil {
			var zero T
			v, found = zero, false
		}
	}()
	var mu sync.Mutex
	q.each(st, func() func(T) bool {
		return func(x T) bool {
			mu.Lock()
			if !found {
				v, found = x, true
			}
			mu.Unlock()
			st.halt()
			return false
		}
	})
	return v, found, nil
}

// Any reports whether some result of p satisfies pred, stopping at the first
// that does.
func (p Pipe[T]) Any(pred func(T) bool) (bool, error) {
	if pred == nil {
		panic("iter: Any with nil pred")
	}
	_, found, err := p.FindAny(pred)
	return found, err
}

// Every reports whether every result of p satisfies pred, stopping at the
// first that does not.
func (p Pipe[T]) Every(pred func(T) bool) (bool, error) {
	if pred == nil {
		panic("iter: Every with nil pred")
	}
	_, found, err := p.FindAny(func(v T) bool { return !pred(v) })
	return !found && err == nil, err
}
