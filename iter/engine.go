package iter

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/parloop/parloop/par"
)

func (o *options) thePool() *par.Pool {
	if o.pool != nil {
		return o.pool
	}
	return par.Default()
}

// runners is the number of runners of a streaming pipeline's batches: the
// pool's workers (bodies of one par.For on the pool), or with Blocking on
// the source, goroutines of their own.
func (o *options) runners() int {
	if o.blocking > 0 {
		return o.blocking
	}
	// A stage given Blocking has that many runners more, so that items
	// waiting in it do not hold up the CPU-bound stages.
	return max(1, o.thePool().Workers()) + o.stageBlocking
}

// onPool reports whether a streaming run's batches run on the pool's
// workers: no Blocking on the source or on a stage. A pipeline with
// Blocking runs on goroutines of its own (par.Blocking), so that its stages
// may wait.
func (o *options) onPool() bool { return o.blocking == 0 && o.stageBlocking == 0 }

func (o *options) parOpts() []par.Option {
	if o.pool != nil {
		return []par.Option{par.On(o.pool)}
	}
	return nil
}

const (
	maxBatch = 4096
	// batchTarget is the work a batch is sized for: each batch costs a
	// few handoffs between goroutines (producer, runner, consumer), which
	// at two workers wait for a thread; at 100 µs an ordered Map of 1 µs
	// items ran 1.39× its sequential loop there, at 400 µs 1.72×
	// (bench/ANALYSIS.md).
	batchTarget = 400 * time.Microsecond
)

// sizer picks the size of the next batch from the cost per item the runners
// measured: about batchTarget of work, growing at most twofold per batch from
// batches of one item, so that neither a cheap nor an expensive item is
// mis-sized for long.
type sizer struct {
	fixed int
	last  int          // the producer's alone
	cost  atomic.Int64 // ns per item, smoothed; written by runners
}

func (s *sizer) next() int {
	if s.fixed > 0 {
		return s.fixed
	}
	// Until a runner has measured a batch, batches stay at one item: a
	// blocking stage of a millisecond an item must not get a batch of
	// thousands while the first measurement is pending.
	n := 1
	if c := s.cost.Load(); c > 0 {
		n = min(2*s.last, int(int64(batchTarget)/c))
	}
	n = min(max(n, 1), maxBatch)
	s.last = n
	return n
}

func (s *sizer) observe(items int, d time.Duration) {
	if s.fixed > 0 || items == 0 {
		return
	}
	c := max(int64(d)/int64(items), 1)
	if old := s.cost.Load(); old > 0 {
		c = (3*old + c) / 4
	}
	s.cost.Store(c)
}

// streamPull returns p's source as batches: p.pull, or for an indexed
// source its index range cut into consecutive pieces.
func (p Pipe[T]) streamPull() func(st *state, begin func() (int, bool), yield func(batch[T]) bool) error {
	if p.pull != nil {
		return p.pull
	}
	n, item := p.n, p.item
	return func(st *state, begin func() (int, bool), yield func(batch[T]) bool) error {
		for lo := 0; lo < n; {
			size, ok := begin()
			if !ok {
				return nil
			}
			base, hi := lo, lo+min(size, n-lo)
			b := batch[T]{n: hi - base, bind: func(st *state, down func(T) bool) func(int) bool {
				f := item(st, down)
				return func(j int) bool { return f(base + j) }
			}}
			if !yield(b) {
				return nil
			}
			lo = hi
		}
		return nil
	}
}

// job is one batch on its way through a streaming run. The producer makes
// it, one runner fills out or acc, and then the consumer alone reads it.
type job[T any] struct {
	seq  int // the batch's place among the source's batches
	base int // the source position of its first item
	b    batch[T]
	out  []T     // its results (a terminal that gathers them), or
	acc  part[T] // their fold (a terminal that combines them)
}

// part is the fold of a run of consecutive results: none (ok false), or v.
type part[T any] struct {
	v  T
	ok bool
}

// add returns the part with x folded in on the right.
func (a part[T]) add(x T, combine func(a, b T) T) part[T] {
	if a.ok {
		a.v = combine(a.v, x)
		return a
	}
	return part[T]{x, true}
}

// join returns the part a followed by the part b.
func (a part[T]) join(b part[T], combine func(a, b T) T) part[T] {
	if !b.ok {
		return a
	}
	return a.add(b.v, combine)
}

// terminal is how a streaming run's results leave the runners: either each
// runner w hands them to sink(w), which only it calls; or each batch's
// results are gathered in job.out (or, with combine, folded into job.acc
// in order) and the job is handed to consume on the calling goroutine, in
// batch order unless the pipeline is Unordered. consume returns false to
// stop the run.
type terminal[T any] struct {
	sink    func(w int) func(T) bool
	consume func(j *job[T]) bool
	combine func(a, b T) T
}

