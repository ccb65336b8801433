package main

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The rows of BenchmarkFewItems, BenchmarkBlocking, BenchmarkLabels,
// BenchmarkNestedSmall (phases few, blocking, rows) and the goal of
// BenchmarkUTS and BenchmarkUTSAlloc (phase paired; the main phase's rounds
// in runs that predate it): a goal table in the
// format of the main one, then a table for each of the first two.

// fewBound is ceil(n/P)·c in ns for a FewItems name
// (".../n=8/cost=1ms/pool=P2/...") measured at procs: c is the cost in the
// name, or the item's measured cost (the metric item-ns, the median of one
// item run alone) if that is more, as a sleep of 1 ms is.
func fewBound(s *Set, name string, procs int) (float64, bool) {
	n, err1 := strconv.Atoi(nameKey(name, "n"))
	c, err2 := time.ParseDuration(nameKey(name, "cost"))
	m := regexp.MustCompile(`^P(\d+)`).FindStringSubmatch(nameKey(name, "pool"))
	if err1 != nil || err2 != nil || m == nil {
		return 0, false
	}
	p, _ := strconv.Atoi(m[1])
	item := float64(c.Nanoseconds())
	if measured, ok := s.Median(name, procs, "item-ns"); ok {
		item = max(item, measured)
	}
	return float64((n+p-1)/p) * item, true
}

// fewGoal is the bound for few items: ceil(n/P)·c + 10% + 100 µs.
func fewGoal(bound float64) float64 { return 1.1*bound + 100e3 }

