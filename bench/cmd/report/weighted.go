package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// The rows of BenchmarkWeighted and BenchmarkFoldDocs (phase weighted) and
// BenchmarkTraceOff (phase trace): a goal table, then a table per workload.

// weightedWorks are the orders of the skewed items BenchmarkWeighted runs.
var weightedWorks = []struct{ work, what, desc string }{
	{"skewed", "skewed items", "in their random order"},
	{"skewed-sorted", "skewed items sorted by cost", "sorted by cost, as items sorted by size come: equal chunks by count put most of the work in the last one"},
}

func evalWeighted(w *Set) []GoalRow {
	var out []GoalRow
	add := func(r GoalRow) { out = append(out, r) }
	// paired adds a row a against b, paired by round; ok(ratio) decides.
	paired := func(goal string, p int, a, b, target string, faster bool, ok func(float64) bool) {
		r := w.PairedRatios(a, b, p, "ns/op")
		if faster {
			r = w.PairedRatios(b, a, p, "ns/op")
		}
		if row, have := ratioRow(goal, p, target, r, faster, ok); have {
			add(row)
		}
	}
	for _, wk := range weightedWorks {
		pre := "Weighted/work=" + wk.work + "/impl="
		for _, p := range w.Procs() {
			paired(fmt.Sprintf("%s: `par.For+Weighted` (weights = the costs) against `par.For`", wk.what), p,
				pre+"par.For+Weighted", pre+"par.For", fmt.Sprintf("not slower (≤ %.2f× the time)", 1+tieBand), false,
				func(x float64) bool { return x <= 1+tieBand })
			var staticOK func(float64) bool
			target := "– (one worker: nothing to balance)"
			if p > 1 {
				staticOK, target = func(x float64) bool { return x > 1+tieBand }, "faster"
			}
			paired(fmt.Sprintf("%s: `par.For+Weighted` against `static` (equal chunks by count)", wk.what), p,
				pre+"par.For+Weighted", pre+"static", target, true, staticOK)
			paired(fmt.Sprintf("%s: `par.For+Weighted` against `static-weighted` (equal chunks by weight, by hand)", wk.what), p,
				pre+"par.For+Weighted", pre+"static-weighted", "–", true, nil)
			var wrongOK func(float64) bool
			target = "– (one worker: nothing to balance)"
			if p > 1 {
				wrongOK, target = func(x float64) bool { return x <= 1.10 }, "≤ 1.10× the time"
			}
			paired(fmt.Sprintf("%s: `par.For+Weighted-wrong` (the costs reversed) against `par.For`: stealing must repair wrong weights", wk.what), p,
				pre+"par.For+Weighted-wrong", pre+"par.For", target, false, wrongOK)
		}
	}
	const fd = "FoldDocs/impl="
	for _, p := range w.Procs() {
		if p > 1 {
			paired("word counts over skewed documents: `par.Fold` against `par.ReduceRange` (a map per piece)", p,
				fd+"par.Fold", fd+"par.ReduceRange", "faster", true, func(x float64) bool { return x > 1+tieBand })
			paired("word counts: `par.Fold` against `seq`", p, fd+"par.Fold", fd+"seq", "–", true, nil)
			paired("word counts: `par.Fold` against `dynamic` (a map per goroutine, one document at a time, by hand)", p,
				fd+"par.Fold", fd+"dynamic", "–", true, nil)
		}
		paired("word counts: `par.Fold+Weighted` (weights = document sizes) against `par.Fold`", p,
			fd+"par.Fold+Weighted", fd+"par.Fold", fmt.Sprintf("not slower (≤ %.2f× the time)", 1+tieBand), false,
			func(x float64) bool { return x <= 1+tieBand })
		for _, impl := range []string{"par.Fold", "par.Fold+Weighted"} {
			v := w.Values(fd+impl, p, "maps/op")
			if len(v) == 0 {
				continue
			}
			mx := v[0]
			for _, x := range v {
				mx = math.Max(mx, x)
			}
			add(GoalRow{Goal: fmt.Sprintf("word counts: maps made per call by `%s` (one per worker, the caller included)", impl), Procs: p,
				Target: fmt.Sprintf("≤ %d", p), Measured: fmt.Sprintf("%s (largest %s)", fmtNum(median(v)), fmtNum(mx)),
				Samples: len(v), Spread: "–", Verdict: verdict(mx <= float64(p))})
		}
	}
	return out
}

