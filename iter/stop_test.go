package iter

import (
	"bufio"
	"context"
	"errors"
	"io"
	"runtime"
	"slices"
	"strconv"
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
	for _, opts := range [][]Option{nil, {Unordered()}, {Blocking(2)}, {Batch(1), Window(1)}} {
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
	for _, opts := range [][]Option{nil, {Unordered()}, {Blocking(2)}} {
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
	// Where: the item's source position, the piece of a chunked run, -1
	// for the source and for what a terminal calls once on the caller's
	// goroutine.
	where := func(name string, lo, hi int, f func()) {
		t.Helper()
		defer func() {
			r := recover()
			pe, ok := r.(*par.PanicError)
			if !ok || !errors.Is(pe, errBoom) {
				t.Fatalf("%s: recovered %T %v, want a *par.PanicError wrapping errBoom", name, r, r)
			}
			if pe.Lo != lo || pe.Hi != hi {
				if lo < 0 || pe.Lo > lo || pe.Hi <= lo { // a piece holding lo will do
					t.Fatalf("%s: PanicError over [%d, %d), want [%d, %d)", name, pe.Lo, pe.Hi, lo, hi)
				}
			}
		}()
		f()
	}
	var stopped atomic.Bool
	where("From Collect", 300, 301, func() { Map(From(endless(&stopped, nil)), boom).Collect() })
	where("From Count Blocking", 300, 301, func() { Map(From(endless(&stopped, nil), Blocking(2)), boom).Count() })
	where("From All", 300, 301, func() {
		for range Map(From(endless(&stopped, nil)), boom).All() {
		}
	})
	where("Range Collect", 300, 301, func() { Map(Range(10000), boom).Collect() })
	where("Range Count", 300, 301, func() { Map(Range(10000), boom).Count() })
	where("Range Reduce", 300, 301, func() { Map(Range(10000), boom).Reduce(0, func(a, b int) int { return a + b }) })
	where("source panics", -1, -1, func() {
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
	boomErr := func(_ context.Context, v int) (int, error) { return boom(v), nil }
	where("From", 300, 301, func() { Map(From(count(1000)), boom).Count() })
	where("From Blocking", 300, 301, func() { Map(From(count(1000), Blocking(2)), boom).Collect() })
	where("Range item by item", 300, 301, func() { MapErr(Range(1000), boomErr).Count() })
	where("Range Find", 300, 301, func() { MapErr(Range(1000), boomErr).Find(func(int) bool { return false }) })
	where("Range chunked", 300, 301, func() { Map(Range(1000), boom).Collect() })
	where("source", -1, -1, func() {
		From(func(yield func(int) bool) {
			yield(1)
			panic(errBoom)
		}).Collect()
	})
	add := func(a, b int) int {
		if b == 1 {
			panic(errBoom)
		}
		return a + b
	}
	where("Reduce's combine of batches", -1, -1, func() { From(count(10), Batch(1)).Reduce(0, add) })
	// Only the terminal's last combine has the identity on its left: the
	// leaves' and the joins' combines never panic, however the run is cut.
	where("Reduce's last combine", -1, -1, func() {
		Range(2).Reduce(100, func(a, b int) int {
			if a == 100 {
				panic(errBoom)
			}
			return a + b
		})
	})
	where("Fold's init with no results", -1, -1, func() {
		Fold(From(count(0)), func() int { panic(errBoom) }, func(*int, int) {}, add)
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
	for _, opts := range [][]Option{nil, {Unordered()}, {Blocking(2)}} {
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

// probe is a source of the ints 0..n-1 that counts the items pulled from it.
type probe struct {
	name string
	make func(n int, pulled *atomic.Int64, opts ...Option) Pipe[int]
}

var probes = []probe{
	{"Slice", func(n int, pulled *atomic.Int64, opts ...Option) Pipe[int] {
		// An indexed source is not pulled: an item starts with its first stage.
		return Map(Slice(want0(n), opts...), func(v int) int { pulled.Add(1); return v })
	}},
	{"Range", func(n int, pulled *atomic.Int64, opts ...Option) Pipe[int] {
		return Map(Range(n, opts...), func(v int) int { pulled.Add(1); return v })
	}},
	{"From", func(n int, pulled *atomic.Int64, opts ...Option) Pipe[int] {
		return From(func(yield func(int) bool) {
			for i := range n {
				pulled.Add(1)
				if !yield(i) {
					return
				}
			}
		}, opts...)
	}},
	{"Chan", func(n int, pulled *atomic.Int64, opts ...Option) Pipe[int] {
		c := make(chan int, n)
		for i := range n {
			c <- i
		}
		close(c)
		return Map(Chan(c, opts...), func(v int) int { pulled.Store(int64(n - len(c))); return v })
	}},
	{"Lines", func(n int, pulled *atomic.Int64, opts ...Option) Pipe[int] {
		var b strings.Builder
		for i := range n {
			b.WriteString(strconv.Itoa(i) + "\n")
		}
		r := countingReader{strings.NewReader(b.String()), pulled}
		return Map(Lines(bufio.NewScanner(r), opts...), func(s string) int { v, _ := strconv.Atoi(s); return v })
	}},
}

// countingReader counts the reads from r.
type countingReader struct {
	r     io.Reader
	reads *atomic.Int64
}

func (c countingReader) Read(b []byte) (int, error) {
	c.reads.Add(1)
	return c.r.Read(b)
}

// terminals runs a terminal over p and returns its error.
var terminals = map[string]func(p Pipe[int]) error{
	"ForEach": func(p Pipe[int]) error { return p.ForEach(func(int) {}) },
	"Collect": func(p Pipe[int]) error { _, err := p.Collect(); return err },
	"Reduce":  func(p Pipe[int]) error { _, err := p.Reduce(0, func(a, b int) int { return a + b }); return err },
	"Count":   func(p Pipe[int]) error { _, err := p.Count(); return err },
	"Find":    func(p Pipe[int]) error { _, _, err := p.Find(func(v int) bool { return v < 0 }); return err },
	"All": func(p Pipe[int]) error {
		var last error
		for _, err := range p.All() {
			last = err
		}
		return last
	},
}

// Catches: cancellation that does not follow par.ForErr's rule: a
// context done before the terminal must start no item (nothing pulled from
// the source, no stage called); one cancelled by item k's stage must let
// no later item start (one runner, so the items run in order); the
// terminal returns ctx.Err() unless a function's error came first.
func TestCancelLikeForErr(t *testing.T) {
	defer noLeaks(t)()
	one := par.NewPool(par.Workers(1))
	defer one.Close()
	done, cancel := context.WithCancel(context.Background())
	cancel()
	for _, src := range probes {
		for name, term := range terminals {
			var pulled atomic.Int64
			err := term(src.make(1000, &pulled, Context(done)))
			if !errors.Is(err, context.Canceled) || pulled.Load() != 0 {
				t.Errorf("%s/%s on a done context: %v, %d items pulled; want context.Canceled and none", src.name, name, err, pulled.Load())
			}
		}
	}
	const n, k = 5000, 1234
	for _, src := range probes {
		for _, runner := range []struct {
			name string
			opt  Option
		}{{"OnOneWorker", On(one)}, {"Blocking1", Blocking(1)}} {
			for name, term := range terminals {
				if name == "Find" || name == "Count" {
					continue // as Reduce and ForEach
				}
				for _, errForm := range []bool{false, true} {
					ctx, cancel := context.WithCancel(context.Background())
					var pulled atomic.Int64
					var cancelled atomic.Bool
					var late atomic.Int64           // items begun after the cancel
					var pulledAtCancel atomic.Int64 // items pulled by then
					stage := func(v int) int {
						if cancelled.Load() {
							late.Add(1)
						}
						if v == k {
							cancel()
							cancelled.Store(true)
							pulledAtCancel.Store(pulled.Load())
						}
						return v
					}
					p := src.make(n, &pulled, Context(ctx), runner.opt)
					var q Pipe[int]
					if errForm { // the item path of an indexed source
						q = MapErr(p, func(_ context.Context, v int) (int, error) { return stage(v), nil })
					} else { // the chunked path
						q = Map(p, stage)
					}
					err := term(q)
					cancel()
					if !errors.Is(err, context.Canceled) || late.Load() != 0 {
						t.Errorf("%s/%s/%s/MapErr=%v: %v, %d items begun after the cancel; want context.Canceled and none",
							src.name, runner.name, name, errForm, err, late.Load())
					}
					// The producer may be pulling one item as the
					// cancel comes; it pulls no other.
					if src.name != "Chan" && pulled.Load() > pulledAtCancel.Load()+1 {
						t.Errorf("%s/%s/%s/MapErr=%v: %d items pulled after the cancel",
							src.name, runner.name, name, errForm, pulled.Load()-pulledAtCancel.Load())
					}
				}
			}
		}
	}
	// A function's error that comes before the run has seen the context
	// done is the terminal's; with none, ctx.Err() is.
	for _, fail := range []bool{true, false} {
		ctx, cancel := context.WithCancel(context.Background())
		_, err := MapErr(Range(n, Context(ctx), On(one)), func(_ context.Context, v int) (int, error) {
			if v == k {
				cancel()
				if fail {
					return 0, errBoom
				}
			}
			return v, nil
		}).Collect()
		cancel()
		if want := map[bool]error{true: errBoom, false: context.Canceled}[fail]; !errors.Is(err, want) {
			t.Errorf("cancel, then the function returns %v: %v; want %v", map[bool]error{true: errBoom}[fail], err, want)
		}
	}
}

// Catches: programmer errors that do not panic at the call with a message
// that starts "iter: " and names the call and the argument.
func TestBadInputPanics(t *testing.T) {
	var none context.Context
	id := func(v int) int { return v }
	for want, f := range map[string]func(){
		"iter: Window(0)":                           func() { Window(0) },
		"iter: Batch(0)":                            func() { Batch(0) },
		"iter: Blocking(-1)":                        func() { Blocking(-1) },
		"iter: Context(nil)":                        func() { Context(none) },
		"iter: On(nil)":                             func() { On(nil) },
		"iter: From called with a nil seq":          func() { From[int](nil) },
		"iter: From2 called with a nil seq":         func() { From2[int, int](nil) },
		"iter: Chan called with a nil channel":      func() { Chan[int](nil) },
		"iter: Lines called with a nil scanner":     func() { Lines(nil) },
		"iter: Map called with a nil f":             func() { Map[int, int](Range(1), nil) },
		"iter: MapErr called with a nil f":          func() { MapErr[int, int](Range(1), nil) },
		"iter: Filter called with a nil keep":       func() { Range(1).Filter(nil) },
		"iter: FilterErr called with a nil keep":    func() { Range(1).FilterErr(nil) },
		"iter: FlatMap called with a nil f":         func() { FlatMap[int, int](Range(1), nil) },
		"iter: FlatMapErr called with a nil f":      func() { FlatMapErr[int, int](Range(1), nil) },
		"iter: ForEach called with a nil f":         func() { Range(1).ForEach(nil) },
		"iter: Reduce called with a nil combine":    func() { Range(1).Reduce(0, nil) },
		"iter: Fold called with a nil init":         func() { Fold(Range(1), nil, func(*int, int) {}, func(a, b int) int { return a }) },
		"iter: Fold called with a nil step":         func() { Fold(Range(1), func() int { return 0 }, nil, func(a, b int) int { return a }) },
		"iter: Fold called with a nil merge":        func() { Fold(Range(1), func() int { return 0 }, func(*int, int) {}, nil) },
		"iter: Values called with a nil err":        func() { Range(1).Values(nil) },
		"iter: Find called with a nil pred":         func() { Range(1).Find(nil) },
		"iter: FindAny called with a nil pred":      func() { Range(1).FindAny(nil) },
		"iter: Any called with a nil pred":          func() { Range(1).Any(nil) },
		"iter: Every called with a nil pred":        func() { Range(1).Every(nil) },
		"iter: Hedged called with a nil f":          func() { Hedged[int, int](nil, Hedge{}) },
		"iter: Hedged: {Timeout:-1ns":               func() { Hedged(func(context.Context, int) (int, error) { return 0, nil }, Hedge{Timeout: -1}) },
		"iter: the zero Pipe has no source":         func() { Pipe[int]{}.Count() },
		"iter: Map does not take the Window option": func() { Map(Range(1), id, Window(1)) },
	} {
		if msg := recovered(f); !strings.HasPrefix(msg, want) {
			t.Errorf("recovered %q, want a panic starting %q", msg, want)
		}
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
