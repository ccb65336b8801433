package main

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// The rows of the iter package: BenchmarkIterSeqMapCheap and
// BenchmarkIterSlice (phase iter, GOMAXPROCS 1 and 2; its goal at 2 from
// phase paired, ten rounds, where the run has it), BenchmarkIterSeqMap
// and BenchmarkIterPgrep (phase iter2, GOMAXPROCS 2) and BenchmarkIterStream
// (phase iterstream, GOMAXPROCS 2): a goal table, then a table per workload.

// iterPeakMB is the target on the streaming run's peak live heap.
const iterPeakMB = 64

func evalIter(it, it2, st, tenRounds *Set) []GoalRow {
	var out []GoalRow
	add := func(r GoalRow) { out = append(out, r) }
	// paired adds a row a against b at p, paired by round: the time ratio
	// a/b (faster: b/a, "× faster"), judged by ok on the median (nil: info).
	paired := func(s *Set, goal string, p int, a, b, target string, faster bool, ok func(float64) bool) {
		r := s.PairedRatios(a, b, p, "ns/op")
		if faster {
			r = s.PairedRatios(b, a, p, "ns/op")
		}
		if row, have := ratioRow(goal, p, target, r, faster, ok); have {
			add(row)
		}
	}
	const sm = "IterSeqMap/impl="
	paired(it2, "ordered Map over an `iter.Seq` of 1M items, 1 µs body: `iter` against `seq`", 2,
		sm+"iter", sm+"seq", "≥ 1.80× faster", true, func(x float64) bool { return x >= 1.8 })
	for _, peer := range []string{"rill-OrderedMap", "conc-stream"} {
		paired(it2, fmt.Sprintf("ordered Map, 1 µs body: `iter` against `%s`", peer), 2,
			sm+"iter", sm+peer, "≥ 3× faster", true, func(x float64) bool { return x >= 3 })
	}
	paired(it2, "ordered Map, 1 µs body: `iter` against `chan-ordered` (channels and a reorder buffer, by hand)", 2,
		sm+"iter", sm+"chan-ordered", "–", true, nil)
	const ch = "IterSeqMapCheap/impl="
	for _, p := range it.Procs() {
		// The bridge's cost per item: iter's time per item less seq's,
		// paired by round.
		x, y := it.Values(ch+"iter", p, "ns/item"), it.Values(ch+"seq", p, "ns/item")
		var d []float64
		for i := range min(len(x), len(y)) {
			d = append(d, x[i]-y[i])
		}
		if len(d) > 0 {
			row := GoalRow{Goal: "ordered Map over an `iter.Seq`, 50 ns body: cost per item of the sequential-source bridge (`iter` less `seq`)",
				Procs: p, Target: "–", Measured: fmt.Sprintf("%.1f ns", median(d)),
				Spread: fmt.Sprintf("%.1f – %.1f ns", slices.Min(d), slices.Max(d)), Samples: len(d), Verdict: "info"}
			if p == 1 {
				row.Target, row.Verdict = "≤ 30 ns", verdict(median(d) <= 30)
			}
			add(row)
		}
		if p > 1 {
			paired(it, "ordered Map, 50 ns body: `iter` against `seq`", p, ch+"iter", ch+"seq",
				fmt.Sprintf("not slower (≤ %.2f× the time)", 1+tieBand), false, func(x float64) bool { return x <= 1+tieBand })
		}
	}
	const sl = "IterSlice/impl="
	for _, p := range it.Procs() {
		var ok func(float64) bool
		target := "–"
		sl2 := it
		if p == 2 {
			ok, target = func(x float64) bool { return x <= 1.10 }, "≤ 1.10× the time"
			sl2 = pairedOr(tenRounds, it, sl+"iter") // ten rounds of three ops, where measured
		}
		paired(sl2, "Filter+Map+Reduce over a slice of 10M: `iter` against `par.ReduceRange` (the stages fused in the leaf)", p,
			sl+"iter", sl+"par.ReduceRange", target, false, ok)
		paired(sl2, "Filter+Map+Reduce: `iter` against `par.ReduceRange+calls` (the same leaf, its three functions called, not inlined)", p,
			sl+"iter", sl+"par.ReduceRange+calls", "–", false, nil)
		paired(sl2, "Filter+Map+Reduce: `iter` against `par.Map+Reduce` (par.Map, then par.Reduce over its result)", p,
			sl+"iter", sl+"par.Map+Reduce", "–", false, nil)
	}
	const pg = "IterPgrep/impl="
	paired(it2, "pgrep over GOROOT/src, warm cache: `iter+Blocking` (examples/pgrep's pipeline) against `seq`", 2, pg+"iter+Blocking", pg+"seq",
		"≥ 1.80× faster", true, func(x float64) bool { return x >= 1.8 })
	paired(it2, "pgrep: `iter` (no Blocking: the stage on the pool's worker threads) against `seq`", 2, pg+"iter", pg+"seq",
		"–", true, nil)
	// The streaming run's peak heap at each length, and the longest
	// against the shortest.
	ns := iterStreamLengths(st)
	for _, p := range st.Procs() {
		var peaks []float64
		for _, n := range ns {
			v := st.Values(fmt.Sprintf("IterStream/n=%d/impl=iter", n), p, "peak-MB")
			if len(v) == 0 {
				continue
			}
			mx := slices.Max(v)
			peaks = append(peaks, mx)
			add(GoalRow{Goal: fmt.Sprintf("streaming %s generated lines (examples/stream): peak live heap", fmtCount(n)), Procs: p,
				Target: fmt.Sprintf("< %d MB", iterPeakMB), Measured: fmt.Sprintf("%.1f MB", mx), Spread: "–",
				Samples: len(v), Verdict: verdict(mx < iterPeakMB)})
		}
		if len(peaks) == len(ns) && len(ns) > 1 {
			r := peaks[len(peaks)-1] / peaks[0]
			add(GoalRow{Goal: fmt.Sprintf("streaming: peak heap at %s lines over the peak at %s (independent of length)", fmtCount(ns[len(ns)-1]), fmtCount(ns[0])),
				Procs: p, Target: "≤ 1.50×", Measured: fmtX(r), Spread: "–", Samples: 1, Verdict: verdict(r <= 1.5)})
		}
	}
	return out
}

