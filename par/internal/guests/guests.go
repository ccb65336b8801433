// Package guests is the table of par's guest seats: Max seats, which of
// them are held, and by which goroutine. A goroutine from outside a pool
// borrows one for a call, and the calls nested in it find the seat by the
// goroutine's key (par/internal/platform.GoroutineKey, never 0). The table
// holds pointers to the seats, which it never reads: what a seat holds (its
// deque, pool and call tree) is par's.
//
// Invariants:
//   - bit i of the held mask is set exactly while seat i is held. Acquire
//     is a CAS that sets the lowest clear bit, Release clears it with And;
//     both are sequentially consistent, so everything the previous holder
//     did to the seat (its key in the table, and whatever it wrote to the
//     seat itself) happens before the next holder's Acquire returns.
//   - seat i's holder key is written only by the goroutine holding it,
//     while it holds it: Acquire stores the key right after the CAS that
//     set bit i, Release stores 0 before the And that clears it. So a key
//     is never overwritten by an earlier holder's release, and a Lookup
//     that sees bit i reads 0 or the key of a goroutine that holds (or is
//     just taking or giving back) seat i: Lookup(k) returns a seat the
//     goroutine with key k holds, the lowest of them if it holds several
//     (par's calls on another pool from inside a body), or nil for none.
//   - a lookup is by the looking goroutine's own key, which does not change
//     while it runs; a goroutine gives its seats back before it exits, so a
//     goroutine that reuses the runtime's g is not taken for the old one.
//
// The holder keys are packed: a lookup scans the held seats' keys in a few
// cache lines, and a key changes only when its seat is taken or given back,
// as the mask does. Lookups take no lock and no CAS: par runs one on every
// call from outside a pool.
package guests

import (
	"math/bits"
	"sync/atomic"
)

// Max is the number of seats in a Table, one per bit of its mask.
const Max = 64

// Table is Max guest seats of type S and their holders. The zero Table has
// every seat free and none installed (SetSeat). It is generic over the seat
// so that Lookup returns the seat itself: par looks one up on every call
// made outside its workers, where an index would cost a check for none and
// a bounds check more.
type Table[S any] struct {
	mask    atomic.Uint64
	holders [Max]atomic.Uintptr // the holder's goroutine key; 0: free
	seats   [Max]*S
}

// SetSeat installs s as seat i. It is called before the table is shared.
func (t *Table[S]) SetSeat(i int, s *S) { t.seats[i] = s }

// Seat returns seat i.
func (t *Table[S]) Seat(i int) *S { return t.seats[i] }

// Held returns the set of held seats: bit i set while seat i is held.
func (t *Table[S]) Held() uint64 { return t.mask.Load() }

// Lookup returns a seat held by the goroutine with key k, or nil.
func (t *Table[S]) Lookup(k uintptr) *S {
	for m := t.mask.Load(); m != 0; m &= m - 1 {
		i := bits.TrailingZeros64(m)
		if t.holders[i].Load() == k {
			return t.seats[i]
		}
	}
	return nil
}

// Acquire takes the lowest free seat for the goroutine with key k (not 0)
// and returns it and its index, or nil and -1 when every seat is held.
func (t *Table[S]) Acquire(k uintptr) (*S, int) {
	for {
		m := t.mask.Load()
		if m == ^uint64(0) {
			return nil, -1
		}
		i := bits.TrailingZeros64(^m)
		if t.mask.CompareAndSwap(m, m|1<<i) {
			t.holders[i].Store(k)
			return t.seats[i], i
		}
	}
}

// Release gives seat i back. Only its holder calls it, once per Acquire.
func (t *Table[S]) Release(i int) {
	t.holders[i].Store(0) // before the bit: a lookup that still sees the bit must not match the old holder,
	// and the next holder's key must not be overwritten
	t.mask.And(^(uint64(1) << i))
}
