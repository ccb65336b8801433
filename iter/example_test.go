package iter_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/parloop/parloop/iter"
)

// Stages compose over a slice without intermediate slices; Collect keeps the
// input order.
func ExampleMap() {
	words := []string{"alpha", "beta", "gamma", "delta"}
	long := iter.Slice(words).Filter(func(w string) bool { return len(w) == 5 })
	upper, err := iter.Map(long, strings.ToUpper).Collect()
	fmt.Println(upper, err)
	// Output: [ALPHA GAMMA DELTA] <nil>
}

// A range-over-func loop over a parallel pipeline: results come in input
// order, and a break stops the producer and every stage before the loop
// ends.
func ExamplePipe_All() {
	squares := iter.Map(iter.From(naturals()), func(n int) int { return n * n })
	for v, err := range squares.All() {
		if err != nil {
			fmt.Println(err)
			return
		}
		if v > 50 {
			break
		}
		fmt.Print(v, " ")
	}
	fmt.Println()
	// Output: 0 1 4 9 16 25 36 49
}

// naturals is an endless iter.Seq: 0, 1, 2, ...
func naturals() iter.Seq[int] {
	return func(yield func(int) bool) {
		for i := 0; yield(i); i++ {
		}
	}
}

// Lines of a stream, counted word by word with one map per worker.
func ExampleFold() {
	text := "the cat\nthe dog\nthe end\n"
	words := iter.FlatMap(iter.Lines(bufio.NewScanner(strings.NewReader(text))),
		func(line string) iter.Seq[string] { return strings.FieldsSeq(line) })
	counts, err := iter.Fold(words,
		func() map[string]int { return map[string]int{} },
		func(m *map[string]int, w string) { (*m)[w]++ },
		func(a, b map[string]int) map[string]int {
			for w, n := range b {
				a[w] += n
			}
			return a
		})
	fmt.Println(counts["the"], len(counts), err)
	// Output: 3 4 <nil>
}

// The first error stops the pipeline and is returned.
func ExampleMapErr() {
	parse := func(_ context.Context, s string) (int, error) {
		if s == "x" {
			return 0, errors.New("bad input " + s)
		}
		return len(s), nil
	}
	_, err := iter.MapErr(iter.Slice([]string{"a", "bb", "x", "ccc"}), parse).Collect()
	fmt.Println(err)
	// Output: bad input x
}

// A map's entries, through From2 and maps.All.
func ExampleFrom2() {
	stock := map[string]int{"apples": 3, "pears": 0, "plums": 7}
	total, err := iter.Sum(iter.Map(iter.From2(maps.All(stock)),
		func(kv iter.Pair[string, int]) int { return kv.Val }))
	fmt.Println(total, err)
	// Output: 10 <nil>
}

// Find returns the first match in input order; the items after it stop
// being examined.
func ExamplePipe_Find() {
	v, ok, err := iter.Range(1_000_000).Find(func(n int) bool { return n*n > 1000 })
	fmt.Println(v, ok, err)
	// Output: 32 true <nil>
}

// A lookup whose first attempt at one key stalls: a backup attempt starts
// after 10 ms, wins, and the stalled attempt's context is cancelled.
// Blocking runs the blocking stage off the pool's workers.
func ExampleHedged() {
	var mu sync.Mutex
	tries := map[string]int{}
	lookup := func(ctx context.Context, key string) (int, error) {
		mu.Lock()
		tries[key]++
		first := tries[key] == 1
		mu.Unlock()
		if key == "b" && first {
			<-ctx.Done() // a straggler: it returns only when cancelled
			return 0, ctx.Err()
		}
		return len(key) * 100, nil
	}
	keys := iter.Slice([]string{"a", "b", "cc"}, iter.Blocking(8))
	vals, err := iter.MapErr(keys, iter.Hedged(lookup, iter.Hedge{
		After:   10 * time.Millisecond,
		Timeout: 5 * time.Second,
	})).Collect()
	fmt.Println(vals, err, tries["b"])
	// Output: [100 100 200] <nil> 2
}

// Reduce is the left fold in input order, as par.Reduce is: string
// concatenation, which does not commute, comes out in order, with the
// identity once on the left.
func ExamplePipe_Reduce() {
	parts := iter.From(slices.Values([]string{"par", "al", "lel"}))
	s, err := parts.Reduce(">", func(a, b string) string { return a + b })
	fmt.Println(s, err)
	// Output: >parallel <nil>
}

// A stage that waits (a sleep standing in for a network call) runs off the
// pool's workers, at most four items at once; the results keep their order.
func ExampleBlocking() {
	slowDouble := func(v int) int {
		time.Sleep(time.Millisecond)
		return 2 * v
	}
	out, err := iter.Map(iter.Range(8), slowDouble, iter.Blocking(4)).Collect()
	fmt.Println(out, err)
	// Output: [0 2 4 6 8 10 12 14] <nil>
}
