package bench

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"testing"

	pargo "github.com/exascience/pargo/sort"
	"github.com/jfcg/sorty/v2"
	"github.com/parloop/parloop/pslices"
)

// The pslices benchmarks: each sub-benchmark sorts (or searches, or scans)
// a fresh copy of one input, made once per process, so that A and B in one
// -count round see the same data. The copy is outside the timer. Peers:
// slices (the sequential base), github.com/jfcg/sorty/v2 (parallel
// quicksort on goroutines, MaxGor set to GOMAXPROCS) and
// github.com/exascience/pargo/sort (parallel quicksort and merge sort).

var pslicesInts = sync.OnceValue(func() []int {
	r := rand.New(rand.NewPCG(1, 2))
	x := make([]int, 10_000_000)
	for i := range x {
		x[i] = r.Int()
	}
	return x
})

// sortInput returns n ints of a shape: random, sorted, reversed or few
// (ten distinct values).
func sortInput(shape string, n int) []int {
	x := slices.Clone(pslicesInts()[:n])
	switch shape {
	case "sorted":
		slices.Sort(x)
	case "reversed":
		slices.Sort(x)
		slices.Reverse(x)
	case "few":
		for i := range x {
			x[i] %= 10
		}
	}
	return x
}

// sortPeers are the ways to sort []int that the sort benchmarks compare.
var sortPeers = []struct {
	name string
	sort func([]int)
}{
	{"slices", func(x []int) { slices.Sort(x) }},
	{"pslices", func(x []int) { pslices.Sort(x) }},
	{"sorty", func(x []int) { sorty.MaxGor = uint64(runtime.GOMAXPROCS(0)); sorty.SortSlice(x) }},
	{"pargo", func(x []int) { pargo.Sort(pargo.IntSlice(x)) }},
}

// benchSorted times sort on copies of in.
func benchSorted[E any](b *testing.B, in []E, sort func([]E)) {
	x := make([]E, len(in))
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		copy(x, in)
		b.StartTimer()
		sort(x)
	}
}

// BenchmarkSortInts sorts random ints at 10^4 to 10^7 with every peer.
func BenchmarkSortInts(b *testing.B) {
	for _, n := range []int{10_000, 100_000, 1_000_000, 10_000_000} {
		in := sortInput("random", n)
		for _, p := range sortPeers {
			b.Run(fmt.Sprintf("n=%d/%s", n, p.name), func(b *testing.B) { benchSorted(b, in, p.sort) })
		}
	}
}

// BenchmarkSort10M is Sort of 10M random ints against slices.Sort: the
// 16-core target's benchmark.
func BenchmarkSort10M(b *testing.B) {
	in := sortInput("random", 10_000_000)
	for _, p := range sortPeers[:2] {
		b.Run(p.name, func(b *testing.B) { benchSorted(b, in, p.sort) })
	}
}

// BenchmarkSortShapes sorts 1M ints that are sorted, reversed or have ten
// distinct values.
func BenchmarkSortShapes(b *testing.B) {
	for _, shape := range []string{"sorted", "reversed", "few"} {
		in := sortInput(shape, 1_000_000)
		for _, p := range sortPeers {
			b.Run(shape+"/"+p.name, func(b *testing.B) { benchSorted(b, in, p.sort) })
		}
	}
}

// record is a 64-byte struct sorted by key.
type record struct {
	key  int
	rest [7]int
}

func byRecordKey(a, b record) int {
	switch {
	case a.key < b.key:
		return -1
	case a.key > b.key:
		return 1
	}
	return 0
}

var pslicesRecords = sync.OnceValue(func() []record {
	r := make([]record, 1_000_000)
	for i, v := range pslicesInts()[:len(r)] {
		r[i] = record{key: v % 100_000, rest: [7]int{i}}
	}
	return r
})

// records implements pargo's Sorter and StableSorter.
type records []record

func (r records) Len() int                    { return len(r) }
func (r records) Less(i, j int) bool          { return r[i].key < r[j].key }
func (r records) Swap(i, j int)               { r[i], r[j] = r[j], r[i] }
func (r records) SequentialSort(i, j int)     { slices.SortStableFunc(r[i:j], byRecordKey) }
func (r records) NewTemp() pargo.StableSorter { return make(records, len(r)) }
func (r records) Assign(src pargo.StableSorter) func(i, j, n int) {
	s := src.(records)
	return func(i, j, n int) { copy(r[i:i+n], s[j:j+n]) }
}

