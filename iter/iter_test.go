package iter

import (
	"bufio"
	"context"
	"errors"
	"io"
	"maps"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/parloop/parloop/par"
)

// source is one way to feed the ints 0..n-1 into a pipeline.
type source struct {
	name string
	make func(n int, opts ...Option) Pipe[int]
}

var sources = []source{
	{"Slice", func(n int, opts ...Option) Pipe[int] {
		s := make([]int, n)
		for i := range s {
			s[i] = i
		}
		return Slice(s, opts...)
	}},
	{"Range", Range},
	{"From", func(n int, opts ...Option) Pipe[int] { return From(count(n), opts...) }},
	{"From2", func(n int, opts ...Option) Pipe[int] {
		p := From2(func(yield func(int, string) bool) {
			for i := range n {
				if !yield(i, "") {
					return
				}
			}
		}, opts...)
		return Map(p, func(kv Pair[int, string]) int { return kv.Key })
	}},
	{"Chan", func(n int, opts ...Option) Pipe[int] {
		// Filled up front: an early exit (Find) must not strand a sender.
		c := make(chan int, n)
		for i := range n {
			c <- i
		}
		close(c)
		return Chan(c, opts...)
	}},
	{"Lines", func(n int, opts ...Option) Pipe[int] {
		var b strings.Builder
		for i := range n {
			b.WriteString(strconv.Itoa(i))
			b.WriteByte('\n')
		}
		p := Lines(bufio.NewScanner(strings.NewReader(b.String())), opts...)
		return Map(p, func(s string) int { v, _ := strconv.Atoi(s); return v })
	}},
}

func count(n int) Seq[int] {
	return func(yield func(int) bool) {
		for i := 0; i < n; i++ {
			if !yield(i) {
				return
			}
		}
	}
}

// stages is the pipeline under test and its sequential meaning: keep the
// multiples of 3, square them, and emit each square and its negation for the
// odd ones.
func stages(p Pipe[int]) Pipe[int] {
	q := Map(p.Filter(func(v int) bool { return v%3 == 0 }), func(v int) int { return v * v })
	return FlatMap(q, func(v int) Seq[int] {
		if v%2 == 0 {
			return slices.Values([]int{v})
		}
		return slices.Values([]int{v, -v})
	})
}

func want(n int) []int {
	var out []int
	for v := range n {
		if v%3 == 0 {
			v *= v
			out = append(out, v)
			if v%2 != 0 {
				out = append(out, -v)
			}
		}
	}
	return out
}

var optionSets = []struct {
	name string
	opts []Option
}{
	{"default", nil},
	{"Batch1Window1", []Option{Batch(1), Window(1)}},
	{"Batch7Window2", []Option{Batch(7), Window(2)}},
	{"Limit3", []Option{Limit(3)}},
}

// Catches: lost, duplicated or reordered results in any source, option set
// and terminal, against the sequential pipeline.
func TestMatchesSequential(t *testing.T) {
	for _, src := range sources {
		for _, os := range optionSets {
			for _, n := range []int{0, 1, 5, 1000, 5000} {
				name := src.name + "/" + os.name + "/" + strconv.Itoa(n)
				w := want(n)
				mk := func(extra ...Option) Pipe[int] {
					return stages(src.make(n, append(slices.Clone(os.opts), extra...)...))
				}
				got, err := mk().Collect()
				if err != nil || !slices.Equal(got, w) {
					t.Fatalf("%s: Collect = %d items, %v; want %d items in order", name, len(got), err, len(w))
				}
				var seq []int
				for v, err := range mk().All() {
					if err != nil {
						t.Fatalf("%s: All: %v", name, err)
					}
					seq = append(seq, v)
				}
				if !slices.Equal(seq, w) {
					t.Fatalf("%s: All gave %d items, want %d in order", name, len(seq), len(w))
				}
				un, err := mk(Unordered()).Collect()
				slices.Sort(un)
				sw := slices.Sorted(slices.Values(w))
				if err != nil || !slices.Equal(un, sw) {
					t.Fatalf("%s: Unordered Collect is not the same multiset", name)
				}
				var unAll []int
				for v, err := range mk(Unordered()).All() {
					if err != nil {
						t.Fatal(err)
					}
					unAll = append(unAll, v)
				}
				slices.Sort(unAll)
				if !slices.Equal(unAll, sw) {
					t.Fatalf("%s: Unordered All is not the same multiset", name)
				}
				checkReductions(t, name, mk, w)
			}
		}
	}
}