// iterStreamLengths are the lengths BenchmarkIterStream ran, shortest first.
func iterStreamLengths(s *Set) []int {
	var ns []int
	for _, v := range keyValues(s, "IterStream/", "n") {
		if n, err := strconv.Atoi(v); err == nil {
			ns = append(ns, n)
		}
	}
	slices.Sort(ns)
	return ns
}

// fmtCount renders 50000000 as 50M and 200000 as 200k.
func fmtCount(n int) string {
	switch {
	case n >= 1e6 && n%1e6 == 0:
		return fmt.Sprintf("%dM", n/1e6)
	case n >= 1e3 && n%1e3 == 0:
		return fmt.Sprintf("%dk", n/1e3)
	}
	return strconv.Itoa(n)
}

func writeIter(b *strings.Builder, it, it2, st, tenRounds *Set, quick bool, warning string) {
	gs := evalIter(it, it2, st, tenRounds)
	if len(gs) == 0 {
		return
	}
	b.WriteString("## Parallel pipelines (iter)\n\n" +
		"The `iter` package's pipelines against a sequential loop and their peers: an ordered `Map` over an `iter.Seq` " +
		"with a 1 µs body (phase `iter2`, GOMAXPROCS 2) and a 50 ns body (phase `iter`, GOMAXPROCS 1 and 2), " +
		"`Filter`+`Map`+`Reduce` over a slice against the par verbs (phase `iter`; the rows at 2 from phase `paired`, 10 rounds of 3 ops, where the run has it), examples/pgrep's workload (phase `iter2`) " +
		"and examples/stream's pipeline with its peak live heap (phase `iterstream`). Ratios are paired by round " +
		"(sample i of A over sample i of B, both from the same process); *measured* is their median and *range* their spread.\n\n")
	if quick {
		b.WriteString("Under `-quick` the sizes shrink (`-short`): 100k items for the 1 µs body, 200k for the 50 ns body, " +
			"2M for the slice, the first 2,000 files for pgrep, 200k and 2M lines for the stream.\n\n")
	}
	b.WriteString(warning)
	t := table{head: []string{"goal", "P", "target", "measured", "range", "n", "result"}}
	for _, r := range gs {
		t.add(r.Goal, strconv.Itoa(r.Procs), r.Target, r.Measured, r.Spread, strconv.Itoa(r.Samples), r.Verdict)
	}
	b.WriteString(t.String() + "\n")
	peers := "`seq` is the loop; `iter` is `iter.Map(iter.From(seq), f).All()` (`+Unordered`: with `iter.Unordered()`); " +
		"`chan-ordered` and `chan-unordered` are a producer goroutine, GOMAXPROCS worker goroutines and channels, by hand, " +
		"the first with a reorder buffer; `errgroup` is a goroutine per item under `SetLimit(GOMAXPROCS)`, writing into a " +
		"slice of n results consumed after `Wait`; `conc-iter` collects the Seq into a slice for conc's `iter.Mapper`; " +
		"`conc-stream` is a conc `stream` task per item; `rill-OrderedMap` and `rill-Map` are rill v0.7.0 over `rill.FromSeq`, " +
		"GOMAXPROCS goroutines. Every run's results are checked against the loop's (an order-dependent hash, or the sum for the unordered ones).\n\n"
	writeImplTable(b, it2, "IterSeqMap/", "iter",
		"### Ordered Map over an iter.Seq, 1 µs body\n\n1M items (100k under `-quick`) of about 1 µs of CPU work "+
			"(xorshift-multiply rounds, calibrated at start), consumed in order on the calling goroutine. "+peers, []string{"ns/item"})
	writeImplTable(b, it, "IterSeqMapCheap/", "iter",
		"### Ordered Map over an iter.Seq, 50 ns body\n\n1M items (200k under `-quick`) of about 50 ns, the same peers "+
			"but the two that start a goroutine per item.\n\n", []string{"ns/item"})
	writeImplTable(b, it, "IterSlice/", "par.ReduceRange",
		"### Filter+Map+Reduce over a slice\n\n10M `uint64` (2M under `-quick`): keep those not divisible by 3, square, sum. "+
			"`iter` is `iter.Map(iter.Slice(xs).Filter(keep), sq).Reduce(0, add)`; `par.ReduceRange` runs the three in its leaf; "+
			"`par.ReduceRange+calls` is that leaf calling them through func values it cannot inline, as a pipeline must; "+
			"`par.Map+Reduce` maps with the filter folded in (0 for a dropped item), then reduces the mapped slice.\n\n", nil)
	writeImplTable(b, it2, "IterPgrep/", "seq",
		"### pgrep\n\nexamples/pgrep's workload: `grep -rn 'func [A-Z]\\w*Seq'` over `$(go env GOROOT)/src` (its first 2,000 files "+
			"under `-quick`), the walk sequential, the files read and searched in an ordered pipeline, the output hashed in "+
			"the walk's order and checked against the loop's; the page cache is warm. `iter+Blocking` is examples/pgrep's pipeline: the "+
			"stage, which reads files, given `iter.Blocking(2×GOMAXPROCS)`, so that it runs on goroutines of its own; `iter` runs it "+
			"on the pool's worker threads.\n\n", nil)
	writeIterStreamTable(b, st)
}

