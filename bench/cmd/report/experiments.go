package main

import (
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"
)

// keyValues lists the values of key among names under prefix, in order of
// first appearance.
func keyValues(s *Set, prefix, key string) []string {
	var vs []string
	seen := map[string]bool{}
	for _, n := range s.Names(prefix) {
		if v := nameKey(n, key); v != "" && !seen[v] {
			seen[v] = true
			vs = append(vs, v)
		}
	}
	return vs
}

func writeExperiments(b *strings.Builder, main, exp *Set, out, warning string) error {
	b.WriteString("## Work-stealing experiments\n\n" + warning)
	p := exp.MaxProcs()
	if p == 0 {
		b.WriteString("No experiment results in this run.\n\n")
	} else {
		fmt.Fprintf(b, "Run on the real runtime at %d workers (GOMAXPROCS=%d). The victim and back-off experiments run each "+
			"setting on a fresh pool started with `PARLOOP_EXPERIMENT` set to it (`victims=…`, `backoff=…`), the library's "+
			"switch for policies users have no reason to change. Generated findings follow each table; the interpretation is in the "+
			"hand-written analysis below.\n\n", p, p)
		if err := writeGrain(b, exp, p, out); err != nil {
			return err
		}
		writePolicy(b, exp, p, "Exp_Victims", "victims", "Victim selection",
			"An idle worker picks whom to steal from: `nearest` (topology order, the default), `random`, or `longest` (the longest deque first).")
		if p <= 2 {
			b.WriteString("With 2 workers every thief has exactly one possible victim, so the policies can only differ in " +
				"their bookkeeping; this machine cannot show what victim order is worth.\n\n")
		}
		writePolicy(b, exp, p, "Exp_Backoff", "backoff", "Back-off",
			"`on`: bounded spinning before a worker parks (the default); `off`: park at once. `burst` is a tiny loop then a 1 ms sleep: "+
				"its wall time shows the sleep's overshoot, its CPU time shows spinning.")
	}
	writeWorkers(b, main)
	return nil
}

func writeGrain(b *strings.Builder, s *Set, p int, out string) error {
	works := keyValues(s, "Exp_Grain/", "work")
	if len(works) == 0 {
		return nil
	}
	b.WriteString("### Granularity: the grain hint from 1 to n\n\n`par.For` with `par.Grain(g)`; `auto` passes no hint.\n\n")
	for _, w := range works {
		prefix := "Exp_Grain/work=" + w + "/"
		auto, _ := s.Median(prefix+"grain=auto", p, "ns/op")
		t := table{head: []string{"grain", "time", "vs auto", "pieces/op", "splits/op", "steals/op", "imbalance"}}
		bestG, bestT := "", math.Inf(1)
		worstG, worstT := "", 0.0
		for _, g := range keyValues(s, prefix, "grain") {
			name := prefix + "grain=" + g
			tm, ok := s.Median(name, p, "ns/op")
			if !ok {
				continue
			}
			pc, _ := s.Median(name, p, "pieces/op")
			sp, _ := s.Median(name, p, "splits/op")
			st, _ := s.Median(name, p, "steals/op")
			im, _ := s.Median(name, p, "imbalance")
			t.add(g, fmtTime(tm), fmtX(tm/auto), fmtNum(pc), fmtNum(sp), fmtNum(st), fmtNum(im))
			if g != "auto" && tm < bestT {
				bestG, bestT = g, tm
			}
			if g != "auto" && tm > worstT {
				worstG, worstT = g, tm
			}
		}
		fmt.Fprintf(b, "**%s**\n\n%s\n", w, t.String())
		if bestG != "" {
			fmt.Fprintf(b, "Finding (generated): the best hint on %s is grain=%s (%s); no hint (auto, %s) %s against it. "+
				"The worst hint, grain=%s, takes %s the time of auto.\n\n",
				w, bestG, fmtTime(bestT), fmtTime(auto), compare(auto, bestT, tieBand), worstG, fmtX(worstT/auto))
		}
	}
	png := "exp_grain.png"
	if err := plotGrain(s, p, works, filepath.Join(out, png)); err != nil {
		return err
	}
	fmt.Fprintf(b, "![time against the grain hint](%s)\n\n", png)
	return nil
}

