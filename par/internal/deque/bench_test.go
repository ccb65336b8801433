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
//   - uncontended: one goroutine refills the deque (untimed) and steals from
//     it (the owner may steal), so ns/op is the cost of one successful
//     Steal with no other goroutine touching the deque.
//   - contended: in rounds, the owner pushes 16384 elements (untimed), then
//     GOMAXPROCS thieves steal from the same deque until it is empty. One op
//     is one element stolen, so ns/op is the wall time per element with all
//     thieves hitting the same top; failed tries are included in it and
//     reported as retries/op.
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
		const chunk = 16384
		thieves := runtime.GOMAXPROCS(0)
		d := New[int](chunk)
		x := new(int)
		var retries, stolen atomic.Int64
		start := make([]chan struct{}, thieves)
		var round, all sync.WaitGroup
		for i := range start {
			start[i] = make(chan struct{})
			all.Go(func() {
				for range start[i] {
					var r, n int64
					for {
						x, retry := d.Steal()
						if x != nil {
							n++
						} else if retry {
							r++
						} else {
							break
						}
					}
					retries.Add(r)
					stolen.Add(n)
					round.Done()
				}
			})
		}
		b.ReportAllocs()
		b.ResetTimer()
		for done := 0; done < b.N; {
			n := min(chunk, b.N-done)
			b.StopTimer()
			for range n {
				d.Push(x)
			}
			round.Add(thieves)
			b.StartTimer()
			for _, c := range start {
				c <- struct{}{}
			}
			round.Wait()
			done += n
		}
		b.StopTimer()
		for _, c := range start {
			close(c)
		}
		all.Wait()
		if int(stolen.Load()) != b.N {
			b.Fatalf("stole %d of %d", stolen.Load(), b.N)
		}
		b.ReportMetric(float64(retries.Load())/float64(b.N), "retries/op")
	})
}
