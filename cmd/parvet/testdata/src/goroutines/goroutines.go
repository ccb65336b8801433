package goroutines

import (
	"context"
	"sync"
	"sync/atomic"

	"golang.org/x/sync/errgroup"
)

func work(x int) int { return x * x }

func positives(ctx context.Context, xs []int) (int, []int, error) {
	var wg sync.WaitGroup
	total := 0
	var results []int
	for _, x := range xs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			total += work(x) // want `goroutine started per loop iteration updates captured variable total with \+= without synchronization \(data race\)`
		}()
	}
	wg.Wait()

	for i := range xs {
		wg.Go(func() {
			results = append(results, work(xs[i])) // want `goroutine started per loop iteration appends to captured slice results`
		})
	}
	wg.Wait()

	var firstErr error
	g, ctx := errgroup.WithContext(ctx)
	for _, x := range xs {
		g.Go(func() error {
			if x < 0 {
				firstErr = ctx.Err() // want `goroutine started per loop iteration assigns captured variable firstErr without synchronization \(data race\); return errors through errgroup or par.ForErr`
			}
			return nil
		})
	}
	_ = g.Wait()
	return total, results, firstErr
}

func negatives(xs []int) []int {
	out := make([]int, len(xs))
	var wg sync.WaitGroup
	var mu sync.Mutex
	total := 0
	for i, x := range xs {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			out[i] = work(x)
			mu.Lock()
			total += out[i]
			mu.Unlock()
		}(i)
	}
	wg.Wait()

	// Joined every iteration: the goroutines never overlap.
	last := 0
	for _, x := range xs {
		done := make(chan struct{})
		go func() {
			last = work(x)
			close(done)
		}()
		<-done
	}

	// A single goroutine, not per iteration.
	go func() { total = 0 }()
	_ = last
	return out
}

type fdMutex struct{}

func (*fdMutex) RWLock(read bool) bool   { return true }
func (*fdMutex) RWUnlock(read bool) bool { return true }

type cleaner struct{}

func (*cleaner) Cleanup(f func()) {}

// Synchronized in ways other than a sync.Mutex: not reported.
func otherSync(n int, l sync.Locker, c *cleaner) {
	var mu fdMutex
	state := 0
	turn := make([]chan bool, n)
	var flag int32
	var data int
	for i := 0; i < n; i++ {
		go func() {
			mu.RWLock(false) // a hand-made lock
			state++
			mu.RWUnlock(false)

			l.Lock() // a sync.Locker
			state--
			l.Unlock()

			c.Cleanup(func() { state = 0 }) // a callback, run when the callee decides

			// Each waits for its turn (a spin on a load) and publishes its
			// write by an atomic store.
			for atomic.LoadInt32(&flag) != int32(i) {
			}
			data = i
			atomic.StoreInt32(&flag, int32(i+1))

			<-turn[i] // token passing: take the token, pass it on
			state++
			turn[(i+1)%n] <- true
		}()
	}
	_ = data
}

// A receive that is not passed on (a start signal, a queue of work) and a
// store that no body waits for keep no two bodies apart: reported.
func notTokens(n int, start chan bool, work chan int) int {
	state, sum, data := 0, 0, 0
	var flag int32
	for i := 0; i < n; i++ {
		go func() {
			<-start
			state++       // want `goroutine started per loop iteration state\+\+ updates captured variable state`
			sum += <-work // want `goroutine started per loop iteration updates captured variable sum with \+=`
			if atomic.LoadInt32(&flag) == 0 {
				data = i // want `goroutine started per loop iteration assigns captured variable data`
				atomic.StoreInt32(&flag, 1)
			}
		}()
	}
	return state + sum + data
}
