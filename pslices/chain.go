package pslices

import (
	"runtime"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/parloop/parloop/par"
)

// A chained pass over blocks, for the prefix sums and DeleteFunc.
//
// The slice is cut into blocks of a size fixed by its length and element
// size alone (about chainBytes, so that a block read once is still in the
// core's cache when it is read again). Workers claim blocks in index order
// from one counter. A worker first does the part of its block that needs
// nothing from the blocks before it (a block's sum; a block's compaction),
// then waits for the carry published by the block before (the sum of
// everything before its block; where its kept elements go), publishes its
// own carry and finishes the block. Each element is read from memory once
// by the first part, and, being still in cache, cheaply by the second: the
// pass moves the data of one sequential pass, with the first parts of all
// blocks running in parallel and only the short carry step in sequence
// (the single-pass scan with a chain of carries, "decoupled look-back"
// without the look-back: each block waits for its predecessor's carry, so
// the grouping of the operations is fixed by the block size).
//
// Invariants. A block is claimed by a running body, which publishes its
// carry before it claims another block and never waits for a block after
// its own, so the oldest unpublished block's worker waits for nobody and
// the chain always advances; bodies that run one after another on one
// goroutine (par's rule for bodies that may not wait for each other) find
// their predecessors already published. A body that panics or exits marks
// the chain broken, and waiting bodies then stop, so par can hand the panic
// to the caller. The carry is written before its link's state is stored,
// and read after the state is loaded (sync/atomic's operations are
// sequentially consistent), so a waiter sees the carry whole. A waiter
// spins, then yields to other goroutines, then sleeps in short steps, so
// that on a machine with more runnable threads than CPUs it does not hold a
// CPU the predecessor's thread needs.

const chainBytes = 32 << 10

// chainBlock returns the block size for elements of type E.
func chainBlock[E any]() int {
	var e E
	return max(chainBytes/max(int(unsafe.Sizeof(e)), 1), 256)
}

type link[C any] struct {
	ready atomic.Bool
	carry C
}

type chain[C any] struct {
	links  []link[C]
	next   atomic.Int64
	broken atomic.Bool
}

// runChain runs block(b, ch) once for each of blocks blocks on the pool,
// each in a body that claims it in index order.
func runChain[C any](blocks int, block func(b int, ch *chain[C]) bool, c config) *chain[C] {
	ch := &chain[C]{links: make([]link[C], blocks)}
	par.ForRange(blocks, func(lo, hi int) {
		ok := false
		defer func() {
			if !ok {
				ch.broken.Store(true)
			}
		}()
		for range hi - lo {
			b := int(ch.next.Add(1) - 1)
			if !block(b, ch) {
				break
			}
		}
		ok = true
	}, c.pool...)
	return ch
}

// wait returns the carry of block b-1, or false if the chain is broken.
// Block 0 has no predecessor: the caller handles it.
func (ch *chain[C]) wait(b int) (C, bool) {
	l := &ch.links[b-1]
	for spins := 0; !l.ready.Load(); spins++ {
		if ch.broken.Load() {
			var zero C
			return zero, false
		}
		switch {
		case spins >= 1024:
			// The predecessor's thread is likely descheduled (a machine
			// busier than its CPUs): give the CPU back to the OS.
			time.Sleep(20 * time.Microsecond)
		case spins >= 64:
			runtime.Gosched()
		}
	}
	return l.carry, true
}

// publish makes c the carry of block b.
func (ch *chain[C]) publish(b int, c C) {
	ch.links[b].carry = c
	ch.links[b].ready.Store(true)
}
