// Package deque implements the growable work-stealing deque of the parloop
// scheduler: one owner pushes and pops at the bottom, any goroutine steals at
// the top.
//
// The algorithm is that of
//
//   - D. Chase and Y. Lev, "Dynamic Circular Work-Stealing Deque",
//     SPAA 2005, and
//   - N. M. Lê, A. Pop, A. Cohen and F. Zappa Nardelli, "Correct and
//     Efficient Work-Stealing for Weak Memory Models", PPoPP 2013,
//
// Both papers stress points that published deques have got wrong, and this
// code keeps each of them: indices are signed; the owner's Pop stores bottom
// and only then loads top (a store-load fence); a thief loads top, then
// bottom, then the ring, reads the slot before its CAS on top and returns
// what it read; and the owner and the thieves settle the last element by
// the same CAS on top, so it is never taken twice.
//
// Every shared word here (top, bottom, the ring pointer and every slot) is
// accessed only through sync/atomic, and Go's sync/atomic is sequentially
// consistent: all atomic operations of all goroutines appear in one total
// order that respects each goroutine's program order. The SPAA 2005 proof
// assumes exactly that; the PPoPP 2013 paper weakens each ordering as far as
// C11 allows, and every fence it needs is implied here. The comment at each
// atomic operation says which ordering it relies on.
//
// One departure from the papers: when Pop sees exactly one element, the
// owner takes it by the thieves' CAS on top, without reserving it through
// bottom first. That is the thieves' own protocol, so it is as safe as a
// steal, and it saves Pop two stores of bottom in the common case of a
// worker taking back the one task it just pushed.
//
// # Invariants
//
// Let t = top, b = bottom and r = ring, as stored.
//
//  1. top never decreases. It changes only by a successful
//     CompareAndSwap(t, t+1), by a thief or by the owner.
//  2. bottom is written only by the owner. t <= b, except while the
//     owner's Pop has lowered bottom to reserve an element that thieves
//     have meanwhile taken: then t == b+1 for a moment. Readers treat
//     t >= b as empty, and Len clamps at zero.
//  3. The elements of the deque are the indices i with t <= i < b.
//     Element i is in slot i & r.mask of the current ring, and of every
//     ring that a thief can load after loading a bottom greater than i.
//  4. The ring only grows. Only the owner writes slots, and only in the
//     current ring: once a ring has been replaced, nobody writes it again,
//     so a thief holding an old ring reads the values it had when it was
//     replaced. The garbage collector frees old rings.
//  5. A ring never holds more than len(r.slots) elements: the owner grows
//     it before a push would write over slot t & r.mask.
//  6. Each index is taken once. Whoever takes index t == top, a thief or
//     the owner taking the last element, does so by CAS(t, t+1) on top,
//     and top then stays past t. The owner takes an index b > top without
//     a CAS only after the store-load fence of Pop has shown that no
//     thief can take it.
//
// Slots hold *T through atomic.Pointer, so the garbage collector sees them.
// The owner clears the slot of an element it pops (except in a deque made
// by NewRecycled, see there). A thief never writes a
// slot, so a stolen element stays reachable from the ring until the owner
// reuses its slot or the ring is replaced: at most len(ring) stale pointers.
package deque

import (
	"math/bits"
	"sync/atomic"
)

// padSize separates the words that different CPUs write. 128 bytes rather
// than 64 because x86 prefetches cache lines in adjacent pairs and some
// arm64 parts have 128-byte lines; x/sys/cpu.CacheLinePad is only 64 bytes
// on amd64.
const padSize = 128

// maxCapacity bounds New's argument so the rounding cannot overflow.
const maxCapacity int64 = 1 << 62

// hookPoint names a point in the algorithm where testHook is called.
type hookPoint int

const (
	hookStealStart    hookPoint = iota // Steal: before its first load
	hookStealTop                       // Steal: after loading top, before loading bottom
	hookStealIndices                   // Steal: after both index loads, before the ring load
	hookStealSlot                      // Steal: after the slot read, before the CAS
	hookStealWon                       // Steal: after a successful CAS
	hookPopLoaded                      // Pop, two or more elements: after loading top, before storing bottom
	hookPopReserved                    // Pop: after storing bottom, before loading top again
	hookTakeTop                        // Pop, last element: before the CAS on top
	hookGrowCopied                     // Push growing the ring: new ring filled, not yet published
	hookGrowPublished                  // Push growing the ring: new ring published, bottom not yet raised
	hookGrowPushed                     // Push growing the ring: done
	hookCount
)