func checkReductions(t *testing.T, name string, mk func(...Option) Pipe[int], w []int) {
	t.Helper()
	sum := 0
	for _, v := range w {
		sum += v
	}
	if c, err := mk().Count(); err != nil || c != len(w) {
		t.Fatalf("%s: Count = %d, %v; want %d", name, c, err, len(w))
	}
	if s, err := Sum(mk()); err != nil || s != sum {
		t.Fatalf("%s: Sum = %d, %v; want %d", name, s, err, sum)
	}
	if s, err := mk().Reduce(0, func(a, b int) int { return a + b }); err != nil || s != sum {
		t.Fatalf("%s: Reduce = %d, %v; want %d", name, s, err, sum)
	}
	var each atomic.Int64
	if err := mk().ForEach(func(v int) { each.Add(int64(v)) }); err != nil || each.Load() != int64(sum) {
		t.Fatalf("%s: ForEach summed %d, %v; want %d", name, each.Load(), err, sum)
	}
	hist, err := Fold(mk(), func() map[int]int { return map[int]int{} },
		func(m *map[int]int, v int) { (*m)[v]++ },
		func(a, b map[int]int) map[int]int {
			for k, v := range b {
				a[k] += v
			}
			return a
		})
	wh := map[int]int{}
	for _, v := range w {
		wh[v]++
	}
	if err != nil || !maps.Equal(hist, wh) {
		t.Fatalf("%s: Fold histogram differs", name)
	}
	lo, okLo, err1 := Min(mk())
	hi, okHi, err2 := Max(mk())
	if len(w) == 0 {
		if okLo || okHi || err1 != nil || err2 != nil {
			t.Fatalf("%s: Min/Max of nothing found something", name)
		}
	} else if lo != slices.Min(w) || hi != slices.Max(w) || !okLo || !okHi || err1 != nil || err2 != nil {
		t.Fatalf("%s: Min, Max = %d, %d; want %d, %d", name, lo, hi, slices.Min(w), slices.Max(w))
	}
	// The first negative result in input order, and any.
	wi := slices.IndexFunc(w, func(v int) bool { return v < 0 })
	neg := func(v int) bool { return v < 0 }
	v, found, err := mk().Find(neg)
	if err != nil || found != (wi >= 0) || (found && v != w[wi]) {
		t.Fatalf("%s: Find = %d, %v, %v; want index %d", name, v, found, err, wi)
	}
	v, found, err = mk().FindAny(neg)
	if err != nil || found != (wi >= 0) || (found && v >= 0) {
		t.Fatalf("%s: FindAny = %d, %v, %v", name, v, found, err)
	}
	if any, err := mk().Any(neg); err != nil || any != (wi >= 0) {
		t.Fatalf("%s: Any = %v, %v", name, any, err)
	}
	if every, err := mk().Every(func(v int) bool { return v >= 0 }); err != nil || every != (wi < 0) {
		t.Fatalf("%s: Every = %v, %v", name, every, err)
	}
}

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

var errBoom = errors.New("boom")

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

