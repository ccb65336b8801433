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
		panic("iter: the zero Pipe has no source (make one with Slice, Range, From, From2, Chan or Lines)")
	}
	return newState(&p.o, p.n)
}

// indexed reports whether p runs as one par.ForRange over its index range
// (an indexed source with no Blocking on it or on a stage).
func (p *Pipe[T]) indexed() bool {
	return p.item != nil && p.o.onPool()
}

// chunked reports whether p's pieces run chunk by chunk (see Pipe.chunk):
// an indexed run whose stages are all Filter and Map.
func (p *Pipe[T]) chunked() bool { return p.indexed() && p.chunk != nil }

// bind returns run(lo, hi), which runs the source indices [lo, hi) of an
// indexed run through the stages until the run stops, and hands each
// result to one, or in a chunked run each chunk's results to many (if not
// nil; many must not keep the slice). Binding makes closures and the
// stages' buffers, so a run binds once per accumulator, or keeps what it
// bound for later pieces (reuse): par.ForRange calls its body for every
// piece, and pieces of cheap items are many. One goroutine runs a bound
// run at a time.
func (p *Pipe[T]) bind(st *state, one func(T) bool, many func([]T)) func(lo, hi int) {
	if p.chunked() {
		if many == nil {
			many = func(vs []T) {
				for _, v := range vs {
					if !one(v) {
						return
					}
				}
			}
		}
		chunk := p.chunk(st)
		return stepLeaf(st, func(lo, hi int) { many(chunk(lo, hi)) })
	}
	f := p.item(st, one)
	return func(lo, hi int) { runItems(st, f, lo, hi) }
}

// stepLeaf returns run(lo, hi), which calls step on [lo, hi) chunkLen
// indices at a time, until the run stops.
func stepLeaf(st *state, step func(lo, hi int)) func(lo, hi int) {
	return func(lo, hi int) {
		for lo < hi && !st.stopped() {
			end := min(hi, lo+chunkLen)
			step(lo, end)
			lo = end
		}
	}
}

// reuse keeps what a run bound (see bind) for its later pieces: a piece
// gets a value, runs, and puts it back.
type reuse[V any] struct{ pool sync.Pool }

func newReuse[V any](mk func() V) *reuse[V] {
	r := &reuse[V]{}
	r.pool.New = func() any { return mk() }
	return r
}

func (r *reuse[V]) get() V  { return r.pool.Get().(V) }
func (r *reuse[V]) put(v V) { r.pool.Put(v) }

// each runs p and sends every result into a sink made by mk: for an indexed
// run, one per bound run (see bind), or one per runner (streaming). The
// sinks of one run are called concurrently, each by one goroutine at a
// time; each returns false to stop its piece.
func (p Pipe[T]) each(st *state, mk func() func(T) bool) {
	if p.indexed() {
		runs := newReuse(func() func(lo, hi int) { return p.bind(st, mk(), nil) })
		par.ForRange(p.n, func(lo, hi int) {
			if st.stopped() {
				return // the rest of the range costs nothing
			}
			run := runs.get()
			run(lo, hi)
			runs.put(run)
		}, p.o.parOpts()...)
		return
	}
	p.stream(st, p.o.runners(), terminal[T]{sink: func(int) func(T) bool { return mk() }})
}

// ForEach calls f for every result of p, concurrently and in no particular
// order, and returns the pipeline's error.
func (p Pipe[T]) ForEach(f func(T)) (err error) {
	if f == nil {
		panic("iter: ForEach called with a nil f")
	}
	st := p.start()
	defer func() { err = st.finish() }()
	p.each(st, func() func(T) bool {
		return func(v T) bool { f(v); return true }
	})
	return nil
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
		// The stages are bound once per collector (see bind).
		type collector struct {
			buf []T
			run func(lo, hi int)
		}
		collectors := newReuse(func() *collector {
			c := &collector{}
			c.run = p.bind(st, func(v T) bool { c.buf = append(c.buf, v); return true },
				func(vs []T) { c.buf = append(c.buf, vs...) })
			return c
		})
		par.ForRange(p.n, func(lo, hi int) {
			if st.stopped() {
				return // the rest of the range costs nothing
			}
			c := collectors.get()
			// One result an item, as Map gives, but a piece may be the
			// whole range (at parallelism 1, or a plain nested call), of
			// an integer range a filter or an error may cut short: size
			// the buffer for a grain, not for the piece.
			c.buf = make([]T, 0, min(hi-lo, 4096))
			c.run(lo, hi)
			buf := c.buf
			c.buf = nil
			collectors.put(c)
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
	p.stream(st, p.o.runners(), terminal[T]{consume: func(j *job[T]) bool {
		out = append(out, j.out...)
		return true
	}})
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
		p.stream(st, p.o.runners(), terminal[T]{consume: func(j *job[T]) bool {
			for _, v := range j.out {
				if !yield(v, nil) {
					broke = true
					return false
				}
			}
			return true
		}})
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
		panic("iter: Values called with a nil err")
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
		panic("iter: Find called with a nil pred")
	}
	if p.o.unordered {
		panic("iter: Find called on an Unordered pipeline: Find returns the first match in input order (FindAny returns any)")
	}
	q := p.Filter(pred)
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
			if st.stopped() || int64(lo) >= best.Load() {
				return
			}
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
			runItems(st, func(i int) bool {
				cur = i
				return int64(i) < best.Load() && f(i)
			}, lo, hi)
		}, q.o.parOpts()...)
		return v, found, nil
	}
	q.stream(st, q.o.runners(), terminal[T]{consume: func(j *job[T]) bool {
		if len(j.out) > 0 {
			v, found = j.out[0], true
			return false
		}
		return true
	}})
	return v, found, nil
}

// FindAny returns some result of p that satisfies pred, not necessarily the
// first, and false if none does. The first match found stops the pipeline.
func (p Pipe[T]) FindAny(pred func(T) bool) (v T, found bool, err error) {
	if pred == nil {
		panic("iter: FindAny called with a nil pred")
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
		panic("iter: Any called with a nil pred")
	}
	_, found, err := p.FindAny(pred)
	return found, err
}

// Every reports whether every result of p satisfies pred, stopping at the
// first that does not.
func (p Pipe[T]) Every(pred func(T) bool) (bool, error) {
	if pred == nil {
		panic("iter: Every called with a nil pred")
	}
	_, found, err := p.FindAny(func(v T) bool { return !pred(v) })
	return !found && err == nil, err
}