// stream runs p as a stream and returns when every goroutine of the run has
// stopped. nr is the number of runners (o.runners(), read once by the
// caller): t.sink(w) is called with 0 <= w < nr.
//
// Tokens: the tokens channel holds one token per job from the moment the
// producer begins its batch (before its first item is pulled) to its
// release (by the runner with a sink, by the consumer after consume
// otherwise), so at most window batches' items have been pulled and not
// yet consumed; done has room for window jobs, so a runner never blocks on
// it. The reorder buffer holds only jobs that have tokens: at most window.
//
// One producer goroutine pulls the source and sends jobs to the runners:
// on the pool's workers (onPool; see pool), or on goroutines of their own
// (see blocking).
//
// Every wait selects on st.ctx.Done(), and every body that ends abnormally
// (a panic, Goexit) halts the run first, so no body waits for one that has
// stopped and every par.For returns.
func (p Pipe[T]) stream(st *state, nr int, t terminal[T]) {
	o := &p.o
	window := o.window
	if window == 0 {
		// Four per runner ran an ordered Map of 1M items of 1 µs at
		// 1.0-1.9× its loop on two loaded cores, eight 1.9-2.0× in the
		// same rounds (bench/ANALYSIS.md): an ordered run stalls once a
		// runner that has lost its thread holds the oldest batch and
		// the others have run the rest of the window.
		window = 8 * nr
	}
	sz := &sizer{fixed: o.batch}
	tokens := make(chan struct{}, window)
	var done chan *job[T]
	if t.consume != nil {
		done = make(chan *job[T], window)
	}
	// outs recycles the jobs' result slices: the consumer puts them back
	// once it has consumed them (consume only reads them).
	outs := newBuffers[T]()
	// sinks[w] is runner w's sink, made on its first job.
	sinks := make([]func(T) bool, nr)
	// run runs the stages over job j as runner w and hands the job on.
	run := func(w int, j *job[T]) {
		var down func(T) bool
		switch {
		case t.consume == nil:
			if sinks[w] == nil {
				sinks[w] = t.sink(w)
			}
			down = sinks[w]
		case t.combine != nil:
			down = func(v T) bool { j.acc = j.acc.add(v, t.combine); return true }
		default:
			// Room for one result an item: what Map gives, and more
			// than Filter needs.
			j.out = outs.get(j.b.n)
			down = func(v T) bool { j.out = append(j.out, v); return true }
		}
		start := time.Now()
		j.run(st, down)
		sz.observe(j.b.n, time.Since(start))
		if j.b.done != nil {
			j.b.done()
		}
		j.b = batch[T]{} // let the inputs go
		if t.consume != nil {
			done <- j
		} else {
			<-tokens
		}
	}
	var body func()
	if o.onPool() {
		body = p.pool(st, nr, sz, tokens, run)
	} else {
		body = p.blocking(st, nr, sz, tokens, run)
	}

	var wg sync.WaitGroup
	var crash any
	var exited bool
	wg.Add(1)
	go func() {
		defer wg.Done()
		normal := false
		defer func() {
			if !normal {
				if crash = recover(); crash == nil {
					exited = true // runtime.Goexit in a body
				}
				st.halt()
			}
			if done != nil {
				close(done)
			}
		}()
		st.inRegion("iter.driver", func() { par.For(1, func(int) { guarded(st, "iter.driver", body) }, par.Blocking(1)) })
		normal = true
	}()

	if t.consume != nil {
		// If consume panics or exits (a loop body over All), stop the
		// run and wait for its goroutines before the panic goes on.
		waited := false
		defer func() {
			if !waited {
				st.halt()
				wg.Wait()
			}
		}()
		p.consume(st, done, tokens, outs, t.consume)
		waited = true
	}
	wg.Wait()
	if crash != nil {
		st.finish()
		panic(crash)
	}
	if exited {
		st.finish()
		runtime.Goexit()
	}
}

// run runs the stages over the job's items into down, until the run stops
// or down asks to; a panic names the item's source position.
func (j *job[T]) run(st *state, down func(T) bool) {
	c := catcher{at: j.base} // the loop's position: a panic names it
	defer c.catch(st)
	f := j.b.bind(st, down)
	for end := j.base + j.b.n; c.at < end && !st.stopped(); c.at++ {
		if !f(c.at - j.base) {
			break
		}
	}
	c.returned = true
}

// producer returns the producer of a run: it pulls the source and sends
// jobs on work, and closes work when the source has ended or the run
// stopped. It takes a job's token when the source begins its batch, before
// the batch's first item is pulled (see stream).
func (p Pipe[T]) producer(st *state, sz *sizer, tokens chan struct{}, work chan<- *job[T]) func() {
	pull := p.streamPull()
	return func() {
		defer close(work)
		seq, base := 0, 0
		holding := false // a token taken for a batch not yet sent
		begin := func() (int, bool) {
			if st.stopped() {
				return 0, false
			}
			select {
			case tokens <- struct{}{}:
			case <-st.ctx.Done():
				return 0, false
			}
			holding = true
			return sz.next(), true
		}
		err := pull(st, begin, func(b batch[T]) bool {
			holding = false
			if st.stopped() {
				return false
			}
			j := &job[T]{seq: seq, base: base, b: b}
			seq++
			base += b.n
			select {
			case work <- j:
				return true
			case <-st.ctx.Done():
				return false
			}
		})
		if holding {
			<-tokens // the source ended before it filled the batch it began
		}
		if err != nil {
			st.fail(err)
		}
	}
}

