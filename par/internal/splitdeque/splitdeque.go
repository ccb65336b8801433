// Package splitdeque implements the split deque of the parloop scheduler:
// private forks and sharing on demand (after Lace's split deque: van Dijk
// and van de Pol, 2014). A fork's task may go on its owner's private
// stack, which thieves never read, instead of the public work-stealing
// deque (par/internal/deque), whose fenced push and pop cost as much as
// the rest of a fork.
//
// Invariant P1: the owner's tasks form one stack; the public deque holds
// the oldest, the private stack the newest. Sharing moves the oldest
// private tasks to the deque's bottom, in order; a split piece, which must
// be stealable at once, first shares everything private ([Deque.PushPublic]).
// So the owner's pops (private first, then the deque) return its tasks
// newest first, which par's fork.go take relies on.
//
// Invariant P2: an owner that holds tasks offers at least one to thieves
// (except at parallelism 1). A push stays private only if the deque is
// non-empty and no thief has asked; otherwise it shares the oldest half of
// the private stack, the new task included when nothing else is private:
// in a recursion, nearly every fork stays private.
//
// Asking. A thief that finds a deque empty sets its want flag
// ([Deque.Ask]); the owner loads it on every push and private pop, and
// shares half when it is set. Thieves store want only when they read it
// false, and the owner clears it only when it shares, so a spinning thief
// does not trade the cache line with the owner on every fork. want, alone
// on its cache line, is the only word here two threads touch besides the
// public deque, and needs no ordering: a stale read delays a share to the
// next push or pop, and a share publishes through the deque.
//
// No work is lost and no sleeper stranded: the owner runs its private
// tasks itself in any case, and every share is a deque push followed by a
// notify (par/internal/sleep). The price of private forks: a worker that
// goes idle while the owner runs a leaf without forking waits for its next
// fork or pop.
//
// Sharing is the owner's to finish: a method that decides a share returns
// k, the number of oldest private tasks to share, and the owner prepares
// those tasks for thieves ([Deque.Oldest]: par stamps each with its call
// tree and pprof labels, which the fast path never reads), moves them to
// the public deque ([Deque.Share]), and notifies. So the split deque calls
// back into nothing, and its fast paths, a private push ([Deque.Push]) and
// a fork taking back its task ([Deque.TakeNewest]), are a few loads and a
// store, inlined into the fork.
package splitdeque

import (
	"sync/atomic"

	"github.com/parloop/parloop/par/internal/deque"
	"golang.org/x/sys/cpu"
)

// Max is the private stack's capacity; a push that finds it full shares
// the oldest half first, except at parallelism 1, where nobody would take
// them, and for a push that asks to grow (a scope's spawn, in par): the
// stack grows instead (until the owner goes idle, [Deque.Trim]), so that a
// burst of spawns, or forks nested deeper than Max at parallelism 1, never
// pays for the deque's fences. (For forks above parallelism 1, sharing the
// oldest half hands thieves the biggest pieces before they ask: growing
// there made quicksort 6% slower, docs/DESIGN.md.)
const Max = 32

// A Deque is one owner's tasks: a public work-stealing deque, which
// thieves steal from, under a private stack of the newest, which only the
// owner touches, and the thieves' want flag. Methods are the owner's
// unless they say otherwise.
type Deque[T any] struct {
	pub *deque.Deque[T]

	// The private stack (Max long, longer once grown), oldest first:
	// priv[:n] are its tasks.
	priv []*T
	n    int
	_    cpu.CacheLinePad
	want atomic.Bool
	_    cpu.CacheLinePad
}

// Init makes d an empty split deque over public deque pub.
func (d *Deque[T]) Init(pub *deque.Deque[T]) {
	d.pub = pub
	d.priv = make([]*T, Max)
}

// Public is the public deque, from which thieves steal (any goroutine).
func (d *Deque[T]) Public() *deque.Deque[T] { return d.pub }

// Push pushes t, the owner's newest task, privately (the fast path) and
// reports true when P2 allows: thieves have a task of d's, or parallelism
// is 1 (solo). Else, or if the private stack is full, it pushes nothing
// and reports false: the owner then pushes t with [Deque.PushShare]. (A
// stack that grew stays grown until the owner goes idle, and its room
// takes any push meanwhile: a branch more here would keep Push from being
// inlined into the fork.)
func (d *Deque[T]) Push(t *T, solo bool) bool {
	n := d.n
	if n >= len(d.priv) || d.want.Load() || !solo && d.pub.Empty() {
		return false
	}
	if d.priv[n] != t { // a recycled task at the same depth: no store, no write barrier
		d.priv[n] = t
	}
	d.n = n + 1
	return true
}