func writeWeighted(b *strings.Builder, w, tr *Set, warning string) {
	gs := evalWeighted(w)
	if len(gs) == 0 && len(tr.Names("TraceOff/")) == 0 {
		return
	}
	b.WriteString("## Weights, Fold and tracing\n\n" +
		"`par.Weighted` on the skewed items and `par.Fold` on word counts (phase `weighted`), and what `Track` and " +
		"runtime/trace cost on small calls (phase `trace`), at GOMAXPROCS 1 and the largest. Ratios are paired by round " +
		"(sample i of A over sample i of B, both from the same process); *measured* is their median and *range* their spread.\n\n")
	b.WriteString(warning)
	if len(gs) > 0 {
		t := table{head: []string{"goal", "P", "target", "measured", "range", "n", "result"}}
		for _, r := range gs {
			t.add(r.Goal, strconv.Itoa(r.Procs), r.Target, r.Measured, r.Spread, strconv.Itoa(r.Samples), r.Verdict)
		}
		b.WriteString(t.String() + "\n")
	}
	for _, wk := range weightedWorks {
		writeImplTable(b, w, "Weighted/work="+wk.work+"/", "static",
			fmt.Sprintf("### Weighted partitioning: %s\n\n"+
				"10,000 items of Pareto(α = 1.2) cost (the skewed workload; costs / 4 under `-quick`), %s. "+
				"`+Weighted` passes `par.Weighted(costs)`, built once outside the timed loop; `+Weighted-wrong` the costs reversed. "+
				"`static` is GOMAXPROCS goroutines over equal chunks by count, `static-weighted` over contiguous chunks of equal weight "+
				"(cut by binary search in prefix sums made once).\n\n", wk.work, wk.desc), nil)
	}
	writeImplTable(b, w, "FoldDocs/", "dynamic",
		"### Word counts over skewed documents: Fold\n\n"+
			"5,000 synthetic documents of truncated-Pareto sizes, 10 bytes to 1 MB (about 67 MB in all; at most 32 KB each, 6 MB, under `-quick`), "+
			"words counted into a `map[string]int`. `par.Fold` keeps a map per worker; `par.Fold+Weighted` also passes the sizes as weights; "+
			"`par.ReduceRange` makes a map per piece and merges them in order (the way before Fold); `static` is GOMAXPROCS goroutines over "+
			"equal chunks by count, `dynamic` GOMAXPROCS goroutines taking one document at a time from an atomic counter, a map each. "+
			"Every result's total, distinct words and checksum equal `seq`'s.\n\n", []string{"maps/op"})
	writeTraceTable(b, tr)
}