func evalRows(trees, rows, few, blocking *Set) []GoalRow {
	var out []GoalRow
	add := func(r GoalRow) { out = append(out, r) }

	// Few items: one row per parloop verb over every case.
	if p := few.MaxProcs(); p > 0 {
		cases := map[string]bool{}
		var order []string
		for _, name := range few.Names("FewItems/") {
			c := strings.TrimSuffix(name, "/impl="+nameKey(name, "impl"))
			if !cases[c] {
				cases[c] = true
				order = append(order, c)
			}
		}
		for _, impl := range keyValues(few, "FewItems/", "impl") {
			if !isParloop(impl) {
				continue
			}
			met, total, worst, where, samples := 0, 0, 0.0, "", 0
			for _, c := range order {
				name := c + "/impl=" + impl
				t, ok := few.Median(name, p, "ns/op")
				bound, ok2 := fewBound(few, name, p)
				if !ok || !ok2 {
					continue
				}
				total++
				samples += few.Count(name, p)
				if t <= fewGoal(bound) {
					met++
				}
				if x := t / bound; x > worst {
					worst, where = x, strings.TrimPrefix(c, "FewItems/")
				}
			}
			if total == 0 {
				continue
			}
			add(GoalRow{Goal: fmt.Sprintf("few expensive items: `%s` within ceil(n/P)·c + 10%% + 100 µs, every case of the table below", impl), Procs: p,
				Target: "all cases", Measured: fmt.Sprintf("%d of %d cases; worst %s the bound (%s)", met, total, fmtX(worst), where),
				Samples: samples, Verdict: verdict(met == total)})
		}
	}

	// Blocking bodies.
	if p := blocking.MaxProcs(); p > 0 {
		const files = "Blocking/work=files/impl="
		best, bestImpl := math.Inf(1), ""
		for _, h := range []string{"chan64", "errgroup64"} {
			if t, ok := blocking.Median(files+h, p, "ns/op"); ok && t < best {
				best, bestImpl = t, h
			}
		}
		for _, impl := range keyValues(blocking, "Blocking/work=files/", "impl") {
			t, ok := blocking.Median(files+impl, p, "ns/op")
			if !ok || !isParloop(impl) || bestImpl == "" {
				continue
			}
			r := GoalRow{Goal: fmt.Sprintf("500 files (read 4 KB, sleep 2 ms): `%s` against the best hand-written fan-out at 64 (`%s`, %s)", impl, bestImpl, fmtTime(best)),
				Procs: p, Measured: fmt.Sprintf("%s, %s the time", fmtTime(t), fmtX(t/best)), Spread: timeRange(blocking.Values(files+impl, p, "ns/op")),
				Samples: blocking.Count(files+impl, p)}
			if strings.Contains(impl, "+Blocking") {
				r.Target, r.Verdict = "≤ 2× the time", verdict(t <= 2*best)
			} else {
				r.Target, r.Verdict = "– (without Blocking: shows the problem)", "info"
			}
			add(r)
		}
		if wg, ok := blocking.Median(files+"wg", p, "ns/op"); ok {
			add(GoalRow{Goal: "500 files: a goroutine per file (`wg`, unbounded), for scale", Procs: p, Target: "–", Measured: fmtTime(wg),
				Spread: timeRange(blocking.Values(files+"wg", p, "ns/op")), Samples: blocking.Count(files+"wg", p), Verdict: "info"})
		}
		// The CPU loop beside the file loop shares the CPUs with the file
		// loop's own work (reading, waking 64 sleepers), whoever runs it:
		// the goal is that the pool's way of running it costs the CPU loop
		// nothing more than the best hand-written fan-out's does.
		alone := "Blocking/work=cpu-alongside/impl=alone"
		with := "Blocking/work=cpu-alongside/impl=with-files"
		chan64 := "Blocking/work=cpu-alongside/impl=with-chan64"
		if r := blocking.PairedRatios(with, chan64, p, "ns/op"); len(r) > 0 {
			med, sp := ratioSummary(r)
			tc, _ := blocking.Median(chan64, p, "ns/op")
			tw, _ := blocking.Median(with, p, "ns/op")
			add(GoalRow{Goal: "a CPU-bound `par.For` (uniform) on the default pool while the 500-file loop runs with `Blocking(64)` on it, over and over, against the same CPU loop while the hand-written `chan64` fan-out runs the same file loop",
				Procs: p, Target: "keeps its speed (≤ 1.10× the time)", Measured: fmt.Sprintf("%s the time (%s against %s)", fmtX(med), fmtTime(tw), fmtTime(tc)),
				Spread: sp, Samples: len(r), Verdict: verdict(med <= 1.10)})
		}
		for _, w := range []struct{ name, label string }{{with, "`Blocking(64)` file loop"}, {chan64, "hand-written `chan64` file loop"}} {
			if r := blocking.PairedRatios(w.name, alone, p, "ns/op"); len(r) > 0 {
				med, sp := ratioSummary(r)
				add(GoalRow{Goal: "for scale, the same CPU loop beside the " + w.label + " against the CPU loop alone (the file loop's own CPU use)",
					Procs: p, Target: "–", Measured: fmtX(med) + " the time", Spread: sp, Samples: len(r), Verdict: "info"})
			}
		}
	}

	// pprof labels.
	for _, p := range rows.Procs() {
		r := rows.PairedRatios("Labels/impl=labels", "Labels/impl=nolabels", p, "ns/op")
		if len(r) == 0 {
			continue
		}
		med, sp := ratioSummary(r)
		add(GoalRow{Goal: "uniform `par.For` inside `pprof.Do(ctx, pprof.Labels(\"req\", \"x\"), …)` against the same call without labels", Procs: p,
			Target: fmt.Sprintf("nothing measurable (within ±%.0f%%)", 100*tieBand), Measured: fmtX(med) + " the time", Spread: sp, Samples: len(r),
			Verdict: verdict(med <= 1+tieBand)})
	}

	// Nested small loops: (parloop − base) per nested call, paired by round.
	for _, p := range rows.Procs() {
		pv, bv := rows.Values("NestedSmall/impl=parloop", p, "ns/op"), rows.Values("NestedSmall/impl=base", p, "ns/op")
		var ov []float64
		for i := 0; i < min(len(pv), len(bv)); i++ {
			ov = append(ov, pv[i]-bv[i])
		}
		if len(ov) == 0 {
			continue
		}
		med := median(ov)
		al, _ := rows.Median("NestedSmall/impl=parloop", p, "allocs/op")
		r := GoalRow{Goal: "`par.For(8, f)` nested inside a body, trivial f: time per nested call over a plain loop of 8 calls", Procs: p,
			Measured: fmt.Sprintf("%s/call, %s allocs", fmtTime(med), fmtNum(al)), Spread: fmt.Sprintf("%s – %s", fmtTime(slices.Min(ov)), fmtTime(slices.Max(ov))),
			Samples: len(ov), Target: "≤ 100 ns", Verdict: verdict(med <= 100)}
		if p != 1 {
			r.Target, r.Verdict = "– (the goal is at GOMAXPROCS=1)", "info"
		}
		add(r)
	}

	// The unbalanced tree at 2 workers.
	if trees.Has("UTS/peer=seq", 2) {
		for _, top := range []string{"UTS", "UTSAlloc"} {
			what := "unbalanced tree (UTS-like, nested loops over every node's children)"
			if top == "UTSAlloc" {
				what = "unbalanced tree, a heap-allocated struct per node"
			}
			for _, peer := range []string{"par.For", "par.ReduceRange", "par.BothOf", "wg-cutoff"} {
				r := trees.PairedRatios(top+"/peer=seq", top+"/peer="+peer, 2, "ns/op")
				if len(r) == 0 {
					continue
				}
				med, sp := ratioSummary(r)
				row := GoalRow{Goal: fmt.Sprintf("%s: `%s` against seq", what, peer), Procs: 2, Measured: fmtX(med) + " faster",
					Spread: sp, Samples: len(r), Target: "≥ 1.8× faster", Verdict: verdict(med >= 1.8)}
				if peer != "par.For" && peer != "par.ReduceRange" {
					row.Target, row.Verdict = "–", "info"
				}
				add(row)
			}
			if r := trees.PairedRatios(top+"/peer=seq-for-body", top+"/peer=par.For", 2, "ns/op"); len(r) > 0 {
				med, sp := ratioSummary(r)
				own := trees.PairedRatios(top+"/peer=seq-for-body", top+"/peer=seq", 2, "ns/op")
				ownMed, _ := ratioSummary(own)
				add(GoalRow{Goal: fmt.Sprintf("%s: `par.For` against `seq-for-body`, its own body run by a plain loop on one goroutine (a closure and two atomic adds per child: %s the time of seq)", what, fmtX(ownMed)),
					Procs: 2, Measured: fmtX(med) + " faster", Spread: sp, Samples: len(r), Target: "–", Verdict: "info"})
			}
		}
	}
	out = append(out, evalCallersSweep(trees)...)
	return out
}

