package par

import (
	"github.com/parloop/parloop/par/internal/locals"
	"github.com/parloop/parloop/par/internal/platform"
)

// Fold runs body over disjoint pieces [lo, hi) that together cover [0, n),
// in parallel, handing each piece the accumulator of the worker running it,
// made by init the first time that worker runs a piece of this call: at
// most one per worker and one for the caller, however many pieces. Fold
// then merges them with merge and returns the result; with n <= 0, init().
//
// Pieces reach workers in no particular order, so merge must be associative
// and commutative (adding counts, merging maps of counts), and the result
// must not depend on which worker folded which piece. For an ordered fold
// use ReduceRange. Panics as in For. It takes the On, Grain, Track and
// Weighted options.
func Fold[L any](n int, init func() L, body func(acc *L, lo, hi int), merge func(a, b L) L, opts ...Option) L {
	mustBody("Fold", "init function", init == nil)
	mustBody("Fold", "body", body == nil)
	mustBody("Fold", "merge function", merge == nil)
	sp, _ := makeSpec("Fold", foldOptions, opts, n)
	if n <= 0 {
		return init()
	}
	p := poolOf(sp.pool)
	p.init()
	p.ensureStarted() // size the table by the workers the call will have
	// The accumulators and their protocol: par/internal/locals.
	tab := locals.New(len(p.layout.Load().workers), init)
	run(&sp, &job[none]{rng: func(lo, hi int) {
		// The piece's cell: its worker's, by id, or the caller's. A worker
		// of another pool is this call's caller. (Written out here, not
		// as a function, which would be too large to inline.)
		i := locals.Caller
		if s := lookupWorker(platform.GoroutineKey()); s != nil && s.pool == p {
			i = int(s.id)
		}
		cell := tab.Cell(i)
		body(&cell.Acc, lo, hi)
		cell.Release()
	}}, n)
	return tab.Merge(merge)
}
