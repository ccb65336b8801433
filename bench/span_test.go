package bench

// The span of the quicksort workload: how fast any scheduler could run it
// with unlimited workers. Its first partition passes over all 5M elements
// before anything can fork, the next two over about half each, and so on,
// so the recursion's critical path is about 2n elements of partitioning
// while the work is n·log2(n/32) of it (work/span bounds the speedup: the
// span law). cmd/report does not run it; it backs the 16-core analysis:
//
//	go test -run '^$' -bench '^BenchmarkQuicksortSpan$' -benchtime 3x

import (
	"testing"
	"time"

	"github.com/parloop/parloop/bench/workloads"
)

// qsortSpan sorts a serially as workloads.QsortJoin does with a fork at
// every partition, timing each partition and leaf, and returns the total
// time of those (the work) and the longest chain of them from the root to
// a leaf (the span).
func qsortSpan(a []int) (work, span time.Duration) {
	if len(a) <= workloads.QsortLeaf {
		t0 := time.Now()
		workloads.QsortLeafSort(a)
		d := time.Since(t0)
		return d, d
	}
	t0 := time.Now()
	p := workloads.QsortPartition(a)
	d := time.Since(t0)
	wl, sl := qsortSpan(a[:p])
	wh, sh := qsortSpan(a[p:])
	return d + wl + wh, d + max(sl, sh)
}

// BenchmarkQuicksortSpan reports the quicksort workload's work and span and
// their ratio, the parallelism: no number of workers sorts it faster than
// work/span times the sequential sort.
func BenchmarkQuicksortSpan(b *testing.B) {
	in := workloads.QsortInput(workloads.QsortN)
	a := make([]int, len(in))
	var work, span time.Duration
	for range b.N {
		copy(a, in)
		w, s := qsortSpan(a)
		work += w
		span += s
	}
	b.ReportMetric(float64(work.Nanoseconds())/float64(b.N), "work-ns")
	b.ReportMetric(float64(span.Nanoseconds())/float64(b.N), "span-ns")
	b.ReportMetric(float64(work)/float64(span), "parallelism")
}

// Catches: a span larger than the work (the max taken where a sum belongs)
// or a sort that qsortSpan leaves unsorted.
func TestQuicksortSpanSorts(t *testing.T) {
	a := workloads.QsortInput(100_000)
	work, span := qsortSpan(a)
	for i := 1; i < len(a); i++ {
		if a[i-1] > a[i] {
			t.Fatalf("a[%d] = %d > a[%d] = %d", i-1, a[i-1], i, a[i])
		}
	}
	if span <= 0 || span > work {
		t.Fatalf("span %v, work %v: want 0 < span <= work", span, work)
	}
}
