package par

import (
	"math/bits"
	"sync/atomic"
)

// Guest seats.
//
// A goroutine that is not a worker and calls a verb borrows one of
// maxGuests global seats for the length of the call. The seat has a deque,
// so the caller runs pieces of its own call and pushes split halves where
// the pool's workers steal them: a small loop finishes on the caller without
// waking anyone. Nested calls made by bodies that the caller runs find the
// seat by the caller's goroutine key and reuse it.
//
// Invariants:
//   - bit i of guestMask is set exactly while seat i is held. Acquire is a
//     CAS that sets the bit; release clears it with And. Both are
//     sequentially consistent, so everything the previous holder did to the
//     seat (free lists, stats) happens before the next holder starts.
//   - a held seat's pool, holder and seatTree (the call tree of the call it
//     is held for) are written by the holder right after acquiring, in that
//     order, before it pushes anything. Every task on a held seat's deque
//     belongs to that tree (a guest pushes only pieces and forks of its own
//     call, nested calls included), and tree ids are unique per seat. A
//     thief reads seatTree, then pool, and steals only tasks of that tree
//     if pool is its own (stealGuest). So it never takes a task of another
//     pool's call: if it matched a task of a newer call, it read that call's
//     seatTree, stored after that call's pool, so its pool check saw the
//     newer pool. (Without the tree, a thief that read the previous holder's
//     pool could steal a piece of the next holder's call on another pool,
//     whose bodies' nested calls then went to the thief's pool: 497 pieces
//     in one run of TestNestedCallWithoutOnUsesWorkersPool under -race.)
//   - a seat's deque is empty when it is released: the holder leaves only
//     after its call is complete and after running whatever else is left in
//     its deque (pieces of other calls that split while it was helping).
//
// When every seat is held (more than maxGuests goroutines calling at once),
// a call runs serially on its caller, which is correct and, with that many
// callers, loses no throughput.
const maxGuests = 64

const guestBase = 1 << 20 // guest seat ids are guestBase+i

var (
	guestMask  atomic.Uint64
	guestSeats [maxGuests]*slot
)

func init() {
	for i := range guestSeats {
		guestSeats[i] = newSlot(nil, int32(guestBase+i), false)
	}
}

// lookupGuest returns the seat held by the goroutine with key k, or nil.
func lookupGuest(k uintptr) *slot {
	for m := guestMask.Load(); m != 0; m &= m - 1 {
		g := guestSeats[bits.TrailingZeros64(m)]
		if g.holder.Load() == k {
			return g
		}
	}
	return nil
}

// acquireGuest takes a free seat for pool p and goroutine k, or returns nil.
func acquireGuest(p *Pool, k uintptr) *slot {
	for {
		m := guestMask.Load()
		if m == ^uint64(0) {
			return nil
		}
		i := bits.TrailingZeros64(^m)
		if guestMask.CompareAndSwap(m, m|1<<i) {
			g := guestSeats[i]
			g.pool = p
			g.stats = &p.callerStats
			if g.guestPool.Load() != p {
				g.guestPool.Store(p)
			}
			g.holder.Store(k)
			// A new call tree: unique among live trees, since the seat is
			// held by one call at a time and counts its calls; published
			// after the pool (see the invariants above).
			g.calls++
			g.tree = g.calls<<8 | uint64(i+1)
			g.seatTree.Store(g.tree)
			if g.calls%resizeCheckCalls == 0 {
				p.maybeResize()
			}
			return g
		}
	}
}

// releaseGuest frees seat s, held since tick t0, and adds the time since to
// the callers' busy time.
func releaseGuest(s *slot, t0 int64) { releaseGuestBusy(s, cputicks()-t0) }

// releaseGuestBusy frees seat s and adds busy ticks to the callers' busy
// time. A seat's deque is invisible to thieves once released, so whatever
// is left in it is run first: pieces of its own call that split while this
// caller was helping (helpUntil steals only those, see isolation in
// steal.go).
func releaseGuestBusy(s *slot, busy int64) {
	defer freeSeat(s, busy)
	runLeftovers(s)
}

// runLeftovers runs what is left in s's deque, each next task from a
// deferred call, so that a Goexit in one cannot strand the rest or the
// seat: an Invoke whose functions all call Goexit has its unwinding join
// cut short by the second Goexit, leaving forked tasks here, and these
// call Goexit too.
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
	s.stats.busyNs.Add(ticksToNs(busy))
	s.flushStats()
	s.dropClosures()
	s.tree = 0
	i := int(s.id) - guestBase
	g := guestSeats[i]
	g.holder.Store(0) // before the bit: a lookup that still sees the bit must not match the old holder
	guestMask.And(^(uint64(1) << i))
}
