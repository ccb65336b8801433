package goroutines

import (
	"context"
	"sync"
	"time"
)

// A receive from ctx.Done() or a timer orders nothing between the
// goroutines: the writes after it still race.
func clocks(ctx context.Context, xs []int, tick *time.Ticker) int {
	var wg sync.WaitGroup
	total, count, last := 0, 0, 0
	for _, x := range xs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case <-ctx.Done():
				return
			case <-time.After(time.Millisecond):
			}
			total += x // want `goroutine started per loop iteration updates captured variable total with \+=`
			<-tick.C
			count++ // want `goroutine started per loop iteration count\+\+ updates captured variable count`
		}()
		// Not a join: the loop only looks at the context.
		select {
		case <-ctx.Done():
			return total
		default:
		}
	}
	wg.Wait()

	// A token from a channel the goroutines share does order the writes.
	tokens := make(chan struct{}, 1)
	tokens <- struct{}{}
	for _, x := range xs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case <-ctx.Done():
				return
			case <-tokens:
			}
			last = x
			tokens <- struct{}{}
		}()
	}
	wg.Wait()

	// Joined every iteration by a receive from the goroutine's own channel.
	for _, x := range xs {
		done := make(chan int)
		go func() {
			count = x
			done <- x
		}()
		select {
		case <-ctx.Done():
		case <-done:
		}
	}
	return total + count + last
}
