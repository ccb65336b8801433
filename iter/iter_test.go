package iter

import (
	"bufio"
	"context"
	"errors"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/parloop/parloop/par"
)

// source is one way to feed the ints 0..n-1 into a pipeline.
type source struct {
	name string
	make func(n int, opts ...Option) Pipe[int]
	// streaming: pulled in batches (it takes Window and Batch).
	streaming bool
}

var sources = []source{
	{"Slice", func(n int, opts ...Option) Pipe[int] {
		s := make([]int, n)
		for i := range s {
			s[i] = i
		}
		return Slice(s, opts...)
	}, false},
	{"Range", Range, false},
	{"From", func(n int, opts ...Option) Pipe[int] { return From(count(n), opts...) }, true},
	{"From2", func(n int, opts ...Option) Pipe[int] {
		p := From2(func(yield func(int, string) bool) {
			for i := range n {
				if !yield(i, "") {
					return
				}
			}
		}, opts...)
		return Map(p, func(kv Pair[int, string]) int { return kv.Key })
	}, true},
	{"Chan", func(n int, opts ...Option) Pipe[int] {
		// Filled up front: an early exit (Find) must not strand a sender.
		c := make(chan int, n)
		for i := range n {
			c <- i
		}
		close(c)
		return Chan(c, opts...)
	}, true},
	{"Lines", func(n int, opts ...Option) Pipe[int] {
		var b strings.Builder
		for i := range n {
			b.WriteString(strconv.Itoa(i))
			b.WriteByte('\n')
		}
		p := Lines(bufio.NewScanner(strings.NewReader(b.String())), opts...)
		return Map(p, func(s string) int { v, _ := strconv.Atoi(s); return v })
	}, true},
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
	name      string
	opts      []Option
	streaming bool // for the streaming sources only
}{
	{"default", nil, false},
	{"Batch1Window1", []Option{Batch(1), Window(1)}, true},
	{"Batch7Window2", []Option{Batch(7), Window(2)}, true},
	{"Blocking3", []Option{Blocking(3)}, false},
	{"Blocking1Window1", []Option{Blocking(1), Window(1), Batch(3)}, true},
}

// Catches: lost, duplicated or reordered results in any source, option set
// and terminal, against the sequential pipeline.
func TestMatchesSequential(t *testing.T) {
	for _, src := range sources {
		for _, os := range optionSets {
			if os.streaming && !src.streaming {
				continue
			}
			for _, n := range []int{0, 1, 5, longOr(20_000, 1500, 400)} {
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

var errBoom = errors.New("boom")

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
		for _, n := range []int{0, 1, chunkLen - 1, chunkLen, chunkLen + 1, 3*chunkLen + 7, longOr(100_000, 20_000, 4000)} {
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
	for _, n := range []int{0, 5, 3*chunkLen + 1, longOr(100_000, 20_000, 4000)} {
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
	for _, n := range []int{0, 1, chunkLen + 1, longOr(100_000, 20_000, 4000)} {
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

// Catches: a Reduce that is not par.Reduce's ordered left fold: results
// combined out of order (string concatenation does not commute), the
// identity applied more than once or not on the left ("<" is no identity
// of concatenation, so each extra use shows), in every source, option set
// and stage shape (a Map folding in its own loop, a Filter last, a FlatMap
// that runs item by item, Blocking that streams an indexed source).
func TestReduceIsOrderedLeftFold(t *testing.T) {
	defer noLeaks(t)()
	one := par.NewPool(par.Workers(1))
	defer one.Close()
	concat := func(a, b string) string { return a + b }
	shapes := []struct {
		name  string
		pipe  func(Pipe[int]) Pipe[string]
		keeps func(int) bool
	}{
		{"Map", func(p Pipe[int]) Pipe[string] {
			return Map(p, func(v int) string { return strconv.Itoa(v) + "," })
		}, func(int) bool { return true }},
		{"MapFilter", func(p Pipe[int]) Pipe[string] {
			return Map(p, func(v int) string { return strconv.Itoa(v) + "," }).Filter(func(s string) bool { return s[0] != '7' })
		}, func(v int) bool { return strconv.Itoa(v)[0] != '7' }},
		{"FilterMap", func(p Pipe[int]) Pipe[string] {
			return Map(p.Filter(func(v int) bool { return v%3 != 0 }), func(v int) string { return strconv.Itoa(v) + "," })
		}, func(v int) bool { return v%3 != 0 }},
		{"FlatMap", func(p Pipe[int]) Pipe[string] {
			return FlatMap(p, func(v int) Seq[string] { return slices.Values([]string{strconv.Itoa(v) + ","}) })
		}, func(int) bool { return true }},
	}
	for _, src := range sources {
		for _, os := range append(optionSets, struct {
			name      string
			opts      []Option
			streaming bool
		}{"OnOneWorker", []Option{On(one)}, false}) {
			if os.streaming && !src.streaming {
				continue
			}
			for _, sh := range shapes {
				for _, n := range []int{0, 1, chunkLen + 1, longOr(20_000, 2000, 600)} {
					var b strings.Builder
					b.WriteString("<")
					for v := range n {
						if sh.keeps(v) {
							b.WriteString(strconv.Itoa(v) + ",")
						}
					}
					got, err := sh.pipe(src.make(n, os.opts...)).Reduce("<", concat)
					if err != nil || got != b.String() {
						t.Fatalf("%s/%s/%s/%d: Reduce = %.40q... (%d bytes), %v; want %.40q... (%d bytes)",
							src.name, os.name, sh.name, n, got, len(got), err, b.String(), b.Len())
					}
				}
			}
		}
	}
	// Unordered: the order is not kept, so combine must commute; the
	// identity is still applied once.
	for _, src := range sources {
		got, err := Map(src.make(5000, Unordered()), func(v int) int { return v }).Reduce(7, func(a, b int) int { return a + b })
		if err != nil || got != 7+5000*4999/2 {
			t.Fatalf("%s/Unordered: Reduce = %d, %v; want %d", src.name, got, err, 7+5000*4999/2)
		}
	}
}