// Catches: a streaming pipeline holding more than Window batches (plus the
// one being filled), i.e. memory that grows with the stream.
func TestBoundedInFlight(t *testing.T) {
	const window, size = 3, 16
	for _, opts := range [][]Option{nil, {Unordered()}} {
		var inFlight, high atomic.Int64
		src := func(yield func(int) bool) {
			for i := range 20000 {
				n := inFlight.Add(1)
				for h := high.Load(); n > h && !high.CompareAndSwap(h, n); h = high.Load() {
				}
				if !yield(i) {
					return
				}
			}
		}
		seen := 0
		for v, err := range From(src, append(opts, Window(window), Batch(size))...).All() {
			if err != nil {
				t.Fatal(err)
			}
			_ = v
			inFlight.Add(-1)
			seen++
			if seen%1000 == 0 {
				runtime.Gosched()
			}
		}
		if seen != 20000 {
			t.Fatalf("saw %d items", seen)
		}
		if h := high.Load(); h > (window+1)*size {
			t.Fatalf("%d items in flight at once, want <= (window+1)*batch = %d", h, (window+1)*size)
		}
		// A reduction releases a batch once it is folded in.
		inFlight.Store(0)
		high.Store(0)
		c, err := Fold(From(src, Window(window), Batch(size)), func() int { return 0 },
			func(acc *int, _ int) { *acc++; inFlight.Add(-1) }, func(a, b int) int { return a + b })
		if err != nil || c != 20000 {
			t.Fatal(c, err)
		}
		if h := high.Load(); h > (window+1)*size {
			t.Fatalf("Fold: %d items in flight at once, want <= %d", h, (window+1)*size)
		}
	}
}

// Catches: deadlock or wrong results when stages call par verbs and par
// bodies run pipelines, on the same pool.
func TestNestingWithPar(t *testing.T) {
	inner := func(v int) int {
		return par.Reduce(make([]int, v%50+1), v, func(a, b int) int { return a + b })
	}
	for _, src := range sources {
		got, err := Map(src.make(2000), inner).Collect()
		if err != nil || len(got) != 2000 || got[1999] != 1999 {
			t.Fatalf("%s: par inside stages: %d items, %v", src.name, len(got), err)
		}
	}
	sums := make([]int, 64)
	par.For(len(sums), func(i int) {
		s, err := Sum(Map(From(count(1000)), func(v int) int { return v * i }))
		if err != nil {
			panic(err)
		}
		t, _ := Sum(Range(1000))
		sums[i] = s + t
	})
	for i, s := range sums {
		if s != 499500*i+499500 {
			t.Fatalf("pipeline inside par.For body %d: %d", i, s)
		}
	}
	// Pipelines inside the stages of a pipeline.
	outer, err := Sum(Map(From(count(100)), func(v int) int {
		s, err := Sum(Map(From(count(v)), func(w int) int { return w }))
		if err != nil {
			panic(err)
		}
		return s
	}))
	if err != nil || outer != 161700 {
		t.Fatalf("nested pipelines: %d, %v", outer, err)
	}
}

// Catches: Limit not bounding the concurrency of blocking stages.
func TestLimitBoundsConcurrency(t *testing.T) {
	var cur, high atomic.Int64
	var mu sync.Mutex
	err := Map(Range(200, Limit(5)), func(v int) int {
		n := cur.Add(1)
		mu.Lock()
		high.Store(max(high.Load(), n))
		mu.Unlock()
		time.Sleep(100 * time.Microsecond)
		cur.Add(-1)
		return v
	}).ForEach(func(int) {})
	if err != nil || high.Load() > 5 {
		t.Fatalf("%d stages at once under Limit(5), %v", high.Load(), err)
	}
	// Slow items from a stream spread over the runners rather than
	// queueing in one big batch.
	cur.Store(0)
	high.Store(0)
	err = Map(From(count(40), Limit(4)), func(v int) int {
		n := cur.Add(1)
		mu.Lock()
		high.Store(max(high.Load(), n))
		mu.Unlock()
		time.Sleep(2 * time.Millisecond)
		cur.Add(-1)
		return v
	}).ForEach(func(int) {})
	if err != nil || high.Load() < 2 {
		t.Fatalf("slow items never ran concurrently under Limit(4): %d, %v", high.Load(), err)
	}
}