// testHook is nil except in this package's tests, which set it (while no
// deque is in use) to pause a goroutine at a hookPoint and run other
// operations meanwhile, so that the interleavings that matter are tested
// deterministically rather than by chance. In production each call site
// costs a load and a never-taken branch. No hook sits in Push (only in its
// out-of-line growth path) or before Pop's first stores.
var testHook func(hookPoint)

// ring is a circular array whose length is a power of two.
type ring[T any] struct {
	mask  int64 // len(slots) - 1
	slots []atomic.Pointer[T]
}

func newRing[T any](size int64) *ring[T] {
	return &ring[T]{mask: size - 1, slots: make([]atomic.Pointer[T], size)}
}

// Deque is a growable Chase-Lev work-stealing deque of *T.
//
// One goroutine, the owner, calls Push and Pop; any goroutine may call Steal
// and Len. The zero Deque is not usable; call New.
type Deque[T any] struct {
	// Keeps top off the cache line of whatever precedes the Deque when it
	// is embedded in a larger struct.
	_ [padSize]byte

	// top is the index of the oldest element: thieves (and the owner,
	// for the last element) CAS it forward.
	top atomic.Int64
	_   [padSize - 8]byte

	// bottom is one past the newest element; only the owner writes it.
	// The ring pointer shares bottom's line: it is written only by the
	// owner, rarely, and a thief loads it right after bottom.
	bottom atomic.Int64
	ring   atomic.Pointer[ring[T]]
	// recycled is set by NewRecycled and never changes.
	recycled bool
	_        [padSize - 17]byte
}

// New returns an empty deque whose ring holds capacity elements before it
// first grows. capacity is rounded up to a power of two, minimum 2.
func New[T any](capacity int) *Deque[T] {
	if int64(capacity) > maxCapacity {
		panic("deque: capacity too large")
	}
	size := int64(2)
	if capacity > 2 {
		size = 1 << bits.Len64(uint64(capacity-1))
	}
	d := new(Deque[T])
	// No other goroutine can see d yet; the atomic store is just the only
	// way to write the field.
	d.ring.Store(newRing[T](size))
	return d
}

// NewRecycled returns a deque for elements that the owner recycles (as
// par does with its tasks), where a popped pointer left in its slot keeps
// nothing alive that would not be alive anyway. Pop then leaves slots as
// they are, and Push skips the store when the slot already holds x, which
// is the common case when the same recycled element is pushed again at the
// same depth: a fork's push and pop then cost one atomic read-modify-write
// each (the store of bottom, the CAS on top) instead of two.
func NewRecycled[T any](capacity int) *Deque[T] {
	d := New[T](capacity)
	d.recycled = true
	return d
}

// Push adds x at the bottom. Only the owner may call it, and x must not be
// nil. It grows the ring when the ring is full.
func (d *Deque[T]) Push(x *T) {
	if x == nil {
		panic("deque: Push(nil)")
	}
	// Only the owner writes bottom and ring, so these loads see our own
	// last stores; they are atomic only because thieves access the words.
	b := d.bottom.Load()
	r := d.ring.Load()
	// top may be stale, but it never decreases (invariant 1), so a stale
	// value overstates the size: at worst we grow a ring that had room.
	t := d.top.Load()
	if b-t > r.mask {
		d.pushGrow(x, r, t, b)
		return
	}
	// Index b is not an element yet (b == bottom), so no thief takes it
	// before the store below. A thief with a stale top t' may read slot
	// b & mask as slot t' & mask, but then t' < top (b - top <= mask, so
	// only an index below top shares the slot) and its CAS fails.
	// If the slot holds x already (a recycled element pushed again), the
	// store is skipped: the last store to the slot in the total order is
	// then that earlier store of x, so a thief that reads the slot after
	// loading bottom == b+1 below still reads x. Only the owner writes
	// slots, so nothing can change the slot between this load and the
	// store of bottom.
	if s := &r.slots[b&r.mask]; s.Load() != x {
		s.Store(x)
	}
	// Publishes the element: this store follows the slot store in the
	// total order, so a thief that loads bottom == b+1 then reads x.
	d.bottom.Store(b + 1)
}

