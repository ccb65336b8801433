package main

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// The section on machines with more cores than this one: the raw outputs of
// the latest run on a lent machine (raw/device*/, made by the run.sh beside
// them in one call), in the formats of the phases: main.txt (the main suite
// at GOMAXPROCS 1 to the machine's CPUs), weighted.txt, exp.txt (the
// PARLOOP_EXPERIMENT settings at the largest GOMAXPROCS, the default first),
// pinning.txt, tfidf-P<n>.txt (examples/tfidf, -strategy all), and ab.txt
// (an A/B of two library versions, old and new, alternated), any of them
// missing if the run did not get that far.

// scalingTargets are the speedup targets at 16 cores.
var scalingTargets = map[string]float64{"Mandelbrot": 14, "Skewed": 14, "Quicksort": 12}

// latestDeviceDir returns the last raw/device*/ directory (by name) that has
// a main.txt, or "".
func latestDeviceDir(raw string) string {
	dirs, _ := filepath.Glob(filepath.Join(raw, "device*", "main.txt"))
	sort.Strings(dirs)
	if len(dirs) == 0 {
		return ""
	}
	return filepath.Dir(dirs[len(dirs)-1])
}

// machineLines picks lscpu's model and CPU count, the topology example's
// summary line and the date from machine.txt.
func machineLines(dir string) (date, model, cpus, topo string) {
	f, err := os.Open(filepath.Join(dir, "machine.txt"))
	if err != nil {
		return
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for first := true; sc.Scan(); first = false {
		l := sc.Text()
		k, v, _ := strings.Cut(l, ":")
		switch {
		case first:
			date = l
		case k == "Model name":
			model = strings.TrimSpace(v)
		case k == "CPU(s)":
			cpus = strings.TrimSpace(v)
		case strings.HasPrefix(l, "Machine ("):
			topo = l
		}
	}
	return
}

// writeScaling writes the section on the lent machine, if raw has a run of
// it, with one plot per workload.
func writeScaling(b *strings.Builder, raw, out string) error {
	dir := latestDeviceDir(raw)
	if dir == "" {
		b.WriteString("## Beyond two cores\n\nNot measured: no run on a larger machine in `raw/device*/`.\n\n")
		return nil
	}
	s, err := loadSet(dir, "main")
	if err != nil {
		return err
	}
	maxp := s.MaxProcs()
	rel, _ := filepath.Rel(filepath.Dir(raw), dir)
	date, model, cpus, topo := machineLines(dir)
	fmt.Fprintf(b, "## Beyond two cores: %d workers\n\n", maxp)
	library := "built here"
	if l, err := os.ReadFile(filepath.Join(dir, "library.txt")); err == nil {
		library = strings.TrimSpace(string(l))
	}
	fmt.Fprintf(b, "A machine with more cores was lent for a few minutes; `%s/run.sh` ran there in one call, with the "+
		"bench binary and examples built here (raw outputs beside it). Library measured: %s Machine: %s, %s CPUs (`lscpu`); "+
		"`examples/topology`: %s. Started %s. The machine is a shared VM too: %s. Medians of %s samples; the speedup is over `seq` "+
		"at the same GOMAXPROCS.\n\n", rel, library, model, cpus, "`"+topo+"`", date, seqSpread(s), sampleCounts(s))
	procs := s.Procs()
	head := []string{"workload"}
	for _, p := range procs {
		head = append(head, fmt.Sprintf("P=%d parloop / best peer", p))
	}
	head = append(head, fmt.Sprintf("at P=%d", maxp), "target")
	t := table{head: head}
	for _, w := range workloadList {
		if len(s.Names(w.Top+"/")) == 0 {
			continue
		}
		cells := []string{w.Title}
		var bl, bp Row
		for _, p := range procs {
			rs := rows(s, w.Top, p)
			l, ok1 := bestOf(rs, parloopRow)
			q, ok2 := bestOf(rs, peerRow)
			if !ok1 || !ok2 {
				cells = append(cells, "–")
				continue
			}
			cells = append(cells, fmt.Sprintf("%s / %s", fmtX(l.Speedup), fmtX(q.Speedup)))
			bl, bp = l, q
		}
		verdict := "–"
		if bl.Peer != "" {
			verdict = fmt.Sprintf("`%s` against `%s`: %s", bl.Peer, bp.Peer, compare(bl.T, bp.T, tieBand))
		}
		target := "–"
		if x, ok := scalingTargets[w.Top]; ok && bl.Peer != "" {
			target = fmt.Sprintf("≥ %.0f×: %s", x, map[bool]string{true: "met", false: "**missed**"}[bl.Speedup >= x])
		}
		cells = append(cells, verdict, target)
		t.add(cells...)
		png := fmt.Sprintf("scale%d_%s.png", maxp, strings.ToLower(w.Top))
		if err := plotSpeedup(s, w, filepath.Join(out, png)); err != nil {
			return err
		}
	}
	b.WriteString(t.String() + "\n")
	b.WriteString("Plots (speedup against workers, every peer): ")
	var links []string
	for _, w := range workloadList {
		if len(s.Names(w.Top+"/")) != 0 {
			links = append(links, fmt.Sprintf("[%s](scale%d_%s.png)", w.Title, maxp, strings.ToLower(w.Top)))
		}
	}
	b.WriteString(strings.Join(links, ", ") + ".\n\n")
	writeScalingTFIDF(b, dir)
	writeScalingPinning(b, dir, maxp)
	writeScalingSections(b, dir, "exp.txt", "experiment",
		fmt.Sprintf("Scheduling policies at P=%d (`PARLOOP_EXPERIMENT`, each setting against the default, alternated, 5 ops a sample)", maxp))
	writeScalingSections(b, dir, "ab.txt", "",
		"A/B (`ab.txt`: each column a side the library line above names, alternated in one call)")
	return nil
}

// seqSpread says how far the sequential rows moved between processes at
// the same GOMAXPROCS (the largest over the smallest sample of each
// workload's seq), the run's own measure of its noise.
func seqSpread(s *Set) string {
	var spreads []float64
	for _, w := range workloadList {
		for _, p := range s.Procs() {
			v := s.Values(w.Top+"/peer=seq", p, "ns/op")
			if len(v) < 2 {
				continue
			}
			spreads = append(spreads, slices.Max(v)/slices.Min(v)-1)
		}
	}
	if len(spreads) == 0 {
		return "one sample of each row, so its noise is not measured here"
	}
	m := median(spreads)
	return fmt.Sprintf("the same `seq` row in two processes differed by %.0f%% (median over workloads and P) and up to %.0f%%, "+
		"so differences under about %.0f%% are noise", 100*m, 100*slices.Max(spreads), 100*max(m, 0.05))
}

// sampleCounts says how many samples the parloop rows have at each P.
func sampleCounts(s *Set) string {
	var parts []string
	for _, p := range s.Procs() {
		n := 0
		for _, name := range s.Names("Mandelbrot/") {
			n = max(n, s.Count(name, p))
		}
		parts = append(parts, fmt.Sprintf("%d at P=%d", n, p))
	}
	return strings.Join(parts, ", ")
}

// writeScalingTFIDF tabulates tfidf-P<n>.txt: each strategy's speedup.
func writeScalingTFIDF(b *strings.Builder, dir string) {
	files, _ := filepath.Glob(filepath.Join(dir, "tfidf-P*.txt"))
	type run struct {
		p int
		t tfidfTable
	}
	var runs []run
	for _, f := range files {
		p, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(filepath.Base(f), "tfidf-P"), ".txt"))
		data, err2 := os.ReadFile(f)
		if err != nil || err2 != nil {
			continue
		}
		if t := parseTFIDFTable(string(data)); t.ok {
			runs = append(runs, run{p, t})
		}
	}
	if len(runs) == 0 {
		return
	}
	sort.Slice(runs, func(i, j int) bool { return runs[i].p < runs[j].p })
	b.WriteString("TF-IDF indexing of `$(go env GOROOT)/src` (`tfidf -strategy all`, the medians over its rounds; speedup over its own sequential build in the same process):\n\n")
	strategies := runs[0].t.strategies
	t := table{head: append([]string{"P"}, strategies...)}
	for _, r := range runs {
		cells := []string{strconv.Itoa(r.p)}
		for _, st := range strategies {
			v, ok := r.t.speedup[st]
			if !ok || math.IsNaN(v) {
				cells = append(cells, "–")
				continue
			}
			cells = append(cells, fmtX(v))
		}
		t.add(cells...)
	}
	b.WriteString(t.String() + "\n")
}

