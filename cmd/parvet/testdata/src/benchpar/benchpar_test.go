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
