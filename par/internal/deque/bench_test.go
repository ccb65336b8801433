package deque

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
)

// BenchmarkPushPop measures the owner's fast path: one Push and one Pop on
// a ring that is already big enough, with no thief.
func BenchmarkPushPop(b *testing.B) {
	d := New[int](64)
	x := new(int)
	b.ReportAllocs()
	for b.Loop() {
		d.Push(x)
		d.Pop()
	}
}

// BenchmarkPushPopDepth is the same with 32 elements below, so Pop takes
// the "t < b" path (no CAS) rather than the last-element CAS.
func BenchmarkPushPopDepth(b *testing.B) {
	d := New[int](64)
	x := new(int)
	for range 32 {
		d.Push(x)
	}
	b.ReportAllocs()
	for b.Loop() {
		d.Push(x)
		d.Pop()
	}
}

// BenchmarkPopEmpty measures Pop on an empty deque (the owner's check
// for local work).
func BenchmarkPopEmpty(b *testing.B) {
	d := New[int](2)
	b.ReportAllocs()
	for b.Loop() {
		d.Pop()
	}
}

// BenchmarkSteal measures Steal.
//
//   - uncontended: one goroutine refills the deque and steals from it
//     (the owner may steal), so ns/op is the cost of one Steal that
//     succeeds with no other goroutine touching the deque.
//   - contended: an owner goroutine keeps between 512 and 1024 elements in
//     the deque while GOMAXPROCS thieves (b.RunParallel) steal; one op is
//     one successful steal, including the failed tries before it, which are
//     reported as retries/op and empties/op.
func BenchmarkSteal(b *testing.B) {
	b.Run("uncontended", func(b *testing.B) {
		d := New[int](1024)
		x := new(int)
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			if i == 0 {
				b.StopTimer()
				for range 1024 {
					d.Push(x)
				}
				i = 1024
				b.StartTimer()
			}
			d.Steal()
			i--
		}
	})
	b.Run("contended", func(b *testing.B) {
		d := New[int](2048)
		x := new(int)
		for range 1024 {
			d.Push(x)
		}
		var stop atomic.Bool
		var owner sync.WaitGroup
		owner.Go(func() {
			for !stop.Load() {
				if d.Len() < 512 {
					for range 512 {
						d.Push(x)
					}
				} else {
					runtime.Gosched()
				}
			}
		})
		var retries, empties atomic.Int64
		b.ReportAllocs()
		b.ResetTimer()
		b.RunParallel(func(pb *testing.PB) {
			var r, e int64
			for pb.Next() {
				for {
					x, retry := d.Steal()
					if x != nil {
						break
					}
					if retry {
						r++
					} else {
						// Let the owner refill: on 2 CPUs it
						// shares them with the thieves.
						e++
						runtime.Gosched()
					}
				}
			}
			retries.Add(r)
			empties.Add(e)
		})
		b.StopTimer()
		stop.Store(true)
		owner.Wait()
		b.ReportMetric(float64(retries.Load())/float64(b.N), "retries/op")
		b.ReportMetric(float64(empties.Load())/float64(b.N), "empties/op")
	})
}
