package iter

import stditer "iter"

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
	// given Blocking; nil otherwise) returns the function that runs the
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
	// with combine, in order, in the Map's loop: Reduce's leaf, with no
	// buffer between the last stages and the reduction.
	reduce func(st *state) func(lo, hi int, acc part[T], combine func(a, b T) T) part[T]
	// pull (streaming sources) produces the source's items in batches until
	// yield returns false or the source ends, and returns the source's
	// error. It runs on one goroutine. It calls begin before it pulls the
	// first item of a batch: begin waits until the window has room for one
	// more batch and returns its size, or false once the run has stopped
	// (pull then returns). Each begun batch is either yielded or, when the
	// source ends first, dropped.
	pull func(st *state, begin func() (int, bool), yield func(batch[T]) bool) error
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
