package fanout

import (
	"context"
	"strings"
	"sync"
)

// WordCounts merges a map per goroutine into a shared one under a mutex:
// the shape par.Fold is for.
func WordCounts(docs []string) map[string]int { // want WordCounts:"blocks: calls sync\\.WaitGroup\\.Wait"
	counts := map[string]int{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, doc := range docs { // want `fan-out loop \(a goroutine per item and a WaitGroup\) merges its results into counts under mu: rewrite it as par.Fold\(len\(docs\), ...\), which gives each worker its own map and merges them at the end, with no lock per item`
		wg.Add(1)
		go func() {
			defer wg.Done()
			local := map[string]int{}
			for _, w := range strings.Fields(doc) {
				local[w]++
			}
			mu.Lock()
			defer mu.Unlock()
			for w, n := range local {
				counts[w] += n
			}
		}()
	}
	wg.Wait()
	return counts
}

// Total adds to a number under the lock.
func Total(xs []int) int { // want Total:"blocks: calls sync\\.WaitGroup\\.Wait"
	total := 0
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i := range xs { // want `merges its results into total under mu: rewrite it as par.Fold\(len\(xs\), ...\), which gives each worker its own sum`
		wg.Go(func() {
			v := square(xs[i])
			mu.Lock()
			total += v
			mu.Unlock()
		})
	}
	wg.Wait()
	return total
}

// Index sets map elements; the mutex is used after the loop too, so it
// stays declared.
func Index(keys []string) map[string]int { // want Index:"blocks: calls sync\\.WaitGroup\\.Wait"
	var mu sync.Mutex
	idx := make(map[string]int)
	var wg sync.WaitGroup
	for i, k := range keys { // want `merges its results into idx under mu: rewrite it as par.Fold`
		wg.Add(1)
		go func() {
			defer wg.Done()
			mu.Lock()
			idx[k] = i
			mu.Unlock()
		}()
	}
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	return idx
}

// TwoResults merges into two variables under the lock: par.For, the lock
// kept.
func TwoResults(xs []int) (int, []int) { // want TwoResults:"blocks: calls sync\\.WaitGroup\\.Wait"
	var mu sync.Mutex
	sum, seen := 0, []int{}
	var wg sync.WaitGroup
	for _, x := range xs { // want `can be par.For\(len\(xs\), ...\): the body does not block`
		wg.Add(1)
		go func() {
			defer wg.Done()
			mu.Lock()
			sum += x
			seen = append(seen, x)
			mu.Unlock()
		}()
	}
	wg.Wait()
	return sum, seen
}

// EarlyReturn returns before the merge for some items: par.For.
func EarlyReturn(xs []int) int { // want EarlyReturn:"blocks: calls sync\\.WaitGroup\\.Wait"
	var mu sync.Mutex
	total := 0
	var wg sync.WaitGroup
	for _, x := range xs { // want `can be par.For\(len\(xs\), ...\): the body does not block`
		wg.Add(1)
		go func() {
			defer wg.Done()
			if x < 0 {
				return
			}
			mu.Lock()
			total += x
			mu.Unlock()
		}()
	}
	wg.Wait()
	return total
}

// ReadsUnderLock reads the total before adding: par.For.
func ReadsUnderLock(xs []int) int { // want ReadsUnderLock:"blocks: calls sync\\.WaitGroup\\.Wait"
	var mu sync.Mutex
	best := 0
	var wg sync.WaitGroup
	for _, x := range xs { // want `can be par.For\(len\(xs\), ...\): the body does not block`
		wg.Add(1)
		go func() {
			defer wg.Done()
			mu.Lock()
			best = max(best, x)
			mu.Unlock()
		}()
	}
	wg.Wait()
	return best
}

type probe struct {
	name string
	fn   func(ctx context.Context) bool
}

// Probes merges under a mutex, but its body passes a context to a function
// value (a network probe, say): it blocks, so par.For with par.Blocking,
// the lock kept.
func Probes(ctx context.Context, probes []probe) map[string]bool { // want Probes:"blocks: passes a context to p.fn"
	found := map[string]bool{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, p := range probes { // want `whose body blocks \(passes a context to p.fn\): rewrite it as par.For\(len\(probes\), ...\) with par.Blocking\(max\(1, len\(probes\)\)\)`
		wg.Add(1)
		go func() {
			defer wg.Done()
			ok := p.fn(ctx)
			mu.Lock()
			found[p.name] = ok
			mu.Unlock()
		}()
	}
	wg.Wait()
	return found
}
