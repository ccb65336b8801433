package gtable

import (
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"unsafe"
)

// Catches: a table that loses entries across a growth, finds a deleted
// key, or returns another key's value: 300 goroutines each put, look up and
// delete their own key while the table grows several times, and readers
// look up every other key meanwhile, which must give that key's value or
// nil, never another's.
func TestStress(t *testing.T) {
	var tab Table
	const n = 300 // several growths from the first 64 entries
	vals := make([]int, n)
	key := func(i int) uintptr { return uintptr(i+1) * 64 }
	var wg sync.WaitGroup
	var wrong atomic.Int32
	stop := make(chan struct{})
	for r := range 2 { // readers of other goroutines' keys
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(r), 1))
			for {
				select {
				case <-stop:
					return
				default:
				}
				i := rng.IntN(n)
				if v := tab.Get(key(i)); v != nil && v != unsafe.Pointer(&vals[i]) {
					wrong.Add(1)
				}
			}
		})
	}
	var owners sync.WaitGroup
	for i := range n {
		owners.Go(func() {
			for range 20 {
				if tab.Get(key(i)) != nil {
					wrong.Add(1)
				}
				tab.Put(key(i), unsafe.Pointer(&vals[i]))
				if tab.Get(key(i)) != unsafe.Pointer(&vals[i]) {
					wrong.Add(1)
				}
				tab.Delete(key(i))
			}
		})
	}
	owners.Wait()
	close(stop)
	wg.Wait()
	if w := wrong.Load(); w != 0 {
		t.Fatalf("%d lookups returned a wrong value", w)
	}
}

// Linearizability, for the operations the scheduler makes: each goroutine
// puts, gets and deletes only its own key, so the history of a key is
// sequential, and every one of its owner's gets must return exactly what
// the owner's last put or delete left, while other owners grow the table.
// A lookup of another goroutine's key may read a table being replaced, so
// it is only checked to return a value that key held at some time up to
// the lookup's end (never one it never held, nor another key's).
func TestLinearizable(t *testing.T) {
	var tab Table
	const keys, changes = 64, 2000
	key := func(i int) uintptr { return uintptr(i+1) * 8 }
	var version [keys]atomic.Int64 // the last change made to each key
	var bad atomic.Int32
	var wg sync.WaitGroup
	for i := range keys {
		wg.Go(func() {
			for c := int64(1); c <= changes; c++ {
				if c%2 == 1 {
					v := c
					tab.Put(key(i), unsafe.Pointer(&v))
					if got := tab.Get(key(i)); got != unsafe.Pointer(&v) {
						bad.Add(1)
					}
				} else {
					tab.Delete(key(i))
					if tab.Get(key(i)) != nil {
						bad.Add(1)
					}
				}
				version[i].Store(c)
			}
		})
	}
	for r := range 2 {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(r), 2))
			for range 200_000 {
				i := rng.IntN(keys)
				got := (*int64)(tab.Get(key(i)))
				after := version[i].Load()
				if got != nil && (*got > after+1 || *got%2 == 0) {
					bad.Add(1)
				}
			}
		})
	}
	wg.Wait()
	if b := bad.Load(); b != 0 {
		t.Fatalf("%d lookups returned what the key never held", b)
	}
}

// FuzzTable runs a sequence of puts, gets and deletes on one goroutine
// against a map.
func FuzzTable(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 0, 1, 2, 3})
	f.Fuzz(func(t *testing.T, ops []byte) {
		var tab Table
		model := map[uintptr]*int{}
		for i, op := range ops {
			k := uintptr(op>>2) + 1
			switch op & 3 {
			case 0, 1:
				if model[k] == nil {
					v := i
					tab.Put(k, unsafe.Pointer(&v))
					model[k] = &v
				}
			case 2:
				if model[k] != nil {
					tab.Delete(k)
					delete(model, k)
				}
			}
			if got := (*int)(tab.Get(k)); got != model[k] {
				t.Fatalf("op %d: Get(%d) = %v, want %v", i, k, got, model[k])
			}
		}
		for k, v := range model {
			if (*int)(tab.Get(k)) != v {
				t.Fatalf("Get(%d) lost its entry", k)
			}
		}
	})
}
