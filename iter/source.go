package iter

import "bufio"

// Slice returns a pipeline over the elements of s, in order. It is indexed:
// it splits on the pool like par.ForRange. s must not change while the
// pipeline runs.
func Slice[T any](s []T, opts ...Option) Pipe[T] {
	return Pipe[T]{o: makeOptions("Slice", indexedOptions, opts), n: len(s),
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
	return Pipe[int]{o: makeOptions("Range", indexedOptions, opts), n: max(n, 0),
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
		panic("iter: From called with a nil seq")
	}
	return from("From", seq, opts)
}

// from is From for the source named where.
func from[T any](where string, seq Seq[T], opts []Option) Pipe[T] {
	return Pipe[T]{o: makeOptions(where, streamingOptions, opts), n: -1,
		pull: func(st *state, begin func() (int, bool), yield func(batch[T]) bool) error {
			size, ok := begin()
			if !ok {
				return nil
			}
			bufs := newBuffers[T]()
			buf := bufs.get(size)
			// seq is called with a yield of its own rather than ranged
			// over: the test before each pull is then a return value,
			// not an early exit out of a range-over-func loop, which
			// cost twice the instructions.
			ended := false // yield returned false: the run stopped
			seq(func(v T) bool {
				buf = append(buf, v)
				if len(buf) < cap(buf) {
					// No item is pulled once the run has stopped
					// (st.stopped(), written out: see stopped).
					if st.flags.Load() != 0 {
						if st.stoppedOrDone() {
							ended = true
							return false
						}
					}
					return true
				}
				// Room for the next batch before its first item is
				// pulled.
				if !yield(sliceBatch(bufs, buf)) {
					ended = true
					return false
				}
				if size, ok = begin(); !ok {
					ended = true
					return false
				}
				buf = bufs.get(size)
				return true
			})
			if ended {
				return nil
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
		panic("iter: From2 called with a nil seq")
	}
	return from("From2", func(yield func(Pair[K, V]) bool) {
		for k, v := range seq {
			if !yield(Pair[K, V]{k, v}) {
				return
			}
		}
	}, opts)
}

// Chan returns a pipeline over the values received from c until it is
// closed. A batch is handed on as soon as c has nothing ready, so a slow
// channel does not delay its items. A pipeline that stops early (an error,
// a Find, a break) leaves the rest of c unread: its sender must not block
// forever on a send.
func Chan[T any](c <-chan T, opts ...Option) Pipe[T] {
	if c == nil {
		panic("iter: Chan called with a nil channel")
	}
	return Pipe[T]{o: makeOptions("Chan", streamingOptions, opts), n: -1,
		pull: func(st *state, begin func() (int, bool), yield func(batch[T]) bool) error {
			for {
				size, ok := begin()
				if !ok {
					return nil
				}
				var v T
				select {
				case v, ok = <-c:
				case <-st.ctx.Done():
					return nil
				}
				if !ok {
					return nil
				}
				buf := make([]T, 1, size)
				buf[0] = v
			fill:
				for len(buf) < cap(buf) {
					if st.stopped() {
						return nil
					}
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
		panic("iter: Lines called with a nil scanner")
	}
	p := from("Lines", func(yield func(string) bool) {
		for sc.Scan() {
			if !yield(sc.Text()) {
				return
			}
		}
	}, opts)
	pull := p.pull
	p.pull = func(st *state, begin func() (int, bool), yield func(batch[string]) bool) error {
		if err := pull(st, begin, yield); err != nil {
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