// sortyRecords sorts x by key with sorty's Lesswap, which reads the keys
// itself and swaps.
func sortyRecords(x []record) {
	sorty.MaxGor = uint64(runtime.GOMAXPROCS(0))
	sorty.Sort(len(x), func(i, k, r, s int) bool {
		if x[i].key < x[k].key {
			if r != s {
				x[r], x[s] = x[s], x[r]
			}
			return true
		}
		return false
	})
}

// BenchmarkSortFuncStruct sorts 1M 64-byte records by an int key (100,000
// distinct keys).
func BenchmarkSortFuncStruct(b *testing.B) {
	in := pslicesRecords()
	for _, p := range []struct {
		name string
		sort func([]record)
	}{
		{"slices", func(x []record) { slices.SortFunc(x, byRecordKey) }},
		{"pslices", func(x []record) { pslices.SortFunc(x, byRecordKey) }},
		{"sorty", sortyRecords},
		{"pargo", func(x []record) { pargo.Sort(records(x)) }},
	} {
		b.Run(p.name, func(b *testing.B) { benchSorted(b, in, p.sort) })
	}
}

// BenchmarkSortStableFuncStruct is the stable sort of the same records.
func BenchmarkSortStableFuncStruct(b *testing.B) {
	in := pslicesRecords()
	for _, p := range []struct {
		name string
		sort func([]record)
	}{
		{"slices", func(x []record) { slices.SortStableFunc(x, byRecordKey) }},
		{"pslices", func(x []record) { pslices.SortStableFunc(x, byRecordKey) }},
		{"pargo", func(x []record) { pargo.StableSort(records(x)) }},
	} {
		b.Run(p.name, func(b *testing.B) { benchSorted(b, in, p.sort) })
	}
}

// isTarget is the IndexFunc benchmarks' predicate, a function value the
// compiler cannot inline into either side.
var isTarget = func(v int) bool { return v == -1 }

// BenchmarkIndexFunc finds the one -1 in 10M ints, placed at n/2 or at 0.
func BenchmarkIndexFunc(b *testing.B) {
	x := make([]int, 10_000_000)
	for _, at := range []int{len(x) / 2, 0} {
		clear(x)
		x[at] = -1
		for _, p := range []struct {
			name string
			find func([]int, func(int) bool) int
		}{
			{"slices", slices.IndexFunc[[]int]},
			{"pslices", func(x []int, f func(int) bool) int { return pslices.IndexFunc(x, f) }},
		} {
			b.Run(fmt.Sprintf("at=%d/%s", at, p.name), func(b *testing.B) {
				for range b.N {
					if p.find(x, isTarget) != at {
						b.Fatal("wrong index")
					}
				}
			})
		}
	}
}

// addInt64 is the Scan benchmarks' op, a function value as pslices.Scan
// receives it.
var addInt64 = func(a, b int64) int64 { return a + b }

// BenchmarkScan is the inclusive prefix sum of 10M int64s in place: seq, the
// loop x[i] += x[i-1]; seq-op, the same loop calling op, a function value,
// as Scan must; pslices.Scan with that op; and bound, two seq-op loops over
// two arrays of 10M run at once by two goroutines. Any parallel scan calls
// op twice per element (a block's sum, then the scan of the block), so at
// two workers it cannot beat bound: bound is the time two sequential passes
// take when they run at once, sharing the memory system.
func BenchmarkScan(b *testing.B) {
	in := make([]int64, 10_000_000)
	for i, v := range pslicesInts()[:len(in)] {
		in[i] = int64(v % 1000)
	}
	x, y := make([]int64, len(in)), make([]int64, len(in))
	seq := func(x []int64) {
		for i := 1; i < len(x); i++ {
			x[i] += x[i-1]
		}
	}
	seqOp := func(x []int64) {
		for i := 1; i < len(x); i++ {
			x[i] = addInt64(x[i-1], x[i])
		}
	}
	for _, p := range []struct {
		name string
		scan func([]int64)
	}{
		{"seq", seq},
		{"seq-op", seqOp},
		{"pslices", func(x []int64) { pslices.Scan(x, addInt64) }},
		{"bound", func(x []int64) {
			var wg sync.WaitGroup
			wg.Go(func() { seqOp(y) })
			seqOp(x)
			wg.Wait()
		}},
	} {
		b.Run(p.name, func(b *testing.B) {
			for range b.N {
				b.StopTimer()
				copy(x, in)
				copy(y, in)
				b.StartTimer()
				p.scan(x)
			}
		})
	}
}
