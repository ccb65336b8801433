package main

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// fib30Forks is the number of forks of fib(30) forking at every call.
const fib30Forks = 1346268

// GoalRow is one line of the goal table.
type GoalRow struct {
	Goal, Target, Measured, Spread string
	Procs                          int
	Samples                        int
	Verdict                        string // "pass", "FAIL", "info", "n/a"
}

func verdict(ok bool) string {
	if ok {
		return "pass"
	}
	return "**FAIL**"
}

// ratioSummary is the median and the range of paired ratios.
// ratioRow makes a goal row from ratios r, paired by round, of A's time over
// B's; with faster, r holds B's over A's and the row says "× faster" (or
// "× slower" below 1). ok judges the median (nil: an info row). It
// reports false when there are no ratios.
func ratioRow(goal string, p int, target string, r []float64, faster bool, ok func(float64) bool) (GoalRow, bool) {
	if len(r) == 0 {
		return GoalRow{}, false
	}
	med, sp := ratioSummary(r)
	measured := fmtX(med) + " the time"
	switch {
	case faster && med >= 1:
		measured = fmtX(med) + " faster"
	case faster:
		measured = fmtX(1/med) + " slower"
	}
	row := GoalRow{Goal: goal, Procs: p, Target: target, Measured: measured, Spread: sp, Samples: len(r), Verdict: "info"}
	if ok != nil {
		row.Verdict = verdict(ok(med))
	}
	return row, true
}

func ratioSummary(r []float64) (med float64, spread string) {
	if len(r) == 0 {
		return math.NaN(), "–"
	}
	return median(r), fmt.Sprintf("%s – %s", fmtX(slices.Min(r)), fmtX(slices.Max(r)))
}

