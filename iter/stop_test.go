package iter

import (
	"bufio"
	"context"
	"errors"
	"io"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/parloop/parloop/par"
)

// endless yields 0, 1, 2, ... until told to stop, and records that it was.
func endless(stopped *atomic.Bool, pulled *atomic.Int64) Seq[int] {
	return func(yield func(int) bool) {
		defer stopped.Store(true)
		for i := 0; ; i++ {
			if pulled != nil {
				pulled.Add(1)
			}
			if !yield(i) {
				return
			}
		}
	}
}

// Catches: a break that leaves the producer pulling or runners running, or
// a loop that returns before they stop.
func TestBreakStopsEverything(t *testing.T) {
	defer noLeaks(t)()
	for _, opts := range [][]Option{nil, {Unordered()}, {Limit(2)}, {Batch(1), Window(1)}} {
		var stopped atomic.Bool
		i := 0
		for v, err := range Map(From(endless(&stopped, nil), opts...), func(v int) int { return 2 * v }).All() {
			if err != nil {
				t.Fatal(err)
			}
			if len(opts) == 0 && v != 2*i {
				t.Fatalf("item %d = %d", i, v)
			}
			i++
			if i == 100 {
				break
			}
		}
		if !stopped.Load() {
			t.Fatal("the source was still being pulled after the loop ended")
		}
	}
	// Break out of an indexed source's loop.
	for v := range Range(1 << 40).All() {
		if v == 10 {
			break
		}
	}
}

// Catches: an error that does not stop an endless source, or is not the one
// returned, in every terminal shape.
func TestErrorStops(t *testing.T) {
	defer noLeaks(t)()
	fail := func(_ context.Context, v int) (int, error) {
		if v == 500 {
			return 0, errBoom
		}
		return v, nil
	}
	for _, opts := range [][]Option{nil, {Unordered()}, {Limit(2)}} {
		var stopped atomic.Bool
		if _, err := MapErr(From(endless(&stopped, nil), opts...), fail).Collect(); !errors.Is(err, errBoom) {
			t.Fatalf("Collect: %v", err)
		}
		if !stopped.Load() {
			t.Fatal("source not stopped after an error")
		}
		if _, err := MapErr(From(endless(&stopped, nil), opts...), fail).Count(); !errors.Is(err, errBoom) {
			t.Fatalf("Count: %v", err)
		}
		var last error
		for _, err := range MapErr(From(endless(&stopped, nil), opts...), fail).All() {
			last = err
		}
		if !errors.Is(last, errBoom) {
			t.Fatalf("All ended with %v", last)
		}
		// Indexed sources.
		if _, err := MapErr(Range(1<<40, opts...), fail).Collect(); !errors.Is(err, errBoom) {
			t.Fatalf("Range Collect: %v", err)
		}
		if err := Range(1<<40, opts...).FilterErr(func(_ context.Context, v int) (bool, error) {
			return true, map[bool]error{true: errBoom}[v == 700]
		}).ForEach(func(int) {}); !errors.Is(err, errBoom) {
			t.Fatalf("FilterErr ForEach: %v", err)
		}
		err := FlatMapErr(Range(1<<40, opts...), func(_ context.Context, v int, yield func(int) bool) error {
			if v == 300 {
				return errBoom
			}
			yield(v)
			return nil
		}).ForEach(func(int) {})
		if !errors.Is(err, errBoom) {
			t.Fatalf("FlatMapErr: %v", err)
		}
	}
	// A scanner's error is the pipeline's.
	sc := bufio.NewScanner(io.MultiReader(strings.NewReader("a\nb\n"), iotest{}))
	if n, err := Lines(sc).Count(); !errors.Is(err, errBoom) {
		t.Fatalf("Lines: %d, %v", n, err)
	}
}

type iotest struct{}

func (iotest) Read([]byte) (int, error) { return 0, errBoom }

// Catches: a stage's panic that does not reach the caller as a
// *par.PanicError, or that leaves goroutines behind.
func TestPanicReachesCaller(t *testing.T) {
	defer noLeaks(t)()
	boom := func(v int) int {
		if v == 300 {
			panic(errBoom)
		}
		return v
	}
	check := func(name string, f func()) {
		t.Helper()
		defer func() {
			r := recover()
			pe, ok := r.(*par.PanicError)
			if !ok || !errors.Is(pe, errBoom) {
				t.Fatalf("%s: recovered %T %v, want a *par.PanicError wrapping errBoom", name, r, r)
			}
		}()
		f()
	}
	var stopped atomic.Bool
	check("From Collect", func() { Map(From(endless(&stopped, nil)), boom).Collect() })
	check("From Count Limit", func() { Map(From(endless(&stopped, nil), Limit(2)), boom).Count() })
	check("From All", func() {
		for range Map(From(endless(&stopped, nil)), boom).All() {
		}
	})
	check("Range Collect", func() { Map(Range(10000), boom).Collect() })
	check("Range Count", func() { Map(Range(10000), boom).Count() })
	check("Range Reduce", func() { Map(Range(10000), boom).Reduce(0, func(a, b int) int { return a + b }) })
	check("source panics", func() {
		From(func(yield func(int) bool) {
			for i := 0; ; i++ {
				if i == 300 {
					panic(errBoom)
				}
				if !yield(i) {
					return
				}
			}
		}).Count()
	})
	// A panic in the loop body over All comes out as it is, after the
	// pipeline has stopped.
	func() {
		defer func() {
			if r := recover(); r != errBoom {
				t.Fatalf("loop body panic: recovered %v", r)
			}
		}()
		for v := range From(endless(&stopped, nil)).All() {
			if v == 50 {
				panic(errBoom)
			}
		}
	}()
}