// idleWait is how long a runner on the pool waits for the producer before
// it leaves its round: longer than a batch takes to pull, much shorter
// than a preemption tick (10 ms), which is how long a runnable producer
// may wait for a thread while every thread runs a runner that does not
// block.
const idleWait = time.Millisecond

// pool returns the driver of a run on the pool's workers: one par.For with
// Blocking(2), whose body 0 is the producer and whose body 1 runs rounds.
// A round starts with a job: one par.For of nr bodies on the pool (without
// Blocking), body w being runner w, body 0 starting with that job. A body
// takes jobs from work and runs them until work is closed or the run
// stops, or until it has waited idleWait for a job; so a worker waits for
// the producer only briefly, and, while it waits, its thread is parked and
// lets the producer and the consumer run. The next job starts the next
// round. Rounds do not overlap, so runner w is one goroutine at a time.
func (p Pipe[T]) pool(st *state, nr int, sz *sizer, tokens chan struct{}, run func(int, *job[T])) func() {
	popts := p.o.parOpts()
	return func() {
		work := make(chan *job[T], cap(tokens))
		producer := p.producer(st, sz, tokens, work)
		// next waits for a job; nil once work is closed or the run stopped.
		next := func() *job[T] {
			select {
			case j, ok := <-work:
				if ok && !st.stopped() {
					return j
				}
			case <-st.ctx.Done():
			}
			return nil
		}
		rounds := func() {
			for first := next(); first != nil; first = next() {
				par.For(nr, func(w int) {
					guarded(st, "iter.runners", func() {
						var idle *time.Timer
						defer func() {
							if idle != nil {
								idle.Stop()
							}
						}()
						j := first
						if w != 0 {
							j = nil
						}
						for {
							if j == nil {
								var ok bool
								select {
								case j, ok = <-work:
								default:
									if idle == nil {
										idle = time.NewTimer(idleWait)
									} else {
										idle.Reset(idleWait)
									}
									select {
									case j, ok = <-work:
									case <-idle.C:
										return // leave the round
									case <-st.ctx.Done():
										return
									}
								}
								if !ok {
									return
								}
							}
							if st.stopped() {
								return
							}
							run(w, j)
							j = nil
							if len(work) < nr {
								// Few jobs left: let the consumer and
								// the producer, which wait for a thread
								// while the runners hold every P, take
								// the results and pull more now, rather
								// than once a runner has run dry.
								runtime.Gosched()
							}
						}
					})
				}, popts...)
			}
		}
		par.For(2, func(i int) {
			if i == 0 {
				guarded(st, "iter.source", producer)
			} else {
				guarded(st, "iter.rounds", rounds)
			}
		}, par.Blocking(2))
	}
}

// blocking returns the driver of a run on goroutines of its own: one
// par.For with Blocking(nr+1) whose body 0 is the producer and whose other
// bodies are the runners, which take jobs from work until it is closed or
// the run stops.
func (p Pipe[T]) blocking(st *state, nr int, sz *sizer, tokens chan struct{}, run func(int, *job[T])) func() {
	return func() {
		work := make(chan *job[T], cap(tokens))
		producer := p.producer(st, sz, tokens, work)
		par.For(nr+1, func(i int) {
			role := "iter.runners"
			if i == 0 {
				role = "iter.source"
			}
			guarded(st, role, func() {
				if i == 0 {
					producer()
					return
				}
				for {
					select {
					case j, ok := <-work:
						if !ok || st.stopped() {
							return
						}
						run(i-1, j)
					case <-st.ctx.Done():
						return
					}
				}
			})
		}, par.Blocking(nr+1))
	}
}

// consume hands the jobs to f on the calling goroutine, in order unless the
// pipeline is Unordered, until done is closed, the run stops or f returns
// false. f must not keep a job's out: it goes back to outs for another job.
func (p Pipe[T]) consume(st *state, done <-chan *job[T], tokens <-chan struct{}, outs *buffers[T], f func(*job[T]) bool) {
	// give hands j to f and releases its token; false: stop consuming.
	give := func(j *job[T]) bool {
		if st.stopped() {
			return false
		}
		if !f(j) {
			if !st.stopped() {
				st.halt() // an early exit: Find's match, a break
			}
			return false
		}
		if j.out != nil {
			outs.put(j.out)
		}
		<-tokens
		return true
	}
	pending := map[int]*job[T]{}
	next := 0
	for {
		var j *job[T]
		var ok bool
		select {
		case j, ok = <-done:
		case <-st.ctx.Done():
			return
		}
		if !ok {
			return
		}
		if p.o.unordered {
			if !give(j) {
				return
			}
			continue
		}
		pending[j.seq] = j
		for {
			j, ok := pending[next]
			if !ok {
				break
			}
			delete(pending, next)
			next++
			if !give(j) {
				return
			}
		}
	}
}