// PushShare is Push's slow path, for a push that must share. It pushes t
// privately and returns k, how many of the oldest private tasks the owner
// must now share for P2 (all of them, t alone, when nothing else was
// private), and pushed true. When the private stack is full it grows for
// a t that may grow it (grow), and for any at parallelism 1 (solo);
// otherwise it pushes nothing and returns the oldest half as k and pushed
// false: the owner shares them and calls PushShare again.
func (d *Deque[T]) PushShare(t *T, solo, grow bool) (k int, pushed bool) {
	n := d.n
	if n == len(d.priv) {
		if !solo && !grow {
			return n / 2, false
		}
		d.priv = append(d.priv, nil)
		d.priv = d.priv[:cap(d.priv)]
	}
	if d.priv[n] != t { // a recycled task at the same depth: no store, no write barrier
		d.priv[n] = t
	}
	d.n = n + 1
	if d.want.Load() || (d.pub.Len() == 0 && !solo) {
		return (n + 2) / 2, true
	}
	return 0, true
}

// PopPrivate pops the owner's newest task if it is private, else returns
// nil: the owner then pops the public deque (P1: private first, then the
// deque). It returns in k how many of the oldest private tasks the owner
// must now share: half of those left when a thief asked.
func (d *Deque[T]) PopPrivate() (t *T, k int) {
	n := d.n - 1
	if n < 0 {
		return nil, 0
	}
	d.n = n
	t = d.priv[n]
	if n > 0 && d.want.Load() {
		return t, (n + 1) / 2
	}
	return t, 0
}

// Newest returns the owner's newest task if it is private, else nil,
// without popping it.
func (d *Deque[T]) Newest() *T {
	if d.n == 0 {
		return nil
	}
	return d.priv[d.n-1]
}

// TakeNewest pops t and reports true if t is the newest task, private, and
// no thief asked for more: a fork's fast way to take back its task.
func (d *Deque[T]) TakeNewest(t *T) bool {
	n := d.n - 1
	if n < 0 || d.priv[n] != t || d.want.Load() {
		return false
	}
	d.n = n
	return true
}

// PushPublic pushes t where thieves can take it, and clears want. The
// owner first shares every private task (P1): it panics if any is left.
func (d *Deque[T]) PushPublic(t *T) {
	if d.n != 0 {
		panic("splitdeque: PushPublic over private tasks")
	}
	d.pub.Push(t)
	d.clearWant()
}

// Oldest returns the k oldest private tasks, oldest first, for the owner
// to prepare before it shares them.
func (d *Deque[T]) Oldest(k int) []*T { return d.priv[:k] }

// Share moves the k oldest private tasks to the public deque, in order
// (P1), and clears want; the owner notifies. The deque's Push publishes
// each task (its store of bottom is the release); nobody else reads the
// private stack.
func (d *Deque[T]) Share(k int) {
	for _, t := range d.priv[:k] {
		d.pub.Push(t)
	}
	d.n = copy(d.priv, d.priv[k:d.n])
	d.clearWant()
}

// Len is the number of tasks d holds, private and public.
func (d *Deque[T]) Len() int { return d.n + d.pub.Len() }

// Private is the number of private tasks.
func (d *Deque[T]) Private() int { return d.n }

// Offers reports whether thieves can take a task of d's and none asked
// for more.
func (d *Deque[T]) Offers() bool { return d.pub.Len() != 0 && !d.want.Load() }

// Trim lets the garbage collector have what the private stack's growth
// beyond Max points to, if it holds no more than Max tasks; the owner
// calls it when it goes idle.
func (d *Deque[T]) Trim() {
	if len(d.priv) > Max && d.n <= Max {
		clear(d.priv[Max:])
	}
}

// clearWant clears want after the owner offered work to thieves.
func (d *Deque[T]) clearWant() {
	if d.want.Load() {
		d.want.Store(false)
	}
}

// Ask tells d's owner that a thief found the public deque empty and wants
// work (any goroutine).
func (d *Deque[T]) Ask() {
	if !d.want.Load() {
		d.want.Store(true)
	}
}

// Asked reports whether a thief asked for work since the owner last
// shared (any goroutine).
func (d *Deque[T]) Asked() bool { return d.want.Load() }
