// Package par runs loops and fork-join computations in parallel on a
// work-stealing pool, one worker per CPU, with the calling goroutine as one
// of them.
//
// # Choosing a verb
//
//   - A CPU-bound loop over indices: For (body(i) per index) or ForRange
//     (body(lo, hi) per piece, for a tight inner loop with state in locals).
//   - A loop with results: Map (out[i] = f(in[i])), Reduce (a fold with an
//     associative combine), ReduceRange (whose leaf folds a piece in a tight
//     loop), or Fold, one costly accumulator per worker (a map of counts).
//   - A loop that can fail or be cancelled: ForErr and MapErr. The first
//     error cancels the bodies' context and stops new iterations.
//   - Bodies that block (files, network, sleeps, locks, channels): any loop
//     verb with Blocking(limit), which runs them on at most limit
//     goroutines of their own, off the pool's workers.
//   - A few expensive items: For; a call over at most 4 items per worker is
//     split to single items before the first runs, so n equal items take
//     ceil(n/P) rounds at parallelism P.
//   - Recursion (divide and conquer, tree walks): BothOf and JoinOf (two
//     functions on their arguments, with results or without: no closures,
//     no allocation), Both (two closures with results) or Join (two
//     without). A loop verb called inside a body nests as well; for a walk
//     over each node's children, ForOf and ReduceRangeOf pass the node to a
//     top-level body instead of a closure capturing it, and allocate
//     nothing per node.
//   - A handful of functions to run at once: Invoke.
//   - Tasks that discover more tasks (walking a directory tree, crawling a
//     graph, draining a channel: what a WaitGroup with a goroutine per task
//     does): Scope, whose tasks call Go to spawn more, or ScopeErr for tasks
//     that fail. Tasks run on the pool with no goroutine each, or with
//     Blocking(limit) on at most limit goroutines for the whole scope. When
//     every task calls one function on an argument (a node of a crawl or a
//     walk), ScopeOf passes the argument instead of a closure, and spawns
//     allocate nothing.
//
// Every verb takes options last: On(p) runs the call on pool p; Grain(n)
// bounds the iterations between checks for demand from below (never
// required: the grain adapts to the measured cost); Blocking(limit) as
// above; Deterministic() makes Reduce and ReduceRange bitwise
// reproducible. An option a verb cannot honour panics at the call.
//
//	par.For(len(in), func(i int) { out[i] = f(in[i]) })
//	sum := par.ReduceRange(len(xs), 0.0, func(lo, hi int) float64 {
//		s := 0.0
//		for _, x := range xs[lo:hi] {
//			s += x
//		}
//		return s
//	}, func(a, b float64) float64 { return a + b })
//	err := par.ForErr(ctx, len(urls), func(ctx context.Context, i int) error {
//		return fetch(ctx, urls[i])
//	}, par.Blocking(16))
//	a, b := par.BothOf(fib, n-1, fib, n-2)
//	par.Scope(func(s *par.Spawner) {
//		var visit func(n *Node)
//		visit = func(n *Node) {
//			for _, c := range n.Children {
//				s.Go(func() { visit(c) })
//			}
//		}
//		visit(root)
//	})
//
// # Guarantees
//
//   - A call that returns normally ran each index (or function) exactly
//     once, and everything the bodies did happens before the verb returns.
//   - Bodies must not wait for each other (a barrier, one body sending to
//     another): bodies of one call may run one after another on one thread,
//     so such a call can deadlock; except with Blocking(limit), limit >= n.
//   - A panic in a body stops new iterations (For, Map, ForErr and MapErr
//     before the next iteration; ForRange, Reduce and ReduceRange at the
//     end of the running piece) and, once every running body has returned,
//     is re-raised in the caller as a *PanicError with the value and the
//     stack where it happened (errors.Is and errors.As see through it).
//     runtime.Goexit in a body (t.Fatal, t.SkipNow) ends the call the same
//     way and then the caller's goroutine exits too. The pool stays usable.
//   - Any verb may be called from inside any body, to any depth: the nested
//     call runs on the same worker, creates no goroutine and blocks no
//     thread (a nested Blocking call waits, as any blocking body does). A
//     goroutine waiting for its own call runs only work of that call, so a
//     lock held across a call cannot deadlock on another caller's bodies.
//   - Bodies run under the pprof labels of the goroutine that made the call.
//   - Reduce returns the sequential left fold for an associative combine,
//     which need not commute.
//   - Importing par starts no goroutine: a pool starts on first use, and
//     Close leaves none behind. The zero Pool is usable, Default may be
//     closed (the next call starts a new one), and Close panics from a body
//     running on that pool.
//   - Bad input (a nil function or context, Grain(0), Workers(0), On(nil))
//     panics at the call with a message that starts with "par:".
//
// For allocates nothing in the steady state; at parallelism 1 a call is one
// plain loop. Pool.Stats reports per-worker counters and the load balance.
// docs/DESIGN.md in the module's repository describes the scheduler.
package par