// Catches: the batch size failing to grow for cheap items or to shrink for
// expensive ones.
func TestSizerAdapts(t *testing.T) {
	var s sizer
	for range 20 {
		n := s.next()
		s.observe(n, time.Duration(n)*10) // 10 ns per item
	}
	if n := s.next(); n != maxBatch {
		t.Fatalf("cheap items: batch %d, want %d", n, maxBatch)
	}
	for range 20 {
		n := s.next()
		s.observe(n, time.Duration(n)*time.Millisecond)
	}
	if n := s.next(); n != 1 {
		t.Fatalf("1 ms items: batch %d, want 1", n)
	}
	f := sizer{fixed: 7}
	if f.next() != 7 {
		t.Fatal("Batch(7) not honoured")
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

// Catches: a channel source that holds a batch back waiting for more items
// that have not come: each item must reach the consumer while the sender
// waits for it to be consumed.
func TestChanDoesNotHoldItems(t *testing.T) {
	defer noLeaks(t)()
	c := make(chan int)
	ack := make(chan int)
	go func() {
		defer close(c)
		for i := range 50 {
			c <- i
			if <-ack != i {
				panic("out of order")
			}
		}
	}()
	for v, err := range Chan(c).All() {
		if err != nil {
			t.Fatal(err)
		}
		ack <- v
	}
}

// Catches: Unordered still holding results back behind a slow item: here
// item 0 waits until 20 later results have reached the consumer, which only
// an unordered pipeline can deliver.
func TestUnorderedDoesNotWait(t *testing.T) {
	defer noLeaks(t)()
	later := make(chan struct{})
	p := Map(From(count(100), Unordered(), Limit(4), Batch(1), Window(32)), func(v int) int {
		if v == 0 {
			select {
			case <-later:
			case <-time.After(10 * time.Second):
				panic("item 0 was never released: later results were held back")
			}
		}
		return v
	})
	seen := 0
	var got []int
	for v, err := range p.All() {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, v)
		if seen++; seen == 20 {
			close(later)
		}
	}
	slices.Sort(got)
	if len(got) != 100 || got[0] != 0 || got[99] != 99 {
		t.Fatalf("got %d results", len(got))
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

func want0(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

// Catches: a stage's Limit not bounding that stage, results reordered or
// lost around it, or an option a stage cannot take being accepted.
func TestStageLimit(t *testing.T) {
	defer noLeaks(t)()
	var cur, high atomic.Int64
	var mu sync.Mutex
	io := func(_ context.Context, v int) (int, error) {
		n := cur.Add(1)
		mu.Lock()
		high.Store(max(high.Load(), n))
		mu.Unlock()
		time.Sleep(500 * time.Microsecond)
		cur.Add(-1)
		return v + 1, nil
	}
	for _, src := range sources[:3] {
		cur.Store(0)
		high.Store(0)
		q := MapErr(Map(src.make(300), func(v int) int { return 2 * v }), io, Limit(3))
		q = q.Filter(func(v int) bool { return v%3 != 0 }, Limit(2))
		got, err := q.Collect()
		var w []int
		for v := range 300 {
			if (2*v+1)%3 != 0 {
				w = append(w, 2*v+1)
			}
		}
		if err != nil || !slices.Equal(got, w) {
			t.Fatalf("%s: %d results, %v", src.name, len(got), err)
		}
		if h := high.Load(); h > 3 || h < 2 {
			t.Fatalf("%s: %d items at once in a Limit(3) stage", src.name, h)
		}
	}
	defer func() {
		if r, _ := recover().(string); !strings.Contains(r, "takes no option but Limit") {
			t.Fatalf("Window on a stage: recovered %q", r)
		}
	}()
	Map(Range(1), func(v int) int { return v }, Window(2))
}

// Catches: On(p) ignored: a streaming pipeline must have one runner per
// worker of p, and an indexed one must run on p.
func TestOnPool(t *testing.T) {
	p := par.NewPool(par.Workers(2))
	defer p.Close()
	var cur, high atomic.Int64
	var mu sync.Mutex
	slow := func(v int) int {
		n := cur.Add(1)
		mu.Lock()
		high.Store(max(high.Load(), n))
		mu.Unlock()
		time.Sleep(200 * time.Microsecond)
		cur.Add(-1)
		return v
	}
	if s, err := Sum(Map(From(count(100), On(p)), slow)); err != nil || s != 4950 || high.Load() > 2 {
		t.Fatalf("From on a 2-worker pool: sum %d, %v, %d at once", s, err, high.Load())
	}
	if s, err := Sum(Map(Range(100, On(p)), slow)); err != nil || s != 4950 || high.Load() > 2 {
		t.Fatalf("Range on a 2-worker pool: sum %d, %v, %d at once", s, err, high.Load())
	}
}

// Catches: a sequential source's batches of CPU-bound stages running off
// the pool (on goroutines of their own), or a pipeline with a Limit
// running on the pool, where its waits would hold the pool's workers.
func TestStreamRunsOnPool(t *testing.T) {
	defer noLeaks(t)()
	p := par.NewPool(par.Workers(2))
	defer p.Close()
	const n = 20000
	for _, src := range []string{"From", "Chan", "Lines"} {
		var mk func(n int, opts ...Option) Pipe[int]
		for _, s := range sources {
			if s.name == src {
				mk = s.make
			}
		}
		p.ResetStats()
		s, err := Sum(Map(mk(n, On(p)), func(v int) int { return v * 2 }))
		if err != nil || s != n*(n-1) {
			t.Fatalf("%s: sum %d, %v", src, s, err)
		}
		if p.Stats().Total().Pieces == 0 {
			t.Fatalf("%s: no batch ran on the pool", src)
		}
	}
	p.ResetStats()
	s, err := Sum(Map(From(count(100), On(p)), func(v int) int { return v }, Limit(2)))
	if err != nil || s != 4950 {
		t.Fatalf("From with a Limit stage: sum %d, %v", s, err)
	}
	if k := p.Stats().Total().Pieces; k != 0 {
		t.Fatalf("a pipeline with a Limit ran %d pieces on the pool", k)
	}
}

// Catches: Limit not accepted by FlatMap and FlatMapErr, or not bounding
// the bodies of that stage, or values lost or reordered around it.
func TestFlatMapLimit(t *testing.T) {
	defer noLeaks(t)()
	var cur, high atomic.Int64
	var mu sync.Mutex
	enter := func() {
		n := cur.Add(1)
		mu.Lock()
		high.Store(max(high.Load(), n))
		mu.Unlock()
	}
	expand := func(v int) Seq[int] {
		return func(yield func(int) bool) {
			enter()
			defer cur.Add(-1)
			for k := range 3 {
				time.Sleep(50 * time.Microsecond)
				if !yield(3*v + k) {
					return
				}
			}
		}
	}
	expandErr := func(_ context.Context, v int, yield func(int) bool) error {
		for u := range expand(v) {
			if !yield(u) {
				break
			}
		}
		return nil
	}
	want := make([]int, 600)
	for i := range want {
		want[i] = i
	}
	for _, src := range sources[:3] {
		for _, form := range []string{"FlatMap", "FlatMapErr"} {
			cur.Store(0)
			high.Store(0)
			var q Pipe[int]
			if form == "FlatMap" {
				q = FlatMap(src.make(200), expand, Limit(3))
			} else {
				q = FlatMapErr(src.make(200), expandErr, Limit(3))
			}
			got, err := q.Collect()
			if err != nil || !slices.Equal(got, want) {
				t.Fatalf("%s %s: %d results, %v", src.name, form, len(got), err)
			}
			if h := high.Load(); h > 3 || h < 1 {
				t.Fatalf("%s %s: %d bodies at once under Limit(3)", src.name, form, h)
			}
		}
	}
	defer func() {
		if r, _ := recover().(string); !strings.Contains(r, "takes no option but Limit") {
			t.Fatalf("Batch on FlatMap: recovered %q", r)
		}
	}()
	FlatMap(Range(1), func(v int) Seq[int] { return nil }, Batch(2))
}

// Catches, in the chunked runs of indexed sources (Filter and Map stages
// only, run a chunk at a time): results lost, doubled or reordered at a
// chunk's or a piece's edge, a Filter that keeps the wrong items, a
// stage's buffer that a later chunk overwrites while still in use, and
// a cancelled context that does not stop the run.
func TestChunkedMatchesSequential(t *testing.T) {
	defer noLeaks(t)()
	chunked := func(p Pipe[int]) Pipe[int] {
		q := Map(p.Filter(func(v int) bool { return v%3 != 1 }), func(v int) int { return 2*v + 1 })
		return Map(q, func(v int) int { return v - 1 }).Filter(func(v int) bool { return v%4 != 2 })
	}
	wantOf := func(n int) []int {
		var w []int
		for v := range n {
			if v%3 != 1 && (2*v)%4 != 2 {
				w = append(w, 2*v)
			}
		}
		return w
	}
	for _, src := range sources[:2] { // Slice and Range
		for _, n := range []int{0, 1, chunkLen - 1, chunkLen, chunkLen + 1, 3*chunkLen + 7, 100_000} {
			name := src.name + "/" + strconv.Itoa(n)
			mk := func(opts ...Option) Pipe[int] { return chunked(src.make(n, opts...)) }
			if p := mk(); !p.chunked() {
				t.Fatalf("%s: a pipeline of Filter and Map stages is not chunked", name)
			}
			w := wantOf(n)
			got, err := mk().Collect()
			if err != nil || !slices.Equal(got, w) {
				t.Fatalf("%s: Collect = %d items, %v; want %d in order", name, len(got), err, len(w))
			}
			checkReductions(t, name, mk, w)
			// On a pool of one worker, a piece is the whole range.
			p := par.NewPool(par.Workers(1))
			got, err = mk(On(p)).Collect()
			p.Close()
			if err != nil || !slices.Equal(got, w) {
				t.Fatalf("%s: Collect on one worker = %d items, %v; want %d", name, len(got), err, len(w))
			}
		}
	}
	// Two Filters, then a Map (which runs in one loop with the second).
	twice := func(n int) Pipe[int] {
		q := Range(n).Filter(func(v int) bool { return v%2 == 0 }).Filter(func(v int) bool { return v%3 != 0 })
		return Map(q, func(v int) int { return v / 2 })
	}
	for _, n := range []int{0, 5, 3*chunkLen + 1, 100_000} {
		var w []int
		for v := range n {
			if v%2 == 0 && v%3 != 0 {
				w = append(w, v/2)
			}
		}
		if got, err := twice(n).Collect(); err != nil || !slices.Equal(got, w) {
			t.Fatalf("Filter, Filter, Map over %d: %d items, %v; want %d", n, len(got), err, len(w))
		}
		checkReductions(t, "Filter/Filter/Map/"+strconv.Itoa(n), func(...Option) Pipe[int] { return twice(n) }, w)
	}
	// A Map straight after the source, folded by Reduce in its loop.
	for _, n := range []int{0, 1, chunkLen + 1, 100_000} {
		got, err := Map(Range(n), func(v int) int { return 3 * v }).Reduce(-1, func(a, b int) int { return max(a, b) })
		if want := 3*n - 3; err != nil || got != max(want, -1) {
			t.Fatalf("Map, Reduce over %d: %d, %v; want %d", n, got, err, want)
		}
	}
	// Strings: results that refer to memory, kept by Collect across chunks.
	words := make([]string, 5000)
	for i := range words {
		words[i] = strconv.Itoa(i)
	}
	got, err := Map(Slice(words), func(s string) string { return s + "!" }).Collect()
	if err != nil || len(got) != len(words) || got[0] != "0!" || got[4999] != "4999!" {
		t.Fatalf("strings: %d items, %v", len(got), err)
	}
	// Cancellation stops an endless chunked run.
	ctx, cancel := context.WithCancel(context.Background())
	var seen atomic.Int64
	err = Map(Range(1<<40, Context(ctx)), func(v int) int {
		if seen.Add(1) == 10_000 {
			cancel()
		}
		return v
	}).ForEach(func(int) {})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled chunked run: %v", err)
	}
	if s := seen.Load(); s > 10_000+64*chunkLen {
		t.Fatalf("%d items mapped after the cancel", s-10_000)
	}
}
