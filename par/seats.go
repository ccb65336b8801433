package par

// Seats: where a call runs, and how a goroutine finds the seat it holds.
//
// A nested call must find the slot it runs on in O(1), to push onto its
// deque instead of blocking the thread. Go has no goroutine-local storage,
// so seats are keyed by platform.GoroutineKey (the address of the
// runtime's g):
//
//   - a pool's workers are in a lock-free table from key to slot
//     (internal/gtable) exactly while their goroutines run their loops.
//   - any other goroutine borrows one of maxGuests global guest seats for a
//     call from outside the pool, with a deque for its split halves, and
//     nested calls made by bodies it runs find the seat by its key.
//
// Guest seat invariants. Which seats are held, and by whom, is the table of
// par/internal/guests, which keeps its own: a seat's bit is set exactly
// while it is held, a lookup by a goroutine's key finds a seat it holds,
// and everything a holder did to its seat happens before the next holder's
// Acquire returns. par adds:
//   - a held seat's pool and seatTree (its call's tree) are written by the
//     holder right after acquiring (Acquire has stored its key), in that
//     order, before it pushes anything. Every task on a held seat's deque
//     belongs to that tree, and tree ids are unique per seat. A thief reads
//     seatTree, then the pool, and steals only tasks of that tree if the
//     pool is its own (stealGuest): if it matched a newer call's task, it
//     read that call's seatTree, stored after its pool, so its pool check
//     saw the newer pool. Else a thief that read the previous holder's pool
//     could take the next holder's work on another pool.
//   - a seat's deque is empty when it is released: the holder leaves only
//     after its call is complete and it ran what is left in its deque.
//
// When every seat is held, a call runs as a plain loop on its caller: with
// that many callers no throughput is lost.

import (
	"github.com/parloop/parloop/par/internal/counters"
	"github.com/parloop/parloop/par/internal/gtable"
	"github.com/parloop/parloop/par/internal/guests"
	"github.com/parloop/parloop/par/internal/platform"
)

// enter finds the slot for the goroutine's call on pool p (nil: its seat's
// pool, else Default), given the goroutine's seat cur (seatOf's: nil for
// none); guest: a guest seat acquired for it, to release. s is nil when
// the pool is closed or every guest seat is taken.
func enter(p *Pool, cur *slot) (s *slot, guest bool, pool *Pool) {
	if cur != nil && (p == nil || cur.pool == p) {
		return cur, false, cur.pool
	}
	k := platform.GoroutineKey()
	if p == nil {
		p = Default()
	}
	if p.closed.Load() {
		return nil, false, p
	}
	p.ensureStarted()
	if s = acquireGuest(p, k); s == nil {
		return nil, false, p
	}
	if cur != nil { // a call on another pool from inside a body: its bodies' calls must find s
		s.host = cur
		cur.visiting = s
	}
	return s, true, p
}

// seatOf returns the seat the goroutine with key k runs calls on: its
// worker or guest seat, or the seat it holds for a call on another pool
// made from there (visiting); nil for none.
func seatOf(k uintptr) *slot {
	s := lookupWorker(k)
	if s == nil {
		if s = lookupGuest(k); s == nil {
			return nil
		}
		for s.host != nil { // the outermost of the goroutine's guest seats
			s = s.host
		}
	}
	for s.visiting != nil {
		s = s.visiting
	}
	return s
}

// poolOf is the pool a call with On(p) runs on (p nil: no On).
func poolOf(p *Pool) *Pool {
	if p != nil {
		return p
	}
	if s := seatOf(platform.GoroutineKey()); s != nil {
		return s.pool
	}
	return Default()
}

// workers maps running workers' goroutine keys to their slots.
var workers gtable.Table

// lookupWorker returns the worker slot of the goroutine with key k, or nil.
func lookupWorker(k uintptr) *slot { return (*slot)(workers.Get(k)) }

const (
	maxGuests = guests.Max
	guestBase = 1 << 20 // guest seat ids are guestBase+i
)

// guestTable holds the guest seats, and which of them are held, by whom.
var guestTable guests.Table[slot]

func init() {
	for i := range maxGuests {
		guestTable.SetSeat(i, newSlot(nil, int32(guestBase+i), false))
	}
}

// lookupGuest returns a seat held by the goroutine with key k, or nil.
func lookupGuest(k uintptr) *slot { return guestTable.Lookup(k) }

// acquireGuest takes a free seat for pool p and goroutine k, or returns nil.
func acquireGuest(p *Pool, k uintptr) *slot {
	g, i := guestTable.Acquire(k)
	if g == nil {
		return nil
	}
	g.pool = p
	g.stats = &p.callerStats
	if g.guestPool.Load() != p {
		g.guestPool.Store(p)
	}
	// A new call tree, unique among live ones (the seat counts its calls),
	// published after the pool (see the invariants above).
	g.calls++
	g.tree = g.calls<<8 | uint64(i+1)
	g.seatTree.Store(g.tree)
	if g.calls%resizeCheckCalls == 0 {
		p.maybeResize()
	}
	return g
}

// releaseGuest frees seat s, held since tick t0, counting the time as the
// callers' busy time. A released seat's deque is invisible to thieves, so
// what is left in it (pieces split while its holder helped) runs first.
func releaseGuest(s *slot, t0 int64) { releaseGuestBusy(s, counters.Since(t0, &s.pool.statsFrom)) }

// releaseGuestBusy is releaseGuest with the busy ticks known.
func releaseGuestBusy(s *slot, busy int64) {
	defer freeSeat(s, busy)
	runLeftovers(s)
}

// runLeftovers runs what is left in s's deque, each next task from a
// deferred call, so that a Goexit cannot strand the rest or the seat.
func runLeftovers(s *slot) {
	t := s.popLocal()
	if t == nil {
		return
	}
	defer runLeftovers(s)
	s.execute(t)
}

// freeSeat gives seat s back, adding busy ticks to the callers' busy time.
func freeSeat(s *slot, busy int64) {
	s.flushStats(busy)
	s.clearBoxes()
	s.tree = 0
	if s.host != nil {
		s.host.visiting, s.host = nil, nil
	}
	guestTable.Release(int(s.id) - guestBase)
}
