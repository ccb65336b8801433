package benchpar

import (
	"sync"
	"sync/atomic"
	"testing"
)

func work(x int) (int, error) { return x, nil }

var sink int

// b.RunParallel runs its function on several goroutines at once.
func BenchmarkShared(b *testing.B) {
	var err error
	count := 0
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			sink, err = work(1) // want `testing.B.RunParallel body assigns captured variable sink \(data race\); declare it inside the function`
			count++             // want `testing.B.RunParallel body count\+\+ updates captured variable count`
		}
	})
	_ = err
}

// Per-goroutine state, atomics and locks: not reported.
func BenchmarkOwn(b *testing.B) {
	var mu sync.Mutex
	var n atomic.Int64
	total := 0
	b.RunParallel(func(pb *testing.PB) {
		local := 0
		var err error
		for pb.Next() {
			local, err = work(local)
			n.Add(1)
		}
		_ = err
		mu.Lock()
		total += local
		mu.Unlock()
	})
}

// A worker id drawn from an atomic counter is each goroutine's own: its
// element is written by one goroutine. Not reported; an id that is not
// drawn so is.
func BenchmarkWorkerIDs(b *testing.B) {
	var next atomic.Uint64
	var next32 int32
	s := make([]int, 64)
	t := make([]int, 64)
	u := make([]int, 64)
	b.RunParallel(func(pb *testing.PB) {
		id := next.Add(1) - 1
		s[id] = 1
		id32 := atomic.AddInt32(&next32, 1)
		t[id32] = 1
		cur := next.Load()
		u[cur] = 1 // want `testing.B.RunParallel body writes u\[cur\] in captured u at a position that does not depend on the body's index`
		for pb.Next() {
		}
	})
}
