package bench

import (
	"runtime"
	"slices"
	"sync"
	"testing"

	"github.com/parloop/parloop/bench/peers"
	"github.com/parloop/parloop/bench/workloads"
	"github.com/parloop/parloop/par"
)

var reduceInput = sync.OnceValues(func() ([]float64, float64) {
	a := workloads.ReduceInput(workloads.ReduceN)
	return a, workloads.SumExact(a)
})

// distinct is the number of bitwise-distinct values in sums.
func distinct(sums []float64) float64 {
	return float64(len(slices.Compact(slices.Sorted(slices.Values(sums)))))
}

func add(x, y float64) float64 { return x + y }

// seqFuncReduce is the serial fold calling combine through a func value.
//
//go:noinline
func seqFuncReduce(a []float64, id float64, combine func(x, y float64) float64) float64 {
	acc := id
	for _, v := range a {
		acc = combine(acc, v)
	}
	return acc
}

// BenchmarkReduce sums 10M float64. Each peer's distinct results are logged
// (see reproLog) and counted in the "sums" metric: 1 means bitwise the same
// on every run at this GOMAXPROCS. The peers without a reduce primitive sum
// 8*GOMAXPROCS chunks and add the partial sums in order (peers.ChunkedSum).
func BenchmarkReduce(b *testing.B) {
	a, exact := reduceInput()
	sub := func(name string, pool *par.Pool, sum func() float64) {
		b.Run("peer="+name, func(b *testing.B) {
			var sums []float64
			m := start(b, pool)
			for range b.N {
				sums = append(sums, sum())
			}
			m.stop()
			for _, s := range sums {
				check(b, workloads.VerifySum(s, exact))
			}
			b.ReportMetric(distinct(sums), "sums")
			reproLog(b.Name(), runtime.GOMAXPROCS(0), sums)
		})
	}
	sub("seq", nil, func() float64 { return workloads.SumPlain(a) })
	sub("seq-func", nil, func() float64 { return seqFuncReduce(a, 0, add) })
	for _, p := range peers.Loops(true) {
		if p.Parloop || p.Name == "seq-func" {
			continue
		}
		b.Run("peer="+p.Name, func(b *testing.B) {
			run, _, closePeer := p.Open()
			defer closePeer()
			var sums []float64
			m := start(b, nil)
			for range b.N {
				sums = append(sums, peers.ChunkedSum(run, a))
			}
			m.stop()
			for _, s := range sums {
				check(b, workloads.VerifySum(s, exact))
			}
			b.ReportMetric(distinct(sums), "sums")
			reproLog(b.Name(), runtime.GOMAXPROCS(0), sums)
		})
	}
	sub("par.Reduce", par.Default(), func() float64 { return par.Reduce(a, 0, add) })
	sub("par.Reduce-det", par.Default(), func() float64 { return par.Reduce(a, 0, add, par.Deterministic()) })
	sumRange := func(lo, hi int) float64 { return workloads.SumPlain(a[lo:hi]) }
	sub("par.ReduceRange", par.Default(), func() float64 { return par.ReduceRange(len(a), 0, sumRange, add) })
	sub("par.ReduceRange-det", par.Default(), func() float64 {
		return par.ReduceRange(len(a), 0, sumRange, add, par.Deterministic())
	})
}

var matmul = sync.OnceValue(func() *workloads.MatMul { return workloads.NewMatMul(workloads.MatN) })

// BenchmarkNested is a 512x512 matrix multiply, parallel over rows and,
// inside each row's body, over the cells of the row. Pool peers (ants, pond)
// run the inner loops on a second pool: a body that waits on tasks queued to
// its own full pool deadlocks.
func BenchmarkNested(b *testing.B) {
	mm := matmul()
	n := mm.N
	b.Run("peer=seq", func(b *testing.B) {
		mm.Reset()
		m := start(b, nil)
		for range b.N {
			mm.Plain()
		}
		m.stop()
		check(b, mm.Verify())
	})
	for _, p := range peers.Loops(true) {
		b.Run("peer="+p.Name, func(b *testing.B) {
			run, nested, closePeer := p.Open()
			defer closePeer()
			row := func(i int) {
				nested(n, func(j int) { mm.Cell(i, j) }, func(lo, hi int) { mm.Cells(i, lo, hi) })
			}
			rows := func(lo, hi int) {
				for i := lo; i < hi; i++ {
					row(i)
				}
			}
			mm.Reset()
			m := start(b, poolFor(p.Parloop))
			for range b.N {
				run(n, row, rows)
			}
			m.stop()
			check(b, mm.Verify())
		})
	}
}