// evalGoals turns the goal benchmarks into the goal table.
func evalGoals(g, g2 *Set) []GoalRow {
	var out []GoalRow
	add := func(r GoalRow) { out = append(out, r) }

	// Invoke / Join fast path.
	for _, p := range g.Procs() {
		for _, op := range []string{"Invoke", "Join", "Both", "BothOf"} {
			name := "Goal_Invoke/op=" + op + "/impl=parloop"
			ns, ok := g.Median(name, p, "ns/op")
			if !ok {
				continue
			}
			al, _ := g.Median(name, p, "allocs/op")
			call := "(f, g)"
			switch op {
			case "BothOf":
				call = "(f, 1, g, 2)"
			case "Invoke":
				call = "([]func(){f, g})"
			}
			add(GoalRow{Goal: fmt.Sprintf("`par.%s%s`, empty f and g, inside a body", op, call), Procs: p,
				Target: "≤ 25 ns, 0 allocs", Measured: fmt.Sprintf("%s, %s allocs", fmtTime(ns), fmtNum(al)),
				Spread: timeRange(g.Values(name, p, "ns/op")), Samples: g.Count(name, p), Verdict: verdict(ns <= 25 && al == 0)})
		}
		for _, op := range []string{"outside", "call"} {
			impl := "parloop"
			what := "`par.Invoke([]func(){f, g}, par.On(par.Default()))` from a goroutine that is not a worker"
			if op == "call" {
				impl, what = "base", "`f(); g()` through func values (scale)"
			}
			name := "Goal_Invoke/op=" + op + "/impl=" + impl
			if ns, ok := g.Median(name, p, "ns/op"); ok {
				al, _ := g.Median(name, p, "allocs/op")
				add(GoalRow{Goal: what, Procs: p, Target: "–", Measured: fmt.Sprintf("%s, %s allocs", fmtTime(ns), fmtNum(al)),
					Spread: timeRange(g.Values(name, p, "ns/op")), Samples: g.Count(name, p), Verdict: "info"})
			}
		}
	}

	// fib(30).
	for _, impl := range []string{"par.Join", "par.Invoke", "par.Both", "par.BothOf"} {
		name := "Goal_Fib30/impl=" + impl
		for _, p := range g.Procs() {
			r := g.PairedRatios("Goal_Fib30/impl=wg", name, p, "ns/op")
			if med, sp := ratioSummary(r); len(r) > 0 {
				add(GoalRow{Goal: fmt.Sprintf("fib(30) forking at every call: `%s` against a goroutine per fork (`wg`)", impl), Procs: p,
					Target: "≥ 30× faster", Measured: fmtX(med) + " faster", Spread: sp, Samples: len(r), Verdict: verdict(med >= 30)})
			}
		}
		if par1, ok := g.Median(name, 1, "ns/op"); ok {
			seq1, _ := g.Median("Goal_Fib30/impl=seq", 1, "ns/op")
			al, _ := g.Median(name, 1, "allocs/op")
			per := (par1 - seq1) / fib30Forks
			// Per-round overhead, paired, for the spread.
			pv, sv := g.Values(name, 1, "ns/op"), g.Values("Goal_Fib30/impl=seq", 1, "ns/op")
			var ov []float64
			for i := 0; i < min(len(pv), len(sv)); i++ {
				ov = append(ov, (pv[i]-sv[i])/fib30Forks)
			}
			sp := "–"
			if len(ov) > 0 {
				sp = fmt.Sprintf("%s – %s", fmtTime(slices.Min(ov)), fmtTime(slices.Max(ov)))
			}
			add(GoalRow{Goal: fmt.Sprintf("fib(30), `%s`: overhead per fork, (time − seq)/1,346,268", impl), Procs: 1,
				Target: "≤ 40 ns; allocs per fork stated", Measured: fmt.Sprintf("%s/fork, %.2f allocs/fork", fmtTime(per), al/fib30Forks),
				Spread: sp, Samples: len(ov), Verdict: verdict(per <= 40)})
		}
		if r := g.PairedRatiosProcs(name, 1, 2, "ns/op"); len(r) > 0 {
			med, sp := ratioSummary(r)
			add(GoalRow{Goal: fmt.Sprintf("fib(30), `%s`: 2 workers against 1", impl), Procs: 2, Target: "≥ 1.8× faster",
				Measured: fmtX(med) + " faster", Spread: sp, Samples: len(r), Verdict: verdict(med >= 1.8)})
		}
	}
	if r := g.PairedRatios("Goal_Fib30/impl=seq", "Goal_Fib30/impl=seq-x2", 2, "ns/op"); len(r) > 0 {
		for i := range r {
			r[i] *= 2 // seq-x2 times a pair of copies
		}
		med, sp := ratioSummary(r)
		add(GoalRow{Goal: "fib(30), the machine's ceiling for 2 against 1: two sequential copies at once against one (throughput)", Procs: 2,
			Target: "–", Measured: fmtX(med), Spread: sp, Samples: len(r), Verdict: "info"})
	}
	if wg, ok := g.Median("Goal_Fib30/impl=wg", g.MaxProcs(), "ns/op"); ok {
		seq, _ := g.Median("Goal_Fib30/impl=seq", g.MaxProcs(), "ns/op")
		add(GoalRow{Goal: "fib(30): goroutine per fork (`wg`), for scale", Procs: g.MaxProcs(), Target: "–",
			Measured: fmt.Sprintf("%s (%s/fork over seq)", fmtTime(wg), fmtTime((wg-seq)/fib30Forks)), Samples: g.Count("Goal_Fib30/impl=wg", g.MaxProcs()), Verdict: "info"})
	}

	// Loops: parloop/base <= target (tiny) or base/parloop >= target (uniform, mandelbrot).
	pairs := func(s *Set, top, pair, what string, procs []int, target float64, speedup bool) {
		for _, p := range procs {
			base, parl := top+"/pair="+pair+"/impl=base", top+"/pair="+pair+"/impl=parloop"
			var r []float64
			if speedup {
				r = s.PairedRatios(base, parl, p, "ns/op")
			} else {
				r = s.PairedRatios(parl, base, p, "ns/op")
			}
			if len(r) == 0 {
				continue
			}
			med, sp := ratioSummary(r)
			row := GoalRow{Goal: what, Procs: p, Spread: sp, Samples: len(r)}
			if speedup {
				row.Target, row.Measured, row.Verdict = fmt.Sprintf("≥ %.2f× faster", target), fmtX(med)+" faster", verdict(med >= target)
			} else {
				row.Target, row.Measured, row.Verdict = fmt.Sprintf("≤ %.1f× the time", target), fmtX(med)+" the time", verdict(med <= target)
			}
			add(row)
			if r := s.PairedRatios(base, top+"/pair="+pair+"/impl=halves", p, "ns/op"); speedup && len(r) > 0 {
				med, sp := ratioSummary(r)
				add(GoalRow{Goal: "for scale, the row above's base loop split statically in two by hand, on two goroutines (no scheduler; a busy CPU holds it back)", Procs: p,
					Target: "–", Measured: fmtX(med) + " faster", Spread: sp, Samples: len(r), Verdict: "info"})
			}
		}
	}
	pairs(g, "Goal_Tiny", "For-vs-seq-func", "tiny n=1000: `par.For` against the loop calling the same func value", g.Procs(), 1.5, false)
	pairs(g, "Goal_Tiny", "ForRange-vs-seq", "tiny n=1000: `par.ForRange` against the plain loop (its range body over [0, n), one goroutine)", g.Procs(), 1.5, false)
	pairs(g2, "Goal_Uniform", "For-vs-seq-func", "uniform n=10M: `par.For` against the loop calling the same func value", []int{2}, 1.9, true)
	pairs(g2, "Goal_Uniform", "ForRange-vs-seq", "uniform n=10M: `par.ForRange` against the plain loop (its range body over [0, n), one goroutine)", []int{2}, 1.9, true)
	pairs(g2, "Goal_Mandelbrot", "For-vs-seq", "mandelbrot 1024×1024 over rows: `par.For` against the plain loop", []int{2}, 1.85, true)

	// Allocations of par.For whatever n.
	worst, where, n := math.Inf(-1), "", 0
	var per []string
	for _, name := range g.Names("Goal_ForAllocs/") {
		for _, p := range g.Procs() {
			for _, a := range g.Values(name, p, "allocs/op") {
				n++
				if a > worst {
					worst, where = a, fmt.Sprintf("%s at P=%d", nameKey(name, "n"), p)
				}
			}
			if a, ok := g.Median(name, p, "allocs/op"); ok && p == g.MaxProcs() {
				per = append(per, "n="+nameKey(name, "n")+": "+fmtNum(a))
			}
		}
	}
	if n > 0 {
		add(GoalRow{Goal: "`par.For` allocations per call, n = 1, 1000, 1M", Procs: g.MaxProcs(), Target: "≤ 2 whatever n",
			Measured: strings.Join(per, ", "), Spread: "worst sample: " + fmtNum(worst) + " (n=" + where + ")", Samples: n, Verdict: verdict(worst <= 2)})
	}

	// Pinning: information for choosing the default.
	for _, w := range []string{"uniform", "mandelbrot"} {
		r := g2.PairedRatios("Goal_Pinning/work="+w+"/impl=pinned", "Goal_Pinning/work="+w+"/impl=unpinned", 2, "ns/op")
		if len(r) == 0 {
			continue
		}
		med, sp := ratioSummary(r)
		word := "no difference beyond noise"
		if med < 1-tieBand {
			word = fmt.Sprintf("pinned is %.0f%% faster", 100*(1-med))
		} else if med > 1+tieBand {
			word = fmt.Sprintf("pinned is %.0f%% slower", 100*(med-1))
		}
		add(GoalRow{Goal: "pinned against unpinned pool: " + w, Procs: 2, Target: "decide the default by measurement",
			Measured: fmtX(med) + " the time: " + word, Spread: sp, Samples: len(r), Verdict: "info"})
	}
	return out
}