// evalCallersSweep is the goal of many callers over BenchmarkCallersSweep
// (phase paired, 2 workers): at every point of the sweep, par.ForRange
// costs what the callers' plain loops cost (ties within the band count) and
// no more than the best chunked peer, each paired by round.
func evalCallersSweep(s *Set) []GoalRow {
	var out []GoalRow
	const p = 2
	var cases []string
	seen := map[string]bool{}
	for _, n := range s.Names("CallersSweep/") {
		c := strings.TrimSuffix(n, "/impl="+nameKey(n, "impl"))
		if !seen[c] {
			seen[c] = true
			cases = append(cases, c)
		}
	}
	for _, c := range cases {
		what := fmt.Sprintf("many callers, %s goroutines each calling a loop of %s at once", nameKey(c, "callers"), nameKey(c, "n"))
		target := fmt.Sprintf("≤ %.2f× the time", 1+tieBand)
		base, baseWhat := "seq-range", "`seq-range` (each caller's range body over [0, n), the same loop code)"
		if len(s.Values(c+"/impl="+base, p, "ns/op")) == 0 { // runs before the base existed
			base, baseWhat = "seq", "`seq` (each caller's plain loop)"
		}
		if r := s.PairedRatios(c+"/impl=par.ForRange", c+"/impl="+base, p, "ns/op"); len(r) > 0 {
			med, sp := ratioSummary(r)
			out = append(out, GoalRow{Goal: what + ": `par.ForRange` against " + baseWhat, Procs: p,
				Target: target + " (a call costs what its loop costs)", Measured: fmtX(med) + " the time", Spread: sp, Samples: len(r),
				Verdict: verdict(med <= 1+tieBand)})
		}
		fr := s.Values(c+"/impl=par.ForRange", p, "ns/op")
		var best []float64
		var names []string
		for _, peer := range []string{"static", "atomic", "errgroup"} {
			v := s.Values(c+"/impl="+peer, p, "ns/op")
			if len(v) == 0 {
				continue
			}
			names = append(names, peer)
			for i := range v {
				if i >= len(best) {
					best = append(best, v[i])
				} else {
					best[i] = min(best[i], v[i])
				}
			}
		}
		var r []float64
		for i := 0; i < min(len(fr), len(best)); i++ {
			r = append(r, fr[i]/best[i])
		}
		if len(r) > 0 {
			med, sp := ratioSummary(r)
			out = append(out, GoalRow{Goal: what + ": `par.ForRange` against the best of " + strings.Join(names, ", ") + " in the same round", Procs: p,
				Target: target, Measured: fmtX(med) + " the time", Spread: sp, Samples: len(r), Verdict: verdict(med <= 1+tieBand)})
		}
		if r := s.PairedRatios(c+"/impl=par.For", c+"/impl=seq-func", p, "ns/op"); len(r) > 0 {
			med, sp := ratioSummary(r)
			out = append(out, GoalRow{Goal: what + ": `par.For` against `seq-func` (each caller's loop calling the same func value)", Procs: p,
				Target: "–", Measured: fmtX(med) + " the time", Spread: sp, Samples: len(r), Verdict: "info"})
		}
		if r := s.PairedRatios(c+"/impl=seq-range", c+"/impl=seq", p, "ns/op"); len(r) > 0 {
			med, sp := ratioSummary(r)
			out = append(out, GoalRow{Goal: what + ": for scale, `seq-range` against `seq` (the same loop, two copies of its machine code)", Procs: p,
				Target: "–", Measured: fmtX(med) + " the time", Spread: sp, Samples: len(r), Verdict: "info"})
		}
	}
	return out
}

