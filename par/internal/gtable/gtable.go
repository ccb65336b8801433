// Package gtable is a lock-free table from goroutine keys to values: par's
// way to find, in O(1) and without a syscall, the worker a goroutine is.
//
// A Table is an open-addressed hash table of (key, value) entries. Lookups
// take no lock; Put and Delete serialise on the table's mutex, and grow it
// by publishing a new array (the old one stays consistent for lookups still
// reading it).
//
// Invariant: a goroutine only looks up its own key, which cannot change
// while it runs, and an entry for a key is put and deleted by that
// goroutine itself. A lookup races only with changes to other keys: a key
// is published after its value (stores of value, then key) and retracted
// before it (key to tombstone, then value to nil), all sequentially
// consistent atomics, so a lookup of its own key never returns a value
// that is not its own. A key that is deleted before its goroutine exits is
// never found again, so a goroutine that reuses the runtime's g is not
// taken for the old one.
package gtable

import (
	"sync"
	"sync/atomic"
	"unsafe"
)

const tombstone = ^uintptr(0)

// Table maps goroutine keys (never 0 or ^0) to pointers. The zero Table is
// empty. It is not generic: a generic Get took a dictionary argument on a
// path every nested call and fork takes.
type Table struct {
	mu   sync.Mutex
	data atomic.Pointer[entries]
}

type entries struct {
	keys []atomic.Uintptr
	vals []atomic.Pointer[byte]
	mask uintptr
	used int // live + tombstones; guarded by Table.mu
}

func hash(k uintptr) uintptr {
	h := uint64(k)
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	return uintptr(h)
}

// Get returns the value put for key k, or nil.
func (t *Table) Get(k uintptr) unsafe.Pointer {
	e := t.data.Load()
	if e == nil {
		return nil
	}
	for i := hash(k) & e.mask; ; i = (i + 1) & e.mask {
		switch e.keys[i].Load() {
		case k:
			return unsafe.Pointer(e.vals[i].Load())
		case 0:
			return nil
		}
	}
}

// Put records v for key k, which has no entry.
func (t *Table) Put(k uintptr, v unsafe.Pointer) {
	t.mu.Lock()
	defer t.mu.Unlock()
	e := t.data.Load()
	if e == nil || 2*(e.used+1) > len(e.keys) {
		e = t.grow(e)
	}
	e.put(k, v)
}

// Delete removes key k's entry, and panics if there is none.
func (t *Table) Delete(k uintptr) {
	t.mu.Lock()
	defer t.mu.Unlock()
	e := t.data.Load()
	for i := hash(k) & e.mask; ; i = (i + 1) & e.mask {
		switch e.keys[i].Load() {
		case k:
			e.keys[i].Store(tombstone) // retract the key before dropping the value
			e.vals[i].Store(nil)
			return
		case 0:
			panic("gtable: Delete of a key that has no entry")
		}
	}
}

func (e *entries) put(k uintptr, v unsafe.Pointer) {
	for i := hash(k) & e.mask; ; i = (i + 1) & e.mask {
		if e.keys[i].Load() == 0 {
			e.vals[i].Store((*byte)(v)) // publish the value before the key
			e.keys[i].Store(k)
			e.used++
			return
		}
	}
}

// grow publishes entries with old's live ones and room for as many again.
// Called under t.mu.
func (t *Table) grow(old *entries) *entries {
	live := 0
	if old != nil {
		for i := range old.keys {
			if k := old.keys[i].Load(); k != 0 && k != tombstone {
				live++
			}
		}
	}
	size := 64
	for size < 4*(live+1) {
		size *= 2
	}
	e := &entries{keys: make([]atomic.Uintptr, size), vals: make([]atomic.Pointer[byte], size), mask: uintptr(size - 1)}
	if old != nil {
		for i := range old.keys {
			if k := old.keys[i].Load(); k != 0 && k != tombstone {
				e.put(k, unsafe.Pointer(old.vals[i].Load()))
			}
		}
	}
	t.data.Store(e)
	return e
}
