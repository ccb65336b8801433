package par

// Finding the current worker.
//
// A body may call a verb (nested parallelism). The nested call must find the
// worker it runs on, in O(1) and without a syscall, to push onto that
// worker's deque instead of blocking the worker's thread. Go has no
// goroutine-local storage, so parloop keys a small lock-free table on the
// identity of the running goroutine:
//
//   - amd64 and arm64: the address of the runtime's g structure, read by a
//     two-instruction assembly function (gkey_amd64.s, gkey_arm64.s), about
//     2 ns. A g is never moved by the GC and belongs to one goroutine for that
//     goroutine's whole life; a worker removes its key before it exits, so a
//     reused g can never be mistaken for a worker.
//   - every other architecture: the goroutine id parsed from the header of
//     runtime.Stack (slowGoroutineKey), about 1 µs. Ids are never reused.
//
// Both keys are non-zero. A goroutine that is not a worker finds no entry
// and takes the external path, which is always correct.

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// slowGoroutineKey returns the running goroutine's id, parsed from the
// "goroutine N [" header that runtime.Stack writes first.
func slowGoroutineKey() uintptr {
	var buf [64]byte
	n := runtime.Stack(buf[:], false)
	b := buf[:n]
	const prefix = "goroutine "
	if len(b) < len(prefix) {
		panic("parloop: unexpected runtime.Stack header")
	}
	var id uintptr
	for _, c := range b[len(prefix):] {
		if c < '0' || c > '9' {
			break
		}
		id = id*10 + uintptr(c-'0')
	}
	if id == 0 {
		panic("parloop: unexpected runtime.Stack header")
	}
	return id
}

// workerTable maps goroutine keys to the slots of running workers.
//
// Invariant: an entry (key, s) is present exactly while the worker goroutine
// with that key runs its loop. Entries are added and removed only under
// workerTableMu by the worker itself; lookups are lock-free. A lookup that
// races with an insert or removal of another key can miss or find that
// other key, never return a wrong slot for its own key, because a key is
// published (Store of s before Store of key) and retracted (Store of key to
// tombstone before s is dropped) by sequentially consistent atomics, and a
// goroutine only ever looks up its own key, which cannot change while it
// runs.
type workerTable struct {
	keys  []atomic.Uintptr
	slots []atomic.Pointer[slot]
	mask  uintptr
	used  int // live + tombstones; guarded by workerTableMu
}

const tombstone = ^uintptr(0)

var (
	workerTableMu  sync.Mutex
	workerTablePtr atomic.Pointer[workerTable]
)

func newWorkerTable(size int) *workerTable {
	return &workerTable{
		keys:  make([]atomic.Uintptr, size),
		slots: make([]atomic.Pointer[slot], size),
		mask:  uintptr(size - 1),
	}
}

func hashKey(k uintptr) uintptr {
	h := uint64(k)
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	return uintptr(h)
}

// lookupWorker returns the worker slot run by the goroutine with key k (the
// caller's own key), or nil.
func lookupWorker(k uintptr) *slot {
	t := workerTablePtr.Load()
	if t == nil {
		return nil
	}
	for i := hashKey(k) & t.mask; ; i = (i + 1) & t.mask {
		switch t.keys[i].Load() {
		case k:
			return t.slots[i].Load()
		case 0:
			return nil
		}
	}
}

// registerWorker records that the running goroutine is the worker of s.
func registerWorker(s *slot) {
	workerTableMu.Lock()
	defer workerTableMu.Unlock()
	t := workerTablePtr.Load()
	if t == nil || 2*(t.used+1) > len(t.keys) {
		t = rehashWorkerTable(t)
	}
	k := goroutineKey()
	for i := hashKey(k) & t.mask; ; i = (i + 1) & t.mask {
		if t.keys[i].Load() == 0 {
			t.slots[i].Store(s) // publish the slot before the key
			t.keys[i].Store(k)
			t.used++
			return
		}
	}
}

// unregisterWorker removes the running goroutine's entry.
func unregisterWorker() {
	workerTableMu.Lock()
	defer workerTableMu.Unlock()
	t := workerTablePtr.Load()
	k := goroutineKey()
	for i := hashKey(k) & t.mask; ; i = (i + 1) & t.mask {
		switch t.keys[i].Load() {
		case k:
			t.keys[i].Store(tombstone) // retract the key before dropping the slot
			t.slots[i].Store(nil)
			return
		case 0:
			panic("parloop: worker was not registered")
		}
	}
}

// rehashWorkerTable builds a table holding the live entries of old with room
// to grow, publishes it, and returns it. Lookups still reading old see a
// consistent (if stale) table, which only matters for keys of other
// goroutines. Called with workerTableMu held.
func rehashWorkerTable(old *workerTable) *workerTable {
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
	t := newWorkerTable(size)
	if old != nil {
		for i := range old.keys {
			k := old.keys[i].Load()
			if k == 0 || k == tombstone {
				continue
			}
			for j := hashKey(k) & t.mask; ; j = (j + 1) & t.mask {
				if t.keys[j].Load() == 0 {
					t.slots[j].Store(old.slots[i].Load())
					t.keys[j].Store(k)
					t.used++
					break
				}
			}
		}
	}
	workerTablePtr.Store(t)
	return t
}
