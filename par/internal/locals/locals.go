// Package locals implements the worker-local accumulators of par's Fold
// (after oneTBB's combinable): one cell per worker slot plus one for the
// caller, made with init when a piece first runs there. A body's nested
// call may, while it waits, run another piece of the same Fold on the same
// slot, so a piece that finds its cell busy gets a spare one. Cells are
// written only by their slot's goroutine (the caller's only by the caller:
// isolation keeps other callers out); the merge reads them after the
// call's completion, which orders the writes.
//
// The package knows slots by index only: par maps the goroutine running a
// piece to its worker id, or to [Caller] for a goroutine that is not one
// of the pool's workers, and passes that to [Table.Cell], once per piece.
// A table is sized by the workers the call will have; a worker started
// after it was made (a resize mid-call) has an id beyond them and gets a
// cell from a map under the table's lock.
package locals

import (
	"sync"
	"sync/atomic"
)

// Caller is the index of the calling goroutine's cell.
const Caller = -1

// Cell is one accumulator; busy is its slot's goroutine's only.
type Cell[L any] struct {
	Acc  L
	busy bool
}

// Release marks c free again, at the end of the piece that got it from
// [Table.Cell].
func (c *Cell[L]) Release() { c.busy = false }

// Table holds the cells of one call.
type Table[L any] struct {
	init    func() L
	workers int                       // cells[:workers] belong to worker ids, cells[workers] to the caller
	cells   []atomic.Pointer[Cell[L]] // set once each, by the slot's goroutine
	mu      sync.Mutex
	beyond  map[int]*Cell[L] // workers started after the table was made (a resize mid-call)
	spare   []*Cell[L]       // reentrant pieces
}

// New returns a table for a call on workers workers (ids 0 to workers-1)
// and its caller, whose cells init makes.
func New[L any](workers int, init func() L) *Table[L] {
	return &Table[L]{init: init, workers: workers, cells: make([]atomic.Pointer[Cell[L]], workers+1)}
}

// Cell returns the accumulator, marked busy, for a piece run by worker i
// (i >= 0) or by the caller (i == [Caller]). Only that goroutine may call
// it with i, and it must Release the cell when the piece ends.
func (t *Table[L]) Cell(i int) *Cell[L] {
	if i == Caller {
		i = t.workers
	} else if i >= t.workers {
		return t.beyondCell(i)
	}
	c := t.cells[i].Load()
	if c == nil {
		c = &Cell[L]{Acc: t.init()}
		t.cells[i].Store(c)
	}
	return t.claim(c)
}

// beyondCell is Cell for a worker the table has no place for.
func (t *Table[L]) beyondCell(id int) *Cell[L] {
	t.mu.Lock()
	c := t.beyond[id]
	if c == nil {
		if t.beyond == nil {
			t.beyond = map[int]*Cell[L]{}
		}
		c = &Cell[L]{Acc: t.init()}
		t.beyond[id] = c
	}
	t.mu.Unlock()
	return t.claim(c)
}

// claim marks c busy for a piece, or, if a piece uses it, makes a spare.
func (t *Table[L]) claim(c *Cell[L]) *Cell[L] {
	if c.busy {
		c = &Cell[L]{Acc: t.init()}
		t.mu.Lock()
		t.spare = append(t.spare, c)
		t.mu.Unlock()
	}
	c.busy = true
	return c
}

// Merge combines every accumulator made, or returns init() if none was.
// Called after the call returned.
func (t *Table[L]) Merge(merge func(a, b L) L) L {
	var out L
	have := false
	add := func(c *Cell[L]) {
		if c == nil {
			return
		}
		if !have {
			out, have = c.Acc, true
			return
		}
		out = merge(out, c.Acc)
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