// writeScalingPinning compares pinned and unpinned pools (Goal_Pinning).
func writeScalingPinning(b *strings.Builder, dir string, maxp int) {
	s, err := loadSet(dir, "pinning")
	if err != nil || len(s.Names("Goal_Pinning/")) == 0 {
		return
	}
	t := table{head: []string{"work", "unpinned", "pinned", "pinned / unpinned"}}
	for _, work := range []string{"uniform", "mandelbrot"} {
		u, ok1 := s.Median("Goal_Pinning/work="+work+"/impl=unpinned", maxp, "ns/op")
		p, ok2 := s.Median("Goal_Pinning/work="+work+"/impl=pinned", maxp, "ns/op")
		if ok1 && ok2 {
			t.add(work, fmtTime(u), fmtTime(p), fmtX(p/u))
		}
	}
	fmt.Fprintf(b, "Pinned against unpinned pool at P=%d (`Goal_Pinning`, medians):\n\n%s\n", maxp, t.String())
}

// writeScalingSections tabulates a file of sections headed "=== <label> ..."
// (exp.txt: "=== experiment <setting> round r"; ab.txt: "=== <old|new>
// P=<n> round r"): the median time of every benchmark under each label,
// and its ratio to the first label's.
func writeScalingSections(b *strings.Builder, dir, file, word, title string) {
	data, err := os.ReadFile(filepath.Join(dir, file))
	if err != nil {
		return
	}
	chunks := map[string]*strings.Builder{}
	var labels []string
	var cur *strings.Builder
	for _, l := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(l, "=== "); ok {
			f := strings.Fields(strings.TrimPrefix(rest, word))
			if len(f) == 0 {
				cur = nil
				continue
			}
			label := f[0]
			if len(f) > 1 && strings.HasPrefix(f[1], "P=") {
				label += " " + f[1]
			}
			if chunks[label] == nil {
				chunks[label] = &strings.Builder{}
				labels = append(labels, label)
			}
			cur = chunks[label]
			continue
		}
		if cur != nil {
			cur.WriteString(l + "\n")
		}
	}
	if len(labels) < 2 {
		return
	}
	sets := map[string]*Set{}
	for _, lb := range labels {
		rs, err := ParseBench(strings.NewReader(chunks[lb].String()))
		if err != nil {
			return
		}
		sets[lb] = NewSet(rs)
	}
	// Columns: labels sharing a P (ab.txt) are compared with the first of
	// that P; otherwise with the first label.
	base := func(lb string) string {
		_, p, _ := strings.Cut(lb, " ")
		for _, o := range labels {
			if _, q, _ := strings.Cut(o, " "); q == p {
				return o
			}
		}
		return labels[0]
	}
	t := table{head: append([]string{"benchmark"}, labels...)}
	var names []string
	seen := map[string]bool{}
	for _, lb := range labels {
		for _, n := range sets[lb].Names("") {
			if !seen[n] {
				seen[n] = true
				names = append(names, n)
			}
		}
	}
	for _, n := range names {
		cells := []string{"`" + n + "`"}
		for _, lb := range labels {
			s := sets[lb]
			p := s.MaxProcs()
			v, ok := s.Median(n, p, "ns/op")
			if !ok {
				cells = append(cells, "–")
				continue
			}
			cell := fmtTime(v)
			if bl := base(lb); bl != lb {
				if w, ok := sets[bl].Median(n, sets[bl].MaxProcs(), "ns/op"); ok {
					cell += fmt.Sprintf(" (%s)", fmtX(v/w))
				}
			}
			cells = append(cells, cell)
		}
		t.add(cells...)
	}
	against := "`" + labels[0] + "`"
	if strings.Contains(labels[0], " P=") {
		against = "the first column of the same P"
	}
	fmt.Fprintf(b, "%s; medians, in parentheses the ratio to %s:\n\n%s\n", title, against, t.String())
}