func timeRange(v []float64) string {
	if len(v) == 0 {
		return "–"
	}
	return fmt.Sprintf("%s – %s", fmtTime(slices.Min(v)), fmtTime(slices.Max(v)))
}

func writeGoals(b *strings.Builder, g, g2 *Set, warning string) {
	b.WriteString("## Goals\n\n" +
		"The runtime's targets, each measured as A against B in one run: every round runs A then B in the same " +
		"process (and P=1 then P=2 in consecutive processes), so that the samples alternate and both sides see the same " +
		"machine. *Measured* is the median of the paired ratios (round i of A against round i of B); *range* is their " +
		"minimum and maximum. benchstat's comparison of the same samples, with p-values, is at the end.\n\n")
	b.WriteString(warning)
	rows := evalGoals(g, g2)
	if len(rows) == 0 {
		b.WriteString("No goal benchmarks in this run.\n\n")
		return
	}
	t := table{head: []string{"goal", "P", "target", "measured", "range", "n", "result"}}
	pass, fail := 0, 0
	for _, r := range rows {
		t.add(r.Goal, strconv.Itoa(r.Procs), r.Target, r.Measured, r.Spread, strconv.Itoa(r.Samples), r.Verdict)
		switch r.Verdict {
		case "pass":
			pass++
		case "**FAIL**":
			fail++
		}
	}
	fmt.Fprintf(b, "%d rows pass, %d fail (a goal has one row per worker count it applies to; *info* rows have no target).\n\n", pass, fail)
	b.WriteString(t.String() + "\n")
}
