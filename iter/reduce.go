package iter

import (
	"cmp"

	"github.com/parloop/parloop/par"
)

// Fold folds the results of p into accumulators, one per worker (made by
// init the first time that worker has a result, and passed to step by
// pointer), and merges them with merge at the end, as par.Fold does. merge
// must be associative and commutative: results reach the workers in no
// particular order (for an ordered fold, use Reduce). With no results, Fold
// returns init(). On error it returns the zero A.
func Fold[T, A any](p Pipe[T], init func() A, step func(acc *A, v T), merge func(a, b A) A) (acc A, err error) {
	for _, f := range []struct {
		name  string
		isNil bool
	}{{"init", init == nil}, {"step", step == nil}, {"merge", merge == nil}} {
		if f.isNil {
			panic("iter: Fold called with a nil " + f.name)
		}
	}
	return fold(p, init, step, func(acc *A, vs []T) {
		for _, v := range vs {
			step(acc, v)
		}
	}, merge)
}

// fold is Fold, with steps, which folds a chunk of results into an
// accumulator (for a chunked run): a reduction whose step is known (Sum,
// Count) gives one that makes no call an item.
func fold[T, A any](p Pipe[T], init func() A, step func(acc *A, v T), steps func(acc *A, vs []T), merge func(a, b A) A) (acc A, err error) {
	st := p.start()
	defer func() {
		if err = st.finish(); err != nil {
			var zero A
			acc = zero
		}
	}()
	if p.indexed() {
		// The stages are bound once per accumulator (per worker), not
		// once per piece: par.Fold calls the body for every piece, and
		// pieces of cheap items are many. A foldAcc is reached only from
		// its accumulator, which par.Fold hands to one worker at a time.
		type foldAcc struct {
			a   A
			run func(lo, hi int)
		}
		w := par.Fold(p.n, func() *foldAcc {
			fa := &foldAcc{a: init()}
			fa.run = p.bind(st, func(v T) bool { step(&fa.a, v); return true },
				func(vs []T) { steps(&fa.a, vs) })
			return fa
		}, func(acc **foldAcc, lo, hi int) {
			(*acc).run(lo, hi)
		}, func(x, y *foldAcc) *foldAcc {
			x.a = merge(x.a, y.a)
			return x
		}, p.o.parOpts()...)
		return w.a, nil
	}
	// Runner w alone touches accs[w] while the run goes on.
	nr := p.o.runners()
	accs := make([]*A, nr)
	p.stream(st, nr, terminal[T]{sink: func(w int) func(T) bool {
		return func(v T) bool {
			if accs[w] == nil {
				a := init()
				accs[w] = &a
			}
			step(accs[w], v)
			return true
		}
	}})
	return call(st, func() A {
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
			return init()
		}
		return *out
	}), nil
}

// Reduce combines the results of p with combine and returns the same value
// as the sequential left fold
//
//	combine(...combine(combine(identity, r0), r1)..., rn)
//
// over the results r0, ..., rn in the pipeline's order (source order, as
// Collect keeps it), exactly as par.Reduce does: combine must be
// associative; it need not be commutative (string concatenation comes out
// right); identity is applied once, on the left. With no results Reduce
// returns identity, and on error the zero T. The results are folded in
// parallel, a piece of an indexed source or a batch of a streaming one at
// a time, and the folds are combined in order. On an Unordered pipeline
// the order need not be kept (a streaming one combines the batches' folds
// as they come), so combine must then be commutative too.
func (p Pipe[T]) Reduce(identity T, combine func(a, b T) T) (acc T, err error) {
	if combine == nil {
		panic("iter: Reduce called with a nil combine")
	}
	st := p.start()
	defer func() {
		if err = st.finish(); err != nil {
			var zero T
			acc = zero
		}
	}()
	var all part[T]
	if p.indexed() {
		all = p.reduceIndexed(st, combine)
	} else {
		p.stream(st, p.o.runners(), terminal[T]{combine: combine, consume: func(j *job[T]) bool {
			all = call(st, func() part[T] { return all.join(j.acc, combine) })
			return true
		}})
	}
	if !all.ok {
		return identity, nil
	}
	return call(st, func() T { return combine(identity, all.v) }), nil
}

// reduceIndexed folds the results of an indexed run in order: each piece
// into its part, the parts joined in index order by par.ReduceRange. A
// chunked run whose last stage is a Map folds in the Map's loop (see
// Pipe.reduce).
func (p Pipe[T]) reduceIndexed(st *state, combine func(a, b T) T) part[T] {
	// A reducer's stages are bound once, and serve the later pieces its
	// pool hands it to, one at a time.
	type reducer struct {
		acc part[T]
		run func(lo, hi int)
	}
	reducers := newReuse(func() *reducer {
		r := &reducer{}
		if p.chunked() && p.reduce != nil {
			red := p.reduce(st)
			r.run = stepLeaf(st, func(lo, hi int) { r.acc = red(lo, hi, r.acc, combine) })
		} else {
			r.run = p.bind(st, func(v T) bool { r.acc = r.acc.add(v, combine); return true },
				func(vs []T) {
					for _, v := range vs {
						r.acc = r.acc.add(v, combine)
					}
				})
		}
		return r
	})
	return par.ReduceRange(p.n, part[T]{}, func(lo, hi int) part[T] {
		if st.stopped() {
			return part[T]{}
		}
		r := reducers.get()
		r.run(lo, hi)
		acc := r.acc
		r.acc = part[T]{}
		reducers.put(r)
		return acc
	}, func(a, b part[T]) part[T] { return a.join(b, combine) }, p.o.parOpts()...)
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

func pick[T cmp.Ordered](p Pipe[T], better func(a, b T) bool) (T, bool, error) {
	e, err := Fold(p, func() part[T] { return part[T]{} },
		func(acc *part[T], v T) {
			if !acc.ok || better(v, acc.v) {
				*acc = part[T]{v, true}
			}
		},
		func(a, b part[T]) part[T] {
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