// Catches: a cancelled context that does not stop an endless pipeline, or
// an error other than ctx.Err().
func TestCancelStops(t *testing.T) {
	defer noLeaks(t)()
	for _, opts := range [][]Option{nil, {Unordered()}, {Limit(2)}} {
		ctx, cancel := context.WithCancel(context.Background())
		var stopped atomic.Bool
		var n atomic.Int64
		p := Map(From(endless(&stopped, nil), append(opts, Context(ctx))...), func(v int) int {
			if n.Add(1) == 1000 {
				cancel()
			}
			return v
		})
		if _, err := p.Count(); !errors.Is(err, context.Canceled) {
			t.Fatalf("Count: %v", err)
		}
		if !stopped.Load() {
			t.Fatal("source not stopped after cancel")
		}
		// A stage waiting on the context is woken.
		ctx, cancel = context.WithTimeout(context.Background(), 20*time.Millisecond)
		_, err := MapErr(Range(100, append(opts, Context(ctx))...), func(ctx context.Context, v int) (int, error) {
			<-ctx.Done()
			return 0, ctx.Err()
		}).Collect()
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("MapErr waiting on ctx: %v", err)
		}
	}
}

// Catches: programmer errors that do not panic with a message naming them.
func TestBadInputPanics(t *testing.T) {
	for name, f := range map[string]func(){
		"Window": func() { Window(0) },
		"Batch":  func() { Batch(0) },
		"Limit":  func() { Limit(-1) },
		"Map":    func() { Map[int, int](Range(1), nil) },
		"Filter": func() { Range(1).Filter(nil) },
		"From":   func() { From[int](nil) },
		"zero":   func() { Pipe[int]{}.Count() },
		"ctx":    func() { var none context.Context; Context(none) },
	} {
		func() {
			defer func() {
				if r, _ := recover().(string); !strings.HasPrefix(r, "iter: ") {
					t.Errorf("%s: recovered %q, want an iter: panic", name, r)
				}
			}()
			f()
		}()
	}
}

// Catches: runtime.Goexit in a stage (t.FailNow) that leaves the pipeline's
// goroutines running or lets the terminal return as if all went well.
func TestGoexitEndsCaller(t *testing.T) {
	defer noLeaks(t)()
	for _, mk := range []func() Pipe[int]{
		func() Pipe[int] { var s atomic.Bool; return From(endless(&s, nil)) },
		func() Pipe[int] { return Range(1 << 30) },
	} {
		returned := false
		done := make(chan struct{})
		go func() {
			defer close(done)
			Map(mk(), func(v int) int {
				if v == 100 {
					runtime.Goexit()
				}
				return v
			}).Count()
			returned = true
		}()
		<-done
		if returned {
			t.Fatal("Count returned after a stage called runtime.Goexit")
		}
	}
}

// Catches: Values losing the error, yielding after it, or not stopping on
// break.
func TestValues(t *testing.T) {
	defer noLeaks(t)()
	var err error
	var got []int
	for v := range Map(From(count(1000)), func(v int) int { return v + 1 }).Values(&err) {
		got = append(got, v)
	}
	if err != nil || len(got) != 1000 || got[999] != 1000 {
		t.Fatalf("%d values, %v", len(got), err)
	}
	fail := func(_ context.Context, v int) (int, error) {
		if v == 500 {
			return 0, errBoom
		}
		return v, nil
	}
	got = got[:0]
	for v := range MapErr(Range(1000), fail).Values(&err) {
		got = append(got, v)
	}
	if !errors.Is(err, errBoom) || len(got) > 500 || !slices.Equal(got, want0(len(got))) {
		t.Fatalf("%d values, %v; want at most the 500 before the error, in order", len(got), err)
	}
	err = nil
	var stopped atomic.Bool
	for v := range From(endless(&stopped, nil)).Values(&err) {
		if v == 10 {
			break
		}
	}
	if err != nil || !stopped.Load() {
		t.Fatalf("break: %v, source stopped %v", err, stopped.Load())
	}
}
