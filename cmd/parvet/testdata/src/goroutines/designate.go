package goroutines

import (
	"sync"
)

type backend struct {
	name      string
	preferred bool
	backup    bool
}

type result struct{ ok bool }

func (b *backend) forward() result { return result{ok: b.name != ""} }

// The shape of loki's querytee: each backend's goroutine records its own
// index when the backend is the preferred one, a predicate of the backend
// alone that the configuration makes true of one backend. Not reported.
func designated(backends []*backend, want string) (int, int) {
	var wg sync.WaitGroup
	preferredIdx, namedIdx := -1, -1
	for i, b := range backends {
		wg.Add(1)
		go func(idx int, be *backend) {
			defer wg.Done()
			if be.preferred {
				preferredIdx = idx
			}
			if be.name == want && !be.backup {
				namedIdx = idx
			}
		}(i, b)
	}
	wg.Wait()
	return preferredIdx, namedIdx
}

// The same assignments under conditions that can hold in several
// iterations, or of values that are not the iteration's own: reported.
func notDesignated(backends []*backend) {
	var wg sync.WaitGroup
	okIdx, otherIdx, orIdx, count, name := -1, -1, -1, 0, ""
	for i, b := range backends {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res := b.forward()
			if res.ok { // a result the body computed
				okIdx = i // want `goroutine started per loop iteration assigns captured variable okIdx`
			}
			if !b.preferred { // all but one
				otherIdx = i // want `goroutine started per loop iteration assigns captured variable otherIdx`
			}
			if b.preferred || b.backup {
				orIdx = i // want `goroutine started per loop iteration assigns captured variable orIdx`
			}
			if b.preferred {
				count++       // want `goroutine started per loop iteration count\+\+ updates captured variable count`
				name = b.name // want `goroutine started per loop iteration assigns captured variable name`
			}
		}()
	}
	wg.Wait()
	_, _, _, _, _ = okIdx, otherIdx, orIdx, count, name
}

type throttle struct{ mu sync.Mutex }

func (t *throttle) attemptToLog() (int, bool) { return 0, t.mu.TryLock() }
func (t *throttle) tryGet() (int, bool)       { return 0, true }

var globalThrottle throttle

// The shape of client-go's TestThrottledLogger: the write happens only
// when a try-acquire on shared state succeeded, which lets one goroutine
// through. Not reported.
func throttled(n int) int {
	logged := 0
	var wg sync.WaitGroup
	for j := 0; j < n; j++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, ok := globalThrottle.attemptToLog(); ok {
				logged++
			}
		}()
	}
	wg.Wait()
	return logged
}

// A try-call that failed, or one on the goroutine's own value, grants
// nothing: reported.
func notThrottled(n int, shared *throttle) (int, int) {
	misses, hits := 0, 0
	var wg sync.WaitGroup
	for j := 0; j < n; j++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, ok := shared.tryGet(); !ok {
				misses++ // want `goroutine started per loop iteration misses\+\+ updates captured variable misses`
			}
			var own throttle
			if _, ok := own.tryGet(); ok {
				hits++ // want `goroutine started per loop iteration hits\+\+ updates captured variable hits`
			}
		}()
	}
	wg.Wait()
	return misses, hits
}

// A semaphore's release in a deferred function and a receive from a
// channel with room for several values order nothing: reported.
func semaphores(xs []int, limit int) (int, int) {
	sem := make(chan struct{}, limit)
	jobs := make(chan int, len(xs))
	var mu sync.Mutex
	total, sum, locked := 0, 0, 0
	var wg sync.WaitGroup
	for _, x := range xs {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			total += x // want `goroutine started per loop iteration updates captured variable total with \+=`
		}()
	}
	for w := 0; w < 4; w++ {
		go func() {
			j := <-jobs
			sum += j // want `goroutine started per loop iteration updates captured variable sum with \+=`
		}()
	}
	// An unlock in a deferred function ends nothing before it: not reported.
	for range xs {
		go func() {
			mu.Lock()
			defer func() { mu.Unlock() }()
			locked++
		}()
	}
	wg.Wait()
	return total, sum + locked
}

// Goroutines started from a function value declared before the loop.
func workers(xs []int, n int) int {
	total := 0
	out := make([]int, n)
	worker := func(id int) {
		own := 0
		own++
		out[id] = own
		total += id // want `goroutine started per loop iteration updates captured variable total with \+=`
	}
	for i := 0; i < n; i++ {
		go worker(i)
	}
	var wg sync.WaitGroup
	last := 0
	body := func() {
		last = len(xs) // want `goroutine started per loop iteration assigns captured variable last`
	}
	for range xs {
		wg.Go(body)
	}
	wg.Wait()
	return total + last
}

// Writes in deferred literals are judged by the locks of that literal, or
// by what the rest of the body holds when it returns.
func deferredWrites(xs []int) map[int]int {
	versions := map[int]int{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	done, held := 0, 0
	for _, x := range xs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				mu.Lock()
				versions[x] = x // the bbolt simulation test's shape: not reported
				mu.Unlock()
				done++ // want `goroutine started per loop iteration done\+\+ updates captured variable done`
			}()
			mu.Lock()
			defer mu.Unlock()
			defer func() { held++ }() // runs before the unlock: not reported
		}()
	}
	wg.Wait()
	_ = done + held
	return versions
}

func check(x int) error { return nil }

// A goroutine started only in the iteration whose map key (or slice index)
// equals a fixed value is started once: its writes are not reported (the
// shape of vitess' InitShardPrimary). The other iterations' goroutines are.
func startedForOne(tablets map[string]int, list []int, primary string) (error, error, error) {
	var primaryErr, replicaErr, firstErr, pickedErr error
	var wg sync.WaitGroup
	for alias, tab := range tablets {
		if alias == primary {
			wg.Add(1)
			go func() {
				defer wg.Done()
				primaryErr = check(tab)
			}()
		} else {
			wg.Add(1)
			go func() {
				defer wg.Done()
				replicaErr = check(tab) // want `goroutine started per loop iteration assigns captured variable replicaErr`
			}()
		}
	}
	for i, x := range list {
		if i == 0 && x > 0 {
			wg.Go(func() { firstErr = check(x) })
		}
	}
	picked := 0
	for i, x := range list {
		if i == picked { // picked changes in the loop: not a fixed value
			wg.Go(func() { pickedErr = check(x) }) // want `goroutine started per loop iteration assigns captured variable pickedErr`
		}
		picked++
	}
	wg.Wait()
	_ = pickedErr
	return primaryErr, replicaErr, firstErr
}
