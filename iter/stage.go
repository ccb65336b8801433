package iter

import "context"

// then returns p with one more stage: stage turns the sink of the stage's
// results into the sink of its inputs. It is built once per piece or batch,
// not per item.
func then[T, U any](p Pipe[T], name string, stage func(st *state, down func(U) bool) func(T) bool) Pipe[U] {
	q := Pipe[U]{o: p.o, n: p.n}
	q.o.stages += " | " + name
	if item := p.item; item != nil {
		q.item = func(st *state, down func(U) bool) func(int) bool {
			return item(st, stage(st, down))
		}
	}
	if pull := p.pull; pull != nil {
		q.pull = func(st *state, begin func() (int, bool), yield func(batch[U]) bool) error {
			return pull(st, begin, func(b batch[T]) bool {
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
// Blocking option, for an f that blocks.
func Map[T, U any](p Pipe[T], f func(T) U, opts ...Option) Pipe[U] {
	if f == nil {
		panic("iter: Map called with a nil f")
	}
	n, key := stageBlocking("Map", opts), new(int)
	q := then(withBlocking(p, n), "Map", func(st *state, down func(U) bool) func(T) bool {
		if n == 0 {
			return func(v T) bool { return down(f(v)) }
		}
		g := blocked(st, key, n, f)
		return func(v T) bool {
			u, ok := g(v)
			return ok && down(u)
		}
	})
	if fl := p.filtered; fl != nil && n == 0 {
		// Filter, then Map: one loop, with no buffer between them.
		q.reduce = func(st *state) func(lo, hi int, acc part[U], combine func(a, b U) U) part[U] {
			in, keep := fl.in(st), fl.keep
			return func(lo, hi int, acc part[U], combine func(a, b U) U) part[U] {
				vs := in(lo, hi)
				// The piece's first result starts its fold; the
				// loop after it keeps the fold in a local.
				for !acc.ok && len(vs) > 0 {
					if st.stopped() {
						return acc
					}
					if v := vs[0]; keep(v) {
						acc = part[U]{f(v), true}
					}
					vs = vs[1:]
				}
				a := acc.v
				for _, v := range vs {
					if st.flags.Load() != 0 { // st.stopped(), written out (see stopped)
						if st.stoppedOrDone() {
							break
						}
					}
					if keep(v) {
						a = combine(a, f(v))
					}
				}
				acc.v = a
				return acc
			}
		}
		q.chunk = func(st *state) func(lo, hi int) []U {
			in, keep, buf := fl.in(st), fl.keep, make([]U, chunkLen)
			return func(lo, hi int) []U {
				vs := in(lo, hi)
				k := 0
				for _, v := range vs {
					if st.flags.Load() != 0 { // st.stopped(), written out (see stopped)
						if st.stoppedOrDone() {
							break
						}
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
		q.reduce = func(st *state) func(lo, hi int, acc part[U], combine func(a, b U) U) part[U] {
			in := chunk(st)
			return func(lo, hi int, acc part[U], combine func(a, b U) U) part[U] {
				vs := in(lo, hi)
				if !acc.ok { // the piece's first result starts its fold
					if len(vs) == 0 || st.stopped() {
						return acc
					}
					acc, vs = part[U]{f(vs[0]), true}, vs[1:]
				}
				a := acc.v
				for _, v := range vs {
					if st.flags.Load() != 0 { // st.stopped(), written out (see stopped)
						if st.stoppedOrDone() {
							break
						}
					}
					a = combine(a, f(v))
				}
				acc.v = a
				return acc
			}
		}
		q.chunk = func(st *state) func(lo, hi int) []U {
			in, buf := chunk(st), make([]U, chunkLen)
			return func(lo, hi int) []U {
				vs := in(lo, hi)
				out := buf[:len(vs)]
				for i, v := range vs {
					if st.flags.Load() != 0 { // st.stopped(), written out (see stopped)
						if st.stoppedOrDone() {
							return out[:i]
						}
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
// cancelled once the pipeline stops. It takes the Blocking option.
func MapErr[T, U any](p Pipe[T], f func(context.Context, T) (U, error), opts ...Option) Pipe[U] {
	if f == nil {
		panic("iter: MapErr called with a nil f")
	}
	n, key := stageBlocking("MapErr", opts), new(int)
	type result struct {
		u   U
		err error
	}
	return then(withBlocking(p, n), "MapErr", func(st *state, down func(U) bool) func(T) bool {
		g := blocked(st, key, n, func(v T) result {
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
// takes the Blocking option.
func (p Pipe[T]) Filter(keep func(T) bool, opts ...Option) Pipe[T] {
	if keep == nil {
		panic("iter: Filter called with a nil keep")
	}
	n, key := stageBlocking("Filter", opts), new(int)
	q := then(withBlocking(p, n), "Filter", func(st *state, down func(T) bool) func(T) bool {
		if n == 0 {
			return func(v T) bool { return !keep(v) || down(v) }
		}
		g := blocked(st, key, n, keep)
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
					if st.flags.Load() != 0 { // st.stopped(), written out (see stopped)
						if st.stoppedOrDone() {
							break
						}
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
// MapErr. It takes the Blocking option.
func (p Pipe[T]) FilterErr(keep func(context.Context, T) (bool, error), opts ...Option) Pipe[T] {
	if keep == nil {
		panic("iter: FilterErr called with a nil keep")
	}
	n, key := stageBlocking("FilterErr", opts), new(int)
	type result struct {
		ok  bool
		err error
	}
	return then(withBlocking(p, n), "FilterErr", func(st *state, down func(T) bool) func(T) bool {
		g := blocked(st, key, n, func(v T) result {
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
// p, in order. It takes the Blocking option: with Blocking(n), at most n
// items are in f at once, an item keeping its place until its last value
// has been passed on to the next stages (so the values need not be
// buffered).
func FlatMap[T, U any](p Pipe[T], f func(T) Seq[U], opts ...Option) Pipe[U] {
	if f == nil {
		panic("iter: FlatMap called with a nil f")
	}
	n, key := stageBlocking("FlatMap", opts), new(int)
	return then(withBlocking(p, n), "FlatMap", func(st *state, down func(U) bool) func(T) bool {
		g := blocked(st, key, n, func(v T) bool {
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
// with the semantics of MapErr. It takes the Blocking option, as FlatMap.
func FlatMapErr[T, U any](p Pipe[T], f func(ctx context.Context, v T, yield func(U) bool) error, opts ...Option) Pipe[U] {
	if f == nil {
		panic("iter: FlatMapErr called with a nil f")
	}
	n, key := stageBlocking("FlatMapErr", opts), new(int)
	return then(withBlocking(p, n), "FlatMapErr", func(st *state, down func(U) bool) func(T) bool {
		g := blocked(st, key, n, func(v T) bool {
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