// writeImplTable is one line per impl under prefix: the time at each
// GOMAXPROCS, the speedup over seq, the time over ref's at the largest, and
// at the largest the allocations, extra metrics and scheduler figures.
func writeImplTable(b *strings.Builder, s *Set, prefix, ref, intro string, extra []string) {
	impls := keyValues(s, prefix, "impl")
	procs := s.Procs()
	if len(impls) == 0 || len(procs) == 0 {
		return
	}
	maxp := s.MaxProcs()
	b.WriteString(intro)
	head := []string{"impl"}
	for _, p := range procs {
		head = append(head, fmt.Sprintf("time P=%d", p))
	}
	for _, p := range procs {
		head = append(head, fmt.Sprintf("speedup P=%d", p))
	}
	head = append(head, fmt.Sprintf("vs `%s` P=%d", ref, maxp))
	head = append(head, extra...)
	head = append(head, "allocs/op", "B/op", "imbalance", "util", "pieces/op", "steals/op", "n")
	t := table{head: head}
	for _, impl := range impls {
		name := prefix + "impl=" + impl
		cells := []string{"`" + impl + "`"}
		for _, p := range procs {
			v, _ := s.Median(name, p, "ns/op")
			cells = append(cells, fmtTime(v))
		}
		for _, p := range procs {
			v, _ := s.Median(name, p, "ns/op")
			seq, _ := s.Median(prefix+"impl=seq", p, "ns/op")
			cells = append(cells, fmtX(seq/v))
		}
		v, _ := s.Median(name, maxp, "ns/op")
		r, _ := s.Median(prefix+"impl="+ref, maxp, "ns/op")
		cells = append(cells, fmtX(v/r))
		for _, u := range append(extra, "allocs/op", "B/op", "imbalance") {
			x, _ := s.Median(name, maxp, u)
			cells = append(cells, fmtNum(x))
		}
		ut, _ := s.Median(name, maxp, "util")
		pc, _ := s.Median(name, maxp, "pieces/op")
		st, _ := s.Median(name, maxp, "steals/op")
		cells = append(cells, fmtPct(ut), fmtNum(pc), fmtNum(st), strconv.Itoa(s.Count(name, maxp)))
		t.add(cells...)
	}
	b.WriteString(t.String())
	fmt.Fprintf(b, "\nSpeedup is over `seq` at the same GOMAXPROCS; the columns after it are at P=%d (medians; scheduler figures for the parloop rows only).\n\n", maxp)
}

// writeTraceTable is one line per work, verb and GOMAXPROCS of
// BenchmarkTraceOff: the call with tracing off over the serial loop, and
// +Track and +tracing over the call with tracing off, paired by round.
func writeTraceTable(b *strings.Builder, s *Set) {
	if len(s.Names("TraceOff/")) == 0 {
		return
	}
	b.WriteString("### Tracing off, Track, tracing on\n\n" +
		"The tiny loop (n = 1,000) and the uniform loop (10M; 1M under `-quick`) through `par.For` and `par.ForRange` with no execution trace " +
		"running, against the serial loop (`seq-func` for `par.For`, the inline loop `seq` for `par.ForRange`), and the same calls with a " +
		"`par.Progress` tracked (`+Track`) and with `runtime/trace` on, written to `io.Discard` (`+tracing`: a task per call, a region per piece). " +
		"Tracing off should cost nothing: the first ratio is the one of the goal table, and it is compared there with the goal. " +
		"Each cell is the median of ratios paired by round, with their range.\n\n")
	t := table{head: []string{"work", "call", "P", "time, tracing off", "tracing off vs serial", "+Track vs tracing off", "+tracing vs tracing off", "n"}}
	works := keyValues(s, "TraceOff/", "work")
	for _, work := range works {
		pre := "TraceOff/work=" + work + "/impl="
		for _, verb := range []struct{ call, serial string }{{"par.For", "seq-func"}, {"par.ForRange", "seq"}} {
			for _, p := range s.Procs() {
				off := pre + verb.call
				tm, ok := s.Median(off, p, "ns/op")
				if !ok {
					continue
				}
				cell := func(a, b string) string {
					r := s.PairedRatios(a, b, p, "ns/op")
					if len(r) == 0 {
						return "–"
					}
					med, sp := ratioSummary(r)
					return fmt.Sprintf("%s (%s)", fmtX(med), sp)
				}
				t.add(work, "`"+verb.call+"`", strconv.Itoa(p), fmtTime(tm), cell(off, pre+verb.serial),
					cell(off+"+Track", off), cell(off+"+tracing", off), strconv.Itoa(s.Count(off, p)))
			}
		}
	}
	b.WriteString(t.String() + "\n")
}
