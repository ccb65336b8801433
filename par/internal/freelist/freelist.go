// Package freelist implements the free lists of the parloop scheduler, by
// which forks, splits and spawns allocate nothing in the steady state: each
// slot keeps the tasks and joins it allocated and got back. Every element
// returns to its home, the owner that allocated it (par's home field says
// which): from another goroutine by a push onto the home's [Remote] list (a
// lock-free stack: CAS to push, and the owner takes the whole list with one
// Swap, so there is no ABA), which the owner drains when its own runs dry.
// The task list is a [List], a slice used as a stack: a fork takes the top
// task and its join puts it back there, so the steady state writes no
// pointer (a GC write barrier while marking). Joins are a [Linked] list,
// threaded through a link field of their own that the caller names (&x.next)
// at each push and pop, so that nothing here calls through an interface.
//
// A List grows as far as a burst needs (a scope's body that spawns a
// thousand tasks before one runs needs a thousand at once). When its owner
// goes idle ([List.Idle]) it keeps [Keep] and hands the rest, as a spare
// list, to a [Spares] pool, from which a list that runs dry takes one
// ([List.TakeSpares], once until its owner next goes idle): a burst of
// spawns allocates only the first time, and the GC can still have the
// spares of a program that no longer spawns.
//
// The owner alone calls a list's methods, but for the pushes onto its
// remote list ([List.PushRemote], [Linked.PushRemote]), which any goroutine
// may make; what the caller clears in an element before it pushes it is the
// caller's.
package freelist

import (
	"sync"
	"sync/atomic"
)

// Keep is how many free elements a List keeps when its owner goes idle.
const Keep = 64

// Remote is a lock-free stack of elements pushed by other goroutines,
// linked through a field of each element, which the owner takes whole.
type Remote[T any] struct{ head atomic.Pointer[T] }

// Push pushes x, linked by next (x's link field), onto r.
func (r *Remote[T]) Push(x *T, next **T) {
	for {
		old := r.head.Load()
		*next = old
		if r.head.CompareAndSwap(old, x) {
			return
		}
	}
}

// Take takes every element off r and returns the first (nil: none), the
// rest linked from it.
func (r *Remote[T]) Take() *T { return r.head.Swap(nil) }

// Spares is a pool of spare lists: the free elements beyond Keep that
// Lists hand over when their owners go idle.
type Spares[T any] struct{ pool sync.Pool }

// spareList is the free elements handed over by one List.
type spareList[T any] struct{ elems []*T }

// List is a free list of *T used as a stack, with its remote list.
type List[T any] struct {
	free        []*T
	spares      *spareList[T] // an empty spare list, kept for the next hand-over
	sparesTried bool          // a spare list was looked for since the owner last went idle
	remote      Remote[T]
}

// Len returns the number of elements on l (not counting its remote list).
func (l *List[T]) Len() int { return len(l.free) }

// Get takes the top element off l; ok is false if l is empty.
func (l *List[T]) Get() (x *T, ok bool) {
	if n := len(l.free); n > 0 {
		x = l.free[n-1]
		l.free = l.free[:n-1]
		return x, true
	}
	return nil, false
}

// Put puts x on top of l. Where x was the top before (a fork's task taken
// and given back), it writes no pointer.
func (l *List[T]) Put(x *T) {
	if n := len(l.free); n == cap(l.free) || l.free[:n+1][n] != x {
		l.free = append(l.free, x)
	} else {
		l.free = l.free[:n+1]
	}
}

// PushRemote pushes x, linked by next, onto l's remote list; any goroutine
// may call it.
func (l *List[T]) PushRemote(x *T, next **T) { l.remote.Push(x, next) }

// TakeRemote takes l's remote list whole, as Remote.Take, for the owner to
// put each element back on l with PutNext.
func (l *List[T]) TakeRemote() *T {
	if l.remote.head.Load() == nil { // no read-modify-write on an empty list
		return nil
	}
	return l.remote.Take()
}

// PutNext puts x, linked by next, on l, clearing its link, and returns the
// element it linked to: for t := l.TakeRemote(); t != nil; t = l.PutNext(t, &t.next) {}
// drains the remote list.
func (l *List[T]) PutNext(x *T, next **T) *T {
	n := *next
	*next = nil
	l.Put(x)
	return n
}

// TakeSpares fills l, if it is empty, with a spare list from sp, if there
// is one and l has not looked for one since its owner last went idle. Its
// elements may be homed elsewhere: the caller rehomes them as it takes them.
func (l *List[T]) TakeSpares(sp *Spares[T]) {
	if len(l.free) != 0 || l.sparesTried {
		return
	}
	l.sparesTried = true
	if s, _ := sp.pool.Get().(*spareList[T]); s != nil {
		l.free = append(l.free, s.elems...)
		clear(s.elems)
		s.elems = s.elems[:0]
		l.spares = s // reused when l next hands spares over
	}
}

// All returns l's free elements, for the owner to drop what they hold
// before Idle: both those l keeps and those it hands over, which another
// list may take and keep.
func (l *List[T]) All() []*T { return l.free }

// Idle is called when l's owner goes idle, after it dropped what the
// elements hold (All): l keeps Keep elements and hands the rest over to sp
// (the pool lets the GC have them if nobody takes them), and may take a
// spare list again.
func (l *List[T]) Idle(sp *Spares[T]) {
	if n := len(l.free); n > Keep {
		s := l.spares
		if s == nil {
			s = new(spareList[T])
		}
		s.elems = append(s.elems, l.free[Keep:]...)
		clear(l.free[Keep:cap(l.free)]) // the stale entries too: they may point at spares
		l.free = l.free[:Keep]
		sp.pool.Put(s)
		l.spares = nil
	}
	l.sparesTried = false
}

// Linked is a free list of *T linked through a field of each element (the
// same field links it on the remote list), with its remote list.
type Linked[T any] struct {
	head   *T
	remote Remote[T]
}

// First returns l's first element, nil if l is empty.
func (l *Linked[T]) First() *T { return l.head }

// TakeRemote takes l's remote list whole and returns its first element,
// which the next Pop takes (nil: none), the rest linked from it.
func (l *Linked[T]) TakeRemote() *T { return l.remote.Take() }

// Pop takes x, which First or TakeRemote returned and whose link field is
// next, off l and clears the link.
func (l *Linked[T]) Pop(next **T) {
	l.head = *next
	*next = nil
}

// Push puts x, linked by next, on l.
func (l *Linked[T]) Push(x *T, next **T) {
	*next = l.head
	l.head = x
}

// PushRemote pushes x, linked by next, onto l's remote list; any goroutine
// may call it.
func (l *Linked[T]) PushRemote(x *T, next **T) { l.remote.Push(x, next) }
