package main

import (
	"fmt"
	"io"
	"math"
	"runtime"
	"runtime/metrics"
	"slices"
	"time"

	"golang.org/x/exp/stats"
)

// The report: each build's figures summarised over the rounds, as a table of
// medians and the per-round times.

// summary is a strategy's figures over the rounds: the median of each
// (golang.org/x/exp/stats), the speedup and the work being the medians of
// the rounds' paired ratios (round r's sequential time over round r's
// time; round r's CPU time over round r's sequential CPU time).
type summary struct {
	name        string
	time        time.Duration
	phase2      time.Duration
	cpu         time.Duration // 0: unknown
	speedup     float64       // 0: no sequential build to compare with
	speedupLo   float64       // the least and the greatest of the rounds' ratios
	speedupHi   float64
	work        float64 // 0: no sequential build, or no CPU time
	imbalance   float64
	utilization float64
	skew        float64 // 0: unknown
	steals      float64 // -1 for the hand-written strategies
	cpus        float64 // 0: unknown
	pool        string  // the last round's Pool.Stats, rendered; "" for the others
}

// summarize sums up the rounds' builds per strategy, in the order of names.
func summarize(names []string, rounds [][]result) []summary {
	seq := slices.Index(names, "sequential")
	var out []summary
	for i, name := range names {
		var ts, ps, cs, sp, wk, imb, util, strag, steals, cp []float64
		s := summary{name: name}
		for _, round := range rounds {
			r := round[i]
			ts, ps = append(ts, float64(r.time)), append(ps, float64(r.phase2))
			if r.cpu > 0 {
				cs = append(cs, float64(r.cpu))
			}
			if seq >= 0 && r.time > 0 {
				sp = append(sp, float64(round[seq].time)/float64(r.time))
			}
			if seq >= 0 && r.cpu > 0 && round[seq].cpu > 0 {
				wk = append(wk, float64(r.cpu)/float64(round[seq].cpu))
			}
			imb = append(imb, r.spread.imbalance)
			util = append(util, r.spread.utilization)
			if st := itemSkew(r.items); st > 0 {
				strag = append(strag, st)
			}
			steals = append(steals, float64(r.spread.steals))
			if r.cpu > 0 && r.time > 0 {
				cp = append(cp, r.cpu.Seconds()/r.time.Seconds())
			}
			s.pool = r.spread.pool
		}
		s.time, s.phase2, s.cpu = time.Duration(stats.Median(ts)), time.Duration(stats.Median(ps)), time.Duration(medianOr0(cs))
		s.speedup, s.work, s.skew, s.cpus = medianOr0(sp), medianOr0(wk), medianOr0(strag), medianOr0(cp)
		if len(sp) > 0 {
			s.speedupLo, s.speedupHi = slices.Min(sp), slices.Max(sp)
		}
		s.imbalance, s.utilization, s.steals = stats.Median(imb), stats.Median(util), stats.Median(steals)
		out = append(out, s)
	}
	return out
}

// medianOr0 is the median of xs, or 0 for none.
func medianOr0(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	return stats.Median(xs)
}

// gcCycles returns the garbage collections completed so far.
func gcCycles() uint64 {
	s := []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}

// printTable prints -strategy all's table: one line per strategy, the
// medians over the rounds, with the range of the paired speedups.
func printTable(w io.Writer, runs []summary, P, rounds int) {
	fmt.Fprintf(w, "%d workers (GOMAXPROCS=%d)\n", P, runtime.GOMAXPROCS(0))
	fmt.Fprintf(w, "%-13s %9s %9s %9s %8s %11s %6s %10s %10s %12s %7s %5s\n", "strategy", "time", "phase2", "cpu", "speedup", "range", "work", "imbalance", "skew", "utilization", "steals", "cpus")
	for _, r := range runs {
		speedup, spread, work, cpu := "-", "-", "-", "-"
		if r.speedup > 0 {
			speedup = fmt.Sprintf("%.2fx", r.speedup)
			spread = fmt.Sprintf("%.2f-%.2f", r.speedupLo, r.speedupHi)
		}
		if r.work > 0 {
			work = fmt.Sprintf("%.2f", r.work)
		}
		if r.cpu > 0 {
			cpu = r.cpu.Round(time.Millisecond).String()
		}
		imb, util, steals, strag := fmt.Sprintf("%.2f", r.imbalance), fmt.Sprintf("%.1f%%", 100*r.utilization), "-", "-"
		if r.steals >= 0 {
			steals = fmt.Sprint(math.Round(r.steals))
		}
		if r.name == "sequential" {
			imb, util = "-", "-"
		}
		if r.skew > 0 {
			strag = fmt.Sprintf("%.0f", r.skew)
		}
		fmt.Fprintf(w, "%-13s %9v %9v %9s %8s %11s %6s %10s %10s %12s %7s %5s\n", r.name, r.time.Round(time.Millisecond), r.phase2.Round(time.Millisecond), cpu, speedup, spread, work, imb, strag, util, steals, fmtCPUs(r.cpus))
	}
	fmt.Fprintf(w, "(time, phase2, cpu: medians of %d round(s); speedup: the sequential build's time over the strategy's,\n"+
		"work: its CPU time over the sequential build's, both the medians of the rounds' paired ratios, range: the least and greatest)\n", rounds)
}

// printRounds prints every build's wall time, then its CPU time (the
// process's, over the build), then the garbage collections that ended
// during it, a line per round and a column per strategy:
// the pairs behind the medians, for A/B comparisons. On a machine shared
// with other work the CPU times are the steadier: they count the work
// done, not the time spent waiting for a CPU.
func printRounds(w io.Writer, names []string, rounds [][]result) {
	for _, what := range []string{"wall", "CPU", "GC"} {
		unit := "times per round (ms)"
		if what == "GC" {
			unit = "cycles per round"
		}
		fmt.Fprintf(w, "\nbuild %s %s, the strategies in turn:\n%-6s", what, unit, "round")
		for _, n := range names {
			fmt.Fprintf(w, " %13s", n)
		}
		fmt.Fprintln(w)
		for i, round := range rounds {
			fmt.Fprintf(w, "%-6d", i+1)
			for _, r := range round {
				switch what {
				case "wall":
					fmt.Fprintf(w, " %13.1f", float64(r.time.Microseconds())/1e3)
				case "CPU":
					fmt.Fprintf(w, " %13.1f", float64(r.cpu.Microseconds())/1e3)
				default:
					fmt.Fprintf(w, " %13d", r.gcs)
				}
			}
			fmt.Fprintln(w)
		}
	}
	fmt.Fprintln(w)
}

// fmtCPUs formats the CPUs a build had: the process's CPU time over the
// wall time. Below P for a parallel build, the machine was busy with other
// work (or the build waited), and its times say little.
func fmtCPUs(c float64) string {
	if c <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", c)
}

// itemSkew returns the slowest item's time over the median item's, or 0
// if there are none or the median is 0.
func itemSkew(items []time.Duration) float64 {
	if len(items) == 0 {
		return 0
	}
	f := make([]float64, len(items))
	for i, d := range items {
		f[i] = float64(d)
	}
	med := stats.Median(f)
	if med <= 0 {
		return 0
	}
	return slices.Max(f) / med
}