// writePolicy writes a table of workloads against the values of one pool
// option, the first value being the default.
func writePolicy(b *strings.Builder, s *Set, p int, top, key, title, desc string) {
	works := keyValues(s, top+"/", "work")
	if len(works) == 0 {
		return
	}
	vals := keyValues(s, top+"/", key)
	fmt.Fprintf(b, "### %s\n\n%s\n\n", title, desc)
	head := []string{"workload"}
	for _, v := range vals {
		head = append(head, v+": time", v+": cpu/op", v+": steals/op (failed)")
	}
	t := table{head: head}
	var findings []string
	for _, w := range works {
		cells := []string{w}
		base := math.NaN()
		bestV, bestT, worstT := "", math.Inf(1), 0.0
		for i, v := range vals {
			name := top + "/work=" + w + "/" + key + "=" + v
			tm, ok := s.Median(name, p, "ns/op")
			if !ok {
				cells = append(cells, "–", "–", "–")
				continue
			}
			if i == 0 {
				base = tm
			}
			cpu, _ := s.Median(name, p, "cpu-ns/op")
			st, _ := s.Median(name, p, "steals/op")
			fs, _ := s.Median(name, p, "failsteals/op")
			tcell := fmtTime(tm)
			if i > 0 {
				tcell += " (" + fmtX(tm/base) + ")"
			}
			cells = append(cells, tcell, fmtTime(cpu), fmt.Sprintf("%s (%s)", fmtNum(st), fmtNum(fs)))
			if tm < bestT {
				bestV, bestT = v, tm
			}
			worstT = math.Max(worstT, tm)
		}
		t.add(cells...)
		if bestV != "" {
			spread := worstT/bestT - 1
			f := fmt.Sprintf("%s: fastest `%s=%s`, spread between settings %.0f%%", w, key, bestV, 100*spread)
			if spread <= tieBand {
				f += " (within noise)"
			}
			findings = append(findings, f)
		}
	}
	b.WriteString(t.String() + "\n")
	fmt.Fprintf(b, "Times in parentheses are relative to `%s=%s`.\n\n", key, vals[0])
	b.WriteString("Findings (generated):\n\n")
	for _, f := range findings {
		b.WriteString("- " + f + ".\n")
	}
	if key == "backoff" {
		for _, w := range works {
			on := top + "/work=" + w + "/backoff=on"
			off := top + "/work=" + w + "/backoff=off"
			ton, ok1 := s.Median(on, p, "ns/op")
			toff, ok2 := s.Median(off, p, "ns/op")
			con, ok3 := s.Median(on, p, "cpu-ns/op")
			coff, ok4 := s.Median(off, p, "cpu-ns/op")
			if ok1 && ok2 && ok3 && ok4 {
				fmt.Fprintf(b, "- %s: turning back-off off changes wall time by %+.0f%% and CPU time by %+.0f%%.\n",
					w, 100*(toff/ton-1), 100*(coff/con-1))
			}
		}
	}
	b.WriteString("\n")
}

// writeWorkers is the worker-count experiment: the GOMAXPROCS sweep of the
// main suite.
func writeWorkers(b *strings.Builder, s *Set) {
	procs := s.Procs()
	if len(procs) == 0 {
		return
	}
	b.WriteString("### Worker count from 1 to the number of CPUs\n\n" +
		"The GOMAXPROCS sweep of the main suite (one process per GOMAXPROCS in " + joinInts(procs) + "); pools follow GOMAXPROCS. " +
		"Speedup of parloop's best verb and of the best peer over seq at the same GOMAXPROCS; efficiency is speedup / P. " +
		"The per-workload plots above show every peer.\n\n")
	head := []string{"workload"}
	for _, p := range procs {
		head = append(head, "parloop P="+strconv.Itoa(p))
	}
	for _, p := range procs {
		head = append(head, "best peer P="+strconv.Itoa(p))
	}
	maxp := procs[len(procs)-1]
	head = append(head, fmt.Sprintf("parloop efficiency P=%d", maxp))
	t := table{head: head}
	for _, w := range workloadList {
		cells := []string{w.Title}
		var eff float64 = math.NaN()
		for _, p := range procs {
			bl, ok := bestOf(rows(s, w.Top, p), parloopRow)
			if !ok {
				cells = append(cells, "–")
				continue
			}
			cells = append(cells, fmtX(bl.Speedup))
			if p == maxp {
				eff = bl.Speedup / float64(p)
			}
		}
		for _, p := range procs {
			bp, ok := bestOf(rows(s, w.Top, p), peerRow)
			if !ok {
				cells = append(cells, "–")
				continue
			}
			cells = append(cells, fmt.Sprintf("%s (%s)", fmtX(bp.Speedup), bp.Peer))
		}
		cells = append(cells, fmtPct(eff))
		if len(s.Names(w.Top+"/")) > 0 {
			t.add(cells...)
		}
	}
	b.WriteString(t.String() + "\n")
}
