package par

import (
	"sync"
	"sync/atomic"

	"github.com/parloop/parloop/par/internal/platform"
)

// Worker-local accumulators (Fold, after oneTBB's combinable): one cell
// per worker slot plus one for the caller, made with init when a piece
// first runs there. A body's nested call may, while it waits, run another
// piece of the same Fold on the same slot, so a piece that finds its cell
// busy gets a spare one. Cells are written only by their slot's goroutine
// (the caller's only by the caller: isolation keeps other callers out);
// the merge reads them after the call's completion, which orders the writes.

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
	tab := newLocalTable[L](poolOf(sp.pool), init)
	run(&sp, &job[none]{rng: func(lo, hi int) {
		cell := tab.cell()
		body(&cell.acc, lo, hi)
		cell.busy = false
	}}, n)
	return tab.merge(merge)
}

// localCell is one accumulator; busy is its slot's goroutine's only.
type localCell[L any] struct {
	acc  L
	busy bool
}

type localTable[L any] struct {
	pool    *Pool
	init    func() L
	workers int                            // cells[:workers] belong to worker ids, cells[workers] to the caller
	cells   []atomic.Pointer[localCell[L]] // set once each, by the slot's goroutine
	mu      sync.Mutex
	beyond  map[int32]*localCell[L] // workers started after the table was made (a resize mid-call)
	spare   []*localCell[L]         // reentrant pieces
}

func newLocalTable[L any](p *Pool, init func() L) *localTable[L] {
	p.init()
	p.ensureStarted() // size the table by the workers the call will have
	w := len(p.layout.Load().workers)
	return &localTable[L]{pool: p, init: init, workers: w, cells: make([]atomic.Pointer[localCell[L]], w+1)}
}

// cell returns the accumulator, marked busy, for the goroutine's piece.
func (t *localTable[L]) cell() *localCell[L] {
	i := t.workers                                                                // the caller
	if s := lookupWorker(platform.GoroutineKey()); s != nil && s.pool == t.pool { // a worker of another pool is this call's caller
		if int(s.id) >= t.workers {
			return t.beyondCell(s.id)
		}
		i = int(s.id)
	}
	c := t.cells[i].Load()
	if c == nil {
		c = &localCell[L]{acc: t.init()}
		t.cells[i].Store(c)
	}
	return t.claim(c)
}

// beyondCell is cell for a worker the table has no place for.
func (t *localTable[L]) beyondCell(id int32) *localCell[L] {
	t.mu.Lock()
	c := t.beyond[id]
	if c == nil {
		if t.beyond == nil {
			t.beyond = map[int32]*localCell[L]{}
		}
		c = &localCell[L]{acc: t.init()}
		t.beyond[id] = c
	}
	t.mu.Unlock()
	return t.claim(c)
}

// claim marks c busy for a piece, or, if a piece uses it, makes a spare.
func (t *localTable[L]) claim(c *localCell[L]) *localCell[L] {
	if c.busy {
		c = &localCell[L]{acc: t.init()}
		t.mu.Lock()
		t.spare = append(t.spare, c)
		t.mu.Unlock()
	}
	c.busy = true
	return c
}

// merge combines every accumulator made. Called after the call returned.
func (t *localTable[L]) merge(merge func(a, b L) L) L {
	var out L
	have := false
	add := func(c *localCell[L]) {
		if c == nil {
			return
		}
		if !have {
			out, have = c.acc, true
			return
		}
		out = merge(out, c.acc)
	}
	for i := range t.cells {
		add(t.cells[i].Load())
	}
	for _, c := range t.beyond {
		add(c)
	}
	for _, c := range t.spare {
		add(c)
	}
	if !have {
		return t.init()
	}
	return out
}
