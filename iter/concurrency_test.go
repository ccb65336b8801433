package iter

import (
	"context"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/parloop/parloop/par"
)

// gauge counts the calls of a stage running at once, and the most seen.
type gauge struct{ cur, high atomic.Int64 }

func (g *gauge) reset() { g.cur.Store(0); g.high.Store(0) }

func (g *gauge) enter() {
	n := g.cur.Add(1)
	for h := g.high.Load(); n > h && !g.high.CompareAndSwap(h, n); h = g.high.Load() {
	}
}

func (g *gauge) leave() { g.cur.Add(-1) }

// run is a stage's body that takes d.
func (g *gauge) run(d time.Duration) {
	g.enter()
	time.Sleep(d)
	g.leave()
}

// Catches: a streaming pipeline holding more than Window(k) batches of
// items pulled from the source and not yet consumed, counting the batch
// the source is filling (memory that grows with the stream, or a bound
// other than the documented one), or fewer (a window narrower than asked).
func TestWindowBound(t *testing.T) {
	defer noLeaks(t)()
	const window, size, n = 3, 16, 4000
	for _, opts := range [][]Option{nil, {Unordered()}, {Blocking(2)}} {
		var g gauge // items pulled from the source and not yet consumed
		src := func(yield func(int) bool) {
			for i := range n {
				g.enter()
				if !yield(i) {
					return
				}
			}
		}
		seen := 0
		for _, err := range From(src, append(opts, Window(window), Batch(size))...).All() {
			if err != nil {
				t.Fatal(err)
			}
			if seen == 0 {
				// Hold the first item until the source has run as far
				// ahead as the window lets it, and then a while more.
				if !waitFor(func() bool { return g.cur.Load() >= window*size }) {
					t.Fatalf("%v: the source pulled %d items ahead, never the window's %d", opts, g.cur.Load(), window*size)
				}
				time.Sleep(20 * time.Millisecond)
				if c := g.cur.Load(); c != window*size {
					t.Fatalf("%v: %d items pulled ahead of a stalled consumer, want Window*Batch = %d", opts, c, window*size)
				}
			}
			g.leave()
			seen++
		}
		if seen != n {
			t.Fatalf("saw %d items", seen)
		}
		if h := g.high.Load(); h > window*size {
			t.Fatalf("%v: %d items in flight at once, want <= Window*Batch = %d", opts, h, window*size)
		}
		// A reduction releases a batch once it is folded in.
		g.reset()
		c, err := Fold(From(src, append(opts, Window(window), Batch(size))...), func() int { return 0 },
			func(acc *int, _ int) { *acc++; g.leave() }, func(a, b int) int { return a + b })
		if err != nil || c != n {
			t.Fatal(c, err)
		}
		if h := g.high.Load(); h > window*size {
			t.Fatalf("%v: Fold: %d items in flight at once, want <= %d", opts, h, window*size)
		}
	}
}

// waitFor reports whether cond became true within ten seconds.
func waitFor(cond func() bool) bool {
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		if cond() {
			return true
		}
	}
	return cond()
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

// Catches: Blocking not bounding the concurrency of blocking stages.
func TestBlockingBoundsConcurrency(t *testing.T) {
	var g gauge
	// stage sleeps d and records the most stages running at once.
	stage := func(d time.Duration) func(int) int {
		g.reset()
		return func(v int) int {
			g.run(d)
			return v
		}
	}
	err := Map(Range(200, Blocking(5)), stage(100*time.Microsecond)).ForEach(func(int) {})
	if err != nil || g.high.Load() > 5 {
		t.Fatalf("%d stages at once under Blocking(5), %v", g.high.Load(), err)
	}
	// Slow items from a stream spread over the runners rather than
	// queueing in one big batch.
	err = Map(From(count(40), Blocking(4)), stage(2*time.Millisecond)).ForEach(func(int) {})
	if err != nil || g.high.Load() < 2 {
		t.Fatalf("slow items never ran concurrently under Blocking(4): %d, %v", g.high.Load(), err)
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
	p := Map(From(count(100), Unordered(), Blocking(4), Batch(1), Window(32)), func(v int) int {
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

func want0(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

// Catches: a stage's Blocking not bounding that stage, or results
// reordered or lost around it.
func TestStageBlocking(t *testing.T) {
	defer noLeaks(t)()
	var g gauge
	io := func(_ context.Context, v int) (int, error) {
		g.run(500 * time.Microsecond)
		return v + 1, nil
	}
	for _, src := range sources[:3] {
		g.reset()
		q := MapErr(Map(src.make(300), func(v int) int { return 2 * v }), io, Blocking(3))
		q = q.Filter(func(v int) bool { return v%3 != 0 }, Blocking(2))
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
		if h := g.high.Load(); h > 3 || h < 2 {
			t.Fatalf("%s: %d items at once in a Blocking(3) stage", src.name, h)
		}
	}
}

// Catches: On(p) ignored: a streaming pipeline must have one runner per
// worker of p, and an indexed one must run on p.
func TestOnPool(t *testing.T) {
	p := par.NewPool(par.Workers(2))
	defer p.Close()
	var g gauge
	slow := func(v int) int {
		g.run(200 * time.Microsecond)
		return v
	}
	if s, err := Sum(Map(From(count(100), On(p)), slow)); err != nil || s != 4950 || g.high.Load() > 2 {
		t.Fatalf("From on a 2-worker pool: sum %d, %v, %d at once", s, err, g.high.Load())
	}
	if s, err := Sum(Map(Range(100, On(p)), slow)); err != nil || s != 4950 || g.high.Load() > 2 {
		t.Fatalf("Range on a 2-worker pool: sum %d, %v, %d at once", s, err, g.high.Load())
	}
}

// Catches: a sequential source's batches of CPU-bound stages running off
// the pool (on goroutines of their own), or a pipeline with Blocking
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
	s, err := Sum(Map(From(count(100), On(p)), func(v int) int { return v }, Blocking(2)))
	if err != nil || s != 4950 {
		t.Fatalf("From with a Blocking stage: sum %d, %v", s, err)
	}
	if k := p.Stats().Total().Pieces; k != 0 {
		t.Fatalf("a pipeline with Blocking ran %d pieces on the pool", k)
	}
}

// Catches: Blocking not accepted by FlatMap and FlatMapErr, or not bounding
// the bodies of that stage, or values lost or reordered around it.
func TestFlatMapBlocking(t *testing.T) {
	defer noLeaks(t)()
	var g gauge
	expand := func(v int) Seq[int] {
		return func(yield func(int) bool) {
			g.enter()
			defer g.leave()
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
	want := make([]int, 300)
	for i := range want {
		want[i] = i
	}
	for _, src := range sources[:3] {
		for _, form := range []string{"FlatMap", "FlatMapErr"} {
			g.reset()
			var q Pipe[int]
			if form == "FlatMap" {
				q = FlatMap(src.make(100), expand, Blocking(3))
			} else {
				q = FlatMapErr(src.make(100), expandErr, Blocking(3))
			}
			got, err := q.Collect()
			if err != nil || !slices.Equal(got, want) {
				t.Fatalf("%s %s: %d results, %v", src.name, form, len(got), err)
			}
			if h := g.high.Load(); h > 3 || h < 1 {
				t.Fatalf("%s %s: %d bodies at once under Blocking(3)", src.name, form, h)
			}
		}
	}
}