// writeIterStreamTable is one line per length of BenchmarkIterStream.
func writeIterStreamTable(b *strings.Builder, s *Set) {
	ns := iterStreamLengths(s)
	if len(ns) == 0 {
		return
	}
	b.WriteString("### Streaming\n\nexamples/stream's pipeline: `From` over generated lines, `Map(parse)`, `Filter(positive)`, " +
		"`Fold` into counts per sensor; the live heap (`/memory/classes/heap/objects:bytes`) sampled every millisecond.\n\n")
	t := table{head: []string{"lines", "P", "time", "ns/line", "peak heap", "allocs/op", "n"}}
	for _, p := range s.Procs() {
		for _, n := range ns {
			name := fmt.Sprintf("IterStream/n=%d/impl=iter", n)
			tm, ok := s.Median(name, p, "ns/op")
			if !ok {
				continue
			}
			pk := s.Values(name, p, "peak-MB")
			mx := math.NaN()
			if len(pk) > 0 {
				mx = slices.Max(pk)
			}
			al, _ := s.Median(name, p, "allocs/op")
			t.add(fmtCount(n), strconv.Itoa(p), fmtTime(tm), fmt.Sprintf("%.0f", tm/float64(n)),
				fmt.Sprintf("%.1f MB", mx), fmtNum(al), strconv.Itoa(s.Count(name, p)))
		}
	}
	b.WriteString(t.String() + "\n")
}