func writeRows(b *strings.Builder, trees, rows, few, blocking *Set, warning string) {
	gs := evalRows(trees, rows, few, blocking)
	if len(gs) == 0 {
		return
	}
	b.WriteString("## Few items, blocking bodies, labels, nested calls\n\n" +
		"Rows for calls the main suite does not cover. Few items and blocking bodies run at the largest GOMAXPROCS " +
		"(phases `few` and `blocking`, medians); labels and nested calls at 1 and 2 (phase `rows`, paired by round as the goals are); " +
		"the unbalanced tree's and the many callers' goal rows come from phase `paired` (10 rounds of 3 ops each at 2 workers, paired by round; " +
		"its tables, over every GOMAXPROCS, are under *Workloads*, from the main suite).\n\n")
	b.WriteString(warning)
	t := table{head: []string{"goal", "P", "target", "measured", "range", "n", "result"}}
	for _, r := range gs {
		t.add(r.Goal, strconv.Itoa(r.Procs), r.Target, r.Measured, r.Spread, strconv.Itoa(r.Samples), r.Verdict)
	}
	b.WriteString(t.String() + "\n")
	writeFewTable(b, few)
	writeBlockingTable(b, blocking)
}

// writeFewTable is one line per case of BenchmarkFewItems, one column per
// implementation: the time and, in parentheses, the time over the bound.
func writeFewTable(b *strings.Builder, s *Set) {
	p := s.MaxProcs()
	impls := keyValues(s, "FewItems/", "impl")
	if p == 0 || len(impls) == 0 {
		return
	}
	fmt.Fprintf(b, "### Few expensive items\n\n"+
		"n items of equal cost c on a pool of P: `P2` is `par.Workers(2)` with bodies spinning the CPU for c, `P8sleep` is "+
		"`par.Workers(8)` with bodies sleeping for c (more workers than cores). *item* is the median time of one item run alone on the benchmark's goroutine (a sleep of 1 ms overshoots); *bound* is ceil(n/P)·c, the best schedule on P workers, with c the larger of *cost* and *item*; "+
		"each cell is the median time per op and, in parentheses, that time over the bound; **bold**: a parloop verb above "+
		"the goal, bound + 10%% + 100 µs. `par.For+Grain1` passes `par.Grain(1)`. `wg` is a goroutine per item (no limit: where the bodies sleep its best is c), "+
		"`errgroup` has `SetLimit(P)`. GOMAXPROCS=%d.\n\n", p)
	head := []string{"n", "cost", "item", "pool", "bound"}
	for _, impl := range impls {
		head = append(head, "`"+impl+"`")
	}
	t := table{head: head}
	seen := map[string]bool{}
	for _, name := range s.Names("FewItems/") {
		c := strings.TrimSuffix(name, "/impl="+nameKey(name, "impl"))
		if seen[c] {
			continue
		}
		seen[c] = true
		bound, ok := fewBound(s, c+"/impl="+impls[0], p)
		if !ok {
			continue
		}
		item := "–"
		if v, ok := s.Median(c+"/impl="+impls[0], p, "item-ns"); ok {
			item = fmtTime(v)
		}
		cells := []string{nameKey(c, "n"), nameKey(c, "cost"), item, nameKey(c, "pool"), fmtTime(bound)}
		for _, impl := range impls {
			tm, ok := s.Median(c+"/impl="+impl, p, "ns/op")
			if !ok {
				cells = append(cells, "–")
				continue
			}
			cell := fmt.Sprintf("%s (%s)", fmtTime(tm), fmtX(tm/bound))
			if isParloop(impl) && tm > fewGoal(bound) {
				cell = "**" + cell + "**"
			}
			cells = append(cells, cell)
		}
		t.add(cells...)
	}
	b.WriteString(t.String() + "\n")
}

