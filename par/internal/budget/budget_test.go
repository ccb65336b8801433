package budget

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestTakeTakesWhatIsLeft(t *testing.T) {
	b := New(5)
	if got := b.Take(3); got != 3 {
		t.Fatalf("Take(3) of 5 = %d, want 3", got)
	}
	if got := b.Take(3); got != 2 {
		t.Fatalf("Take(3) of 2 = %d, want 2", got)
	}
	if got := b.Take(1); got != 0 {
		t.Fatalf("Take(1) of 0 = %d, want 0", got)
	}
	if got := b.Take(0); got != 0 {
		t.Fatalf("Take(0) = %d, want 0", got)
	}
}

func TestGoCarriesTheBudgetAndGivesItsTokenBack(t *testing.T) {
	b := New(1)
	if b.Take(1) != 1 {
		t.Fatal("Take(1) of 1 took nothing")
	}
	var seen *Budget
	done := make(chan struct{})
	b.Go(func() { seen = Here(); close(done) })
	<-done
	if seen != b {
		t.Fatalf("Here() in Go's goroutine = %p, want %p", seen, b)
	}
	for b.Free() != 1 { // the token comes back as the goroutine exits
		runtime.Gosched()
	}
	if Here() != nil {
		t.Fatal("Here() on a goroutine that holds no token is not nil")
	}
}

func TestGoGivesTheTokenBackAfterGoexit(t *testing.T) {
	b := New(1)
	b.Take(1)
	b.Go(runtime.Goexit)
	for b.Free() != 1 {
		runtime.Gosched()
	}
}

func TestHoldAndRelease(t *testing.T) {
	b := New(0)
	b.Hold()
	if Here() != b {
		t.Fatal("Here() after Hold is not the held budget")
	}
	Release()
	if Here() != nil {
		t.Fatal("Here() after Release is not nil")
	}
}

// TestNestedTakersNeverExceedTheLimit spends one budget from a tree of
// goroutines, each taking what it can for children and working too, as
// nested blocking calls do: at no time do more goroutines run than the
// limit, the root included.
func TestNestedTakersNeverExceedTheLimit(t *testing.T) {
	const limit = 8
	b := New(limit - 1) // the root holds one token
	var running, peak, started atomic.Int64
	running.Store(1)
	var wg sync.WaitGroup
	var work func(depth int)
	work = func(depth int) {
		if depth == 4 {
			return
		}
		k := b.Take(3)
		wg.Add(k)
		for range k {
			started.Add(1)
			b.Go(func() {
				defer wg.Done()
				r := running.Add(1)
				for p := peak.Load(); r > p && !peak.CompareAndSwap(p, r); p = peak.Load() {
				}
				work(depth + 1)
				running.Add(-1)
			})
		}
		work(depth + 1) // the caller works too
	}
	work(0)
	wg.Wait()
	for b.Free() != limit-1 {
		runtime.Gosched()
	}
	if p := peak.Load(); p > limit {
		t.Fatalf("%d goroutines ran at once, limit %d", p, limit)
	}
	if started.Load() < limit-1 {
		t.Fatalf("only %d goroutines started, want at least %d", started.Load(), limit-1)
	}
}