// pushGrow is Push when ring r looks full (b - t > r.mask): it copies
// the elements into a ring of twice the size, publishes that ring, and then
// pushes x as Push does. Owner only; kept out of line so Push stays small.
//
//go:noinline
func (d *Deque[T]) pushGrow(x *T, r *ring[T], t, b int64) {
	nr := newRing[T](2 * (r.mask + 1))
	// A fresh top copies fewer stolen elements (harmless either way: an
	// index below top is never taken again).
	if nt := d.top.Load(); nt > t {
		t = nt
	}
	for i := t; i < b; i++ {
		// Only the owner writes slots, so r's slots are stable here;
		// nr is not yet visible to anyone.
		nr.slots[i&nr.mask].Store(r.slots[i&r.mask].Load())
	}
	if testHook != nil {
		testHook(hookGrowCopied)
	}
	// Publishes nr after its slots are filled and before bottom moves
	// past b, so a thief that loads ring after bottom (Steal) finds every
	// index below the bottom it loaded. r is never written again: thieves
	// still reading it see the elements as they were (invariant 4).
	d.ring.Store(nr)
	if testHook != nil {
		testHook(hookGrowPublished)
	}
	// As in Push; b - t < len(nr.slots) now.
	nr.slots[b&nr.mask].Store(x)
	d.bottom.Store(b + 1)
	if testHook != nil {
		testHook(hookGrowPushed)
	}
}

// Pop removes and returns the element at the bottom, or nil if the deque is
// empty. Only the owner may call it.
func (d *Deque[T]) Pop() *T {
	// Owner's own words (see Push).
	b := d.bottom.Load()
	r := d.ring.Load()
	// top never decreases and only we raise bottom, so if top >= bottom
	// now, the deque stays empty at least until our next Push.
	t := d.top.Load()
	if t >= b {
		return nil
	}
	if t == b-1 {
		// One element, which is at both ends: take it exactly as a
		// thief would (see Steal), by moving top from t to t+1 == b.
		// Thieves are safe against each other, and nobody else moves
		// bottom, so this is safe too. It leaves top == bottom, so the
		// deque is empty either way, and it saves the two stores of
		// bottom that the general path below needs.
		return d.takeTop(r, t)
	}
	// At least two elements when we loaded top. Reserve index b-1 before
	// loading top again. This store-load pair is the fence of the
	// algorithm: a thief that loads bottom after our store sees b-1 and
	// will not take index b-1; a thief that loaded the old bottom did so
	// before our store, so it loaded top before our load below, and got
	// no more than we get.
	if testHook != nil {
		testHook(hookPopLoaded)
	}
	b--
	d.bottom.Store(b)
	if testHook != nil {
		testHook(hookPopReserved)
	}
	t = d.top.Load()
	if t > b {
		// Empty: thieves took all the rest since our first load, so
		// t == b+1. Undo the reservation: bottom = top again.
		d.bottom.Store(b + 1)
		return nil
	}
	x := r.slots[b&r.mask].Load()
	if t < b {
		// At least one other element lies between top and b. A thief
		// could take index b only with a top of b loaded before our
		// store of bottom, hence before our load of top, which would
		// have returned at least b. So index b is ours alone, and
		// clearing the slot races with no winning thief (a thief with a
		// stale top may read the cleared slot, but its CAS fails).
		if !d.recycled {
			r.slots[b&r.mask].Store(nil)
		}
		return x
	}
	// t == b: thieves took all but the last element meanwhile, and some
	// that loaded the old bottom and top == b may be racing for it:
	// whoever moves top from b to b+1 owns it.
	if testHook != nil {
		testHook(hookTakeTop)
	}
	won := d.top.CompareAndSwap(t, t+1)
	// Either way top is now b+1, so restoring bottom empties the deque.
	// The restore must follow the CAS. Until then our reservation hides
	// index b from thieves, so one may have reported the deque empty;
	// restoring first would let another thief take b after that report
	// while we return nil, which no sequential order explains
	// (TestSchedulesExhaustive finds that order).
	d.bottom.Store(b + 1)
	// As in takeTop: whoever won has read the slot; it is dead.
	if !d.recycled {
		r.slots[b&r.mask].Store(nil)
	}
	if !won {
		return nil
	}
	return x
}

// takeTop is the owner taking element t, the only one, by the same CAS on
// top as a thief; it then clears the slot. It returns nil if a thief won.
func (d *Deque[T]) takeTop(r *ring[T], t int64) *T {
	// The owner wrote slot t and no one else writes slots, so reading it
	// before or after the CAS gives the same value.
	x := r.slots[t&r.mask].Load()
	if testHook != nil {
		testHook(hookTakeTop)
	}
	won := d.top.CompareAndSwap(t, t+1)
	// Either way top is now past t (invariant 1): whoever won has already
	// read the slot (a thief reads before its CAS) and every later CAS
	// for index t fails, so the slot is dead and we may clear it.
	if !d.recycled {
		r.slots[t&r.mask].Store(nil)
	}
	if !won {
		return nil
	}
	return x
}

