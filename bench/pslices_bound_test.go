package bench

import (
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/parloop/parloop/pslices"
)

// recordCmp is byRecordKey as a function value, called as a sort calls it:
// through the value, with the two records copied as arguments.
var recordCmp = byRecordKey

// BenchmarkSortFuncBound is the bound on SortFunc of the records of
// BenchmarkSortFuncStruct at GOMAXPROCS workers: the comparator calls alone,
// made as a partition makes them (cmp(x[i], p) along the records, p fixed,
// the outcomes as random as the data), split evenly over GOMAXPROCS
// goroutines. Rows: calls=fewest makes log2(n!/∏ nᵢ!) − n·log2 e calls, nᵢ
// the number of records with each key, the fewest three-way comparisons
// with which any comparison sort sorts this multiset (Munro and Spira,
// 1976); calls=pslices makes as many as pslices.SortFunc makes on this
// input (counted once, before the rounds); pslices and sorty are the sorts,
// as in BenchmarkSortFuncStruct. sorty's comparator takes four ints and
// reads the keys itself, so each of its calls copies no record.
func BenchmarkSortFuncBound(b *testing.B) {
	in := pslicesRecords()
	fewest, made := fewestCalls(in), callsMade(in)
	b.Logf("%d records: fewest calls %d, pslices.SortFunc makes %d", len(in), fewest, made)
	for _, p := range []struct {
		name string
		sort func([]record)
	}{
		{"calls=fewest", func([]record) { cmpCalls(in, fewest) }},
		{"calls=pslices", func([]record) { cmpCalls(in, made) }},
		{"pslices", func(x []record) { pslices.SortFunc(x, byRecordKey) }},
		{"sorty", sortyRecords},
	} {
		b.Run(p.name, func(b *testing.B) { benchSorted(b, in, p.sort) })
	}
}

// fewestCalls returns log2(n!/∏ nᵢ!) − n·log2 e for the keys of x.
func fewestCalls(x []record) int {
	count := make(map[int]int)
	for _, r := range x {
		count[r.key]++
	}
	log2Fact := func(n int) float64 {
		v, _ := math.Lgamma(float64(n) + 1)
		return v / math.Ln2
	}
	bits := log2Fact(len(x))
	for _, c := range count {
		bits -= log2Fact(c)
	}
	return int(bits - float64(len(x))*math.Log2E)
}

// callsMade returns how many times pslices.SortFunc calls its comparator
// to sort a copy of x.
func callsMade(x []record) int {
	var calls atomic.Int64
	y := append([]record(nil), x...)
	pslices.SortFunc(y, func(a, b record) int { calls.Add(1); return byRecordKey(a, b) })
	return int(calls.Load())
}

var cmpSink atomic.Int64

// cmpCalls makes calls calls of recordCmp(x[i], p), split over GOMAXPROCS
// goroutines, each along its own part of x against that part's first
// record.
func cmpCalls(x []record, calls int) {
	w := runtime.GOMAXPROCS(0)
	var wg sync.WaitGroup
	for g := range w {
		part := x[g*len(x)/w : (g+1)*len(x)/w]
		wg.Go(func() {
			p, sum := part[0], 0
			for left := calls / w; left > 0; left -= len(part) {
				for _, e := range part[:min(left, len(part))] {
					sum += recordCmp(e, p) >> 63
				}
			}
			cmpSink.Add(int64(sum))
		})
	}
	wg.Wait()
}
