package iter

import (
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/parloop/parloop/par"
)

// straggler returns an f whose first attempt at item slow hangs until its
// context is cancelled (counting the cancellations), and whose other
// attempts return v*10 at once.
func straggler(slow int, cancelled *atomic.Int64) func(context.Context, int) (int, error) {
	var mu sync.Mutex
	tries := map[int]int{}
	return func(ctx context.Context, v int) (int, error) {
		mu.Lock()
		tries[v]++
		first := tries[v] == 1
		mu.Unlock()
		if v == slow && first {
			<-ctx.Done()
			cancelled.Add(1)
			return 0, ctx.Err()
		}
		return v * 10, nil
	}
}

// Catches: a straggler not hedged (the pipeline would hang), a wrong winner,
// or a loser whose context is not cancelled or is not waited for.
func TestHedgeBeatsStraggler(t *testing.T) {
	defer noLeaks(t)()
	for _, h := range []Hedge{{After: 5 * time.Millisecond}, {Quantile: 0.9}} {
		var cancelled atomic.Int64
		start := time.Now()
		got, err := MapErr(Range(200, Blocking(4)), Hedged(straggler(150, &cancelled), h)).Collect()
		if err != nil {
			t.Fatalf("%+v: %v", h, err)
		}
		want := make([]int, 200)
		for i := range want {
			want[i] = i * 10
		}
		if !slices.Equal(got, want) {
			t.Fatalf("%+v: wrong results", h)
		}
		if cancelled.Load() != 1 {
			t.Fatalf("%+v: the straggler's context was cancelled %d times, want once before returning", h, cancelled.Load())
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Fatalf("%+v: took %v", h, d)
		}
	}
}

// Catches: a per-item timeout that does not fire, or hedging that hides
// an item whose every attempt fails.
func TestHedgeTimeoutAndFailure(t *testing.T) {
	defer noLeaks(t)()
	hang := func(ctx context.Context, v int) (int, error) {
		<-ctx.Done()
		return 0, ctx.Err()
	}
	for _, h := range []Hedge{{Timeout: 10 * time.Millisecond}, {Timeout: 10 * time.Millisecond, After: time.Millisecond}} {
		if _, err := MapErr(Range(3), Hedged(hang, h)).Collect(); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("%+v: %v, want DeadlineExceeded", h, err)
		}
	}
	// The first attempt fails only once the backup has started, so that
	// the backup is due however late its timer fires.
	var n atomic.Int64
	backup := make(chan struct{})
	fail := func(context.Context, int) (int, error) {
		if n.Add(1) == 2 {
			close(backup)
		} else {
			select {
			case <-backup:
			case <-time.After(10 * time.Second):
			}
		}
		return 0, errBoom
	}
	if _, err := MapErr(Range(1), Hedged(fail, Hedge{After: time.Millisecond})).Collect(); !errors.Is(err, errBoom) {
		t.Fatalf("both attempts fail: %v", err)
	}
	if n.Load() != 2 {
		t.Fatalf("%d attempts, want a first and a backup", n.Load())
	}
}

// Catches: a panic in an attempt's goroutine that kills the process instead
// of reaching the caller.
func TestHedgePanic(t *testing.T) {
	defer noLeaks(t)()
	defer func() {
		if pe, ok := recover().(*par.PanicError); !ok || !errors.Is(pe, errBoom) {
			t.Fatal("no *par.PanicError wrapping the attempt's panic")
		}
	}()
	MapErr(Range(10), Hedged(func(context.Context, int) (int, error) { panic(errBoom) }, Hedge{After: time.Second})).Collect()
}