// Steal removes and returns the element at the top. Any goroutine may call
// it. It returns (nil, false) if the deque was empty and (nil, true) if it
// lost a race for an element with another thief or with the owner; trying
// again may then succeed. Steal never writes a slot and never allocates.
func (d *Deque[T]) Steal() (x *T, retry bool) {
	if testHook != nil {
		testHook(hookStealStart)
	}
	// top first, then bottom: if we saw a bottom from before the owner's
	// Pop reserved index t, the owner's later load of top sees at least t
	// and takes index t only by CAS (see Pop).
	t := d.top.Load()
	if testHook != nil {
		testHook(hookStealTop)
	}
	b := d.bottom.Load()
	if t >= b {
		return nil, false
	}
	if testHook != nil {
		testHook(hookStealIndices)
	}
	// Ring after top and bottom, as in the papers. Element t was pushed
	// before our load of bottom returned b > t, so the ring loaded now is
	// the one it was written into or a newer one, and each newer ring was
	// filled from a top no greater than t (or top has passed t and our
	// CAS below fails), so it holds element t too (invariant 3). Loading
	// the ring before top is the "missed reload after a resize" bug: t
	// may then be an index that only a newer ring holds.
	r := d.ring.Load()
	// Read before the CAS: once top moves past t, the owner may reuse or
	// clear slot t. If the CAS below succeeds, top was still t, so the
	// slot held element t when we read it (invariants 4 and 5).
	x = r.slots[t&r.mask].Load()
	if testHook != nil {
		testHook(hookStealSlot)
	}
	// Claims index t. Failure means another thief, or the owner popping
	// the last element, claimed it first.
	if !d.top.CompareAndSwap(t, t+1) {
		return nil, true
	}
	if testHook != nil {
		testHook(hookStealWon)
	}
	if x == nil {
		// Impossible by the invariants; fail loudly rather than report
		// a lost element as an empty deque.
		panic("deque: stole an empty slot")
	}
	return x, false
}

// StealIf is Steal for a thief that takes only elements for which match
// returns true: it looks at the element at the top and claims it only if
// match accepts it. It returns (nil, false) if the deque was empty or its
// top element was refused, and (nil, true) if it lost a race (then the top
// element may have changed, and trying again may succeed). match is called
// on an element the thief does not own yet, so it may read only what the
// element's owner publishes atomically; if the claim succeeds, the element
// was at the top, unchanged, when match looked at it.
func (d *Deque[T]) StealIf(match func(*T) bool) (x *T, retry bool) {
	t := d.top.Load()
	b := d.bottom.Load()
	if t >= b {
		return nil, false
	}
	r := d.ring.Load()
	x = r.slots[t&r.mask].Load()
	if x == nil || !match(x) {
		// Refused, or read from a slot that index t no longer owns. If top
		// has not moved, index t still held x (as in Steal: slot t is not
		// rewritten while t is an element), so the top element really was
		// refused; else we lost a race.
		return nil, d.top.Load() != t
	}
	if !d.top.CompareAndSwap(t, t+1) {
		return nil, true
	}
	return x, false
}

// Top returns the index of the oldest element, for thieves. It never
// decreases and grows by one with each element taken from the top, so two
// equal reads tell a thief that the oldest element stayed in place between
// them.
func (d *Deque[T]) Top() int64 { return d.top.Load() }

// Len returns the number of elements. Any goroutine may call it. The value
// is a snapshot that may be stale by the time it is used; it is never
// negative.
func (d *Deque[T]) Len() int {
	// Two separate loads, so the result mixes two moments: it may be
	// stale in either direction, which a snapshot may be. The owner's
	// Pop can make bottom = top-1 for a moment; hence the clamp.
	t := d.top.Load()
	b := d.bottom.Load()
	if b <= t {
		return 0
	}
	return int(b - t)
}

// Empty reports whether the deque holds no element, as Len() == 0 does,
// and may be as stale; it is cheaper to inline, for the owner's check on a
// fork's fast path (par/internal/splitdeque). Any goroutine may call it.
func (d *Deque[T]) Empty() bool {
	return d.bottom.Load() <= d.top.Load()
}
