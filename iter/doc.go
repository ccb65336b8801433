// Package iter runs pipelines over Go iterators, slices and channels in
// parallel on a parloop pool: a source, any number of stages (Map, Filter,
// FlatMap and their error forms), and one terminal (ForEach, Collect, Fold,
// Reduce, Count, Sum, Min, Max, Any, Every, Find, FindAny, or All and
// Values for a range-over-func loop).
//
// Its name is that of the standard package iter. Seq and Seq2 are aliases of
// the standard types, so a file that imports this package alone can name
// both:
//
//	import "github.com/parloop/parloop/iter"
//
//	words := iter.Map(iter.Slice(lines), strings.Fields)
//	n, err := iter.FlatMap(words, slices.Values).Count()
//
// # Sources
//
// Slice and Range are indexed: their pipelines split the index range on the
// pool exactly as par.ForRange does. Where the stages are all Filter and
// Map (none given Blocking) and the terminal is ForEach, Collect, Fold or a
// reduction, each piece runs in chunks of up to 256 items, one stage at a
// time over the whole chunk (a Map right after a Filter in the same loop),
// so that an item costs one call of each stage's function and of the
// terminal's (Fold's step, Reduce's combine; none for Sum and Count), with
// no calls between stages.
//
// From (an iter.Seq), From2 (an iter.Seq2, such as maps.All), Chan and
// Lines (a bufio.Scanner) are streaming: one producer goroutine pulls items
// into batches whose size adapts to the measured cost of an item (about
// 400 µs of work per batch, at most 4096 items, or a fixed size set by
// Batch), and the batches run on the pool's workers: the first batch starts
// one par.For of one body per worker, each of which takes batches as the
// producer makes them, and leaves when the source has ended or it has
// waited a millisecond for one (so a slow source holds no worker for long);
// the next batch starts the next such call. A body that finds few batches
// queued yields its thread after each, so that the producer and the
// consumer, which wait for one while the bodies hold them all, refill the
// queue before it runs dry. A pipeline given Blocking (below) runs on
// goroutines of its own instead. Batch buffers are reused within a run.
//
// # Options
//
// Options go to the source (Unordered, Window, Batch, Blocking, Context,
// On) or to a stage (Blocking). Option's doc has the table of which call
// takes which; any other option panics at the call, naming it.
//
// # Order and memory
//
// Results come out in input order (Collect, All, Find, Reduce) unless the
// source was given Unordered. Reduce is par.Reduce's ordered left fold:
// combine must be associative, need not be commutative, and identity is
// applied once, on the left; each piece or batch is folded in parallel and
// the folds are combined in order. ForEach, Fold and the other reductions
// consume each result where it is made, in no particular order.
//
// A streaming pipeline holds at most Window(k) batches of items pulled from
// the source and not yet consumed (being filled, queued, running, or in the
// reorder buffer; k·b items with Batch(b)), by default eight batches per
// runner, so its memory does not grow with the length of the stream: the
// producer waits for room for a whole batch before it pulls the batch's
// first item.
//
// # Blocking stages
//
// Blocking(n) declares that work blocks (files, the network), as
// par.Blocking does for a loop. Given to a stage (Map, MapErr, Filter,
// FilterErr, FlatMap, FlatMapErr), it bounds that stage alone at n items at
// once and gives the pipeline n more runners, so the CPU-bound stages keep
// their own; given to a source, it runs the whole pipeline on n runners. A
// pipeline with Blocking anywhere runs all its stages on such runners,
// goroutines started with par.Blocking, off the pool's workers (which must
// not wait), and batches of slow items shrink to one item each. A stage
// that reads files is such a stage even when the page cache makes its reads
// fast: examples/pgrep gives its search stage Blocking, with which it ran
// 1.64× its sequential run on two cores, against 1.2× without
// (bench/RESULTS.md).
//
//	pages := iter.MapErr(iter.Slice(urls), fetch, iter.Blocking(32))
//	links := iter.FlatMap(iter.Map(pages, parse), slices.Values)
//
// Hedged wraps an idempotent I/O stage for MapErr with a per-item timeout
// and hedging (a backup attempt of an item that runs longer than a set time
// or a quantile of the durations seen so far; the first success wins and the
// loser's context is cancelled).
//
// # Errors, panics and cancellation
//
// Cancellation follows par.ForErr: the context given with Context is looked
// at before each item, never during one: before an item is pulled from a
// streaming source, and before it enters the stages. Once it is done no new
// item starts, and the terminal returns ctx.Err() unless a function's error
// came first. The first error returned by a stage (or by
// the source: a Scanner's error) likewise cancels the context handed to
// the stages, stops the producer and every stage, and is returned by the
// terminal. An error returned after the terminal has its answer (Find's
// match, a break out of a loop over All) is dropped.
//
// A panic in a stage, the source or a function a terminal calls reaches
// the caller as a *par.PanicError, once every goroutine of the run has
// stopped. Its Lo and Hi name the item: its position in the source (Hi =
// Lo+1), or in a chunked run the piece of the index range that was running;
// -1 for the source itself and for a function a terminal calls once on the
// caller's goroutine (Fold's merge, Reduce's combine of the batches' folds).
// A panic in the body of a loop over All comes out as it is.
//
// Every terminal returns, and a loop over All ends, only after every
// goroutine the pipeline started has stopped; a break out of a loop over
// All stops the producer and the stages. A source that blocks inside its
// own iterator (a Seq waiting on something) is stopped only when it next
// yields.
//
// Stages may call par verbs, and par bodies may run pipelines, on the same
// pool without deadlock.
package iter