// writeBlockingTable lists the 500-file loop's implementations.
func writeBlockingTable(b *strings.Builder, s *Set) {
	p := s.MaxProcs()
	const prefix = "Blocking/work=files/"
	impls := keyValues(s, prefix, "impl")
	if p == 0 || len(impls) == 0 {
		return
	}
	fmt.Fprintf(b, "### Blocking bodies: 500 files\n\n"+
		"500 bodies, each reading a 4 KB file and sleeping 2 ms (standing for I/O latency), GOMAXPROCS=%d. `par.For` "+
		"is the plain call (its bodies hold the pool's workers); `+Blocking64` is the call with `par.Blocking(64)`; "+
		"`wg` a goroutine per file; `chan64` 64 goroutines taking indices from a channel; `errgroup64` a goroutine per file "+
		"with `SetLimit(64)`.\n\n", p)
	t := table{head: []string{"impl", "time", "cpu/op", "allocs/op", "n", "spread"}}
	for _, impl := range impls {
		name := prefix + "impl=" + impl
		tm, ok := s.Median(name, p, "ns/op")
		if !ok {
			continue
		}
		cpu, _ := s.Median(name, p, "cpu-ns/op")
		al, _ := s.Median(name, p, "allocs/op")
		spread := math.NaN()
		if v := s.Values(name, p, "ns/op"); len(v) > 1 {
			spread = (slices.Max(v) - slices.Min(v)) / tm
		}
		t.add("`"+impl+"`", fmtTime(tm), fmtTime(cpu), fmtNum(al), strconv.Itoa(s.Count(name, p)), fmtPct(spread))
	}
	b.WriteString(t.String() + "\n")
}

// pairedOr returns the phase paired's set if it has the benchmark name
// (runs since that phase existed), else fallback (the main suite, for raw
// outputs written before it).
func pairedOr(paired, fallback *Set, name string) *Set {
	if paired.Has(name, 2) {
		return paired
	}
	return fallback
}
