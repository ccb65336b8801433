package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The TF-IDF example (examples/tfidf in the library's module): the full
// report builds it once and, for each corpus, runs `tfidf -strategy
// all,largest-first -runs tfidfRounds` tfidfRuns times (the example builds
// with every strategy in turn, round after round, and prints the medians
// and every build's time per round). It keeps the outputs in
// raw/tfidf.txt and renders a goal table from the rounds' paired times,
// the median speedup per strategy, and each run's table as it is. The
// example may not exist at the commit measured: the report then says so
// and goes on.

const (
	tfidfRaw     = "tfidf.txt"
	tfidfRuns    = 3                // processes per corpus
	tfidfRounds  = 3                // -runs: rounds per process
	tfidfTimeout = 10 * time.Minute // a run of 21 builds of the whole GOROOT took 5m20s on a machine shared with other work
	// tfidfMark starts the report's own lines in raw/tfidf.txt.
	tfidfMark = "#> tfidf"
)

// tfidfArgs are the example's arguments for every corpus.
var tfidfArgs = []string{"-strategy", "all,largest-first", "-runs", strconv.Itoa(tfidfRounds)}

// A tfidfCorpus is a tree the example indexes: its name in the report, and
// the -dir argument (none: the example's default, $(go env GOROOT)/src).
type tfidfCorpus struct {
	name, about string
	dir         func() (string, error)
}

// tfidfCorpora are the trees indexed (a test points them at small trees).
// GOROOT/src is the corpus; the whole GOROOT adds the compiled
// tools and packages of pkg/ and the test/ tree, a corpus every Go
// installation has whose files are more skewed in count order.
var tfidfCorpora = []tfidfCorpus{
	{"src", "`$(go env GOROOT)/src`", func() (string, error) { return "", nil }},
	{"goroot", "`$(go env GOROOT)`, the whole installation", goroot},
}

// goroot returns $(go env GOROOT).
func goroot() (string, error) {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOROOT: %v", err)
	}
	return strings.TrimSpace(string(out)), nil
}

// libDir is the directory of the library the benchmarks compile against.
func libDir() string {
	if out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/parloop/parloop").Output(); err == nil {
		if d := strings.TrimSpace(string(out)); d != "" {
			return d
		}
	}
	return ".."
}

// runTFIDF builds and runs the example, writing raw/tfidf.txt. Only a
// failure to write is an error: an example that is missing, does not build
// or fails is recorded as such.
func runTFIDF(raw, tmp string, budget *retryBudget, progress io.Writer) error {
	path := filepath.Join(raw, tfidfRaw)
	_ = os.Remove(filepath.Join(raw, "tfidf.discarded.txt"))
	lib := libDir()
	unavailable := func(why string) error {
		fmt.Fprintf(progress, "report: tfidf: not available at this commit: %s\n", firstLine(why))
		return os.WriteFile(path, []byte(tfidfMark+": not available at this commit: "+why+"\n"), 0o644)
	}
	if _, err := os.Stat(filepath.Join(lib, "examples", "tfidf")); err != nil {
		return unavailable("there is no examples/tfidf in " + lib)
	}
	bin := filepath.Join(tmp, "tfidf")
	fmt.Fprintln(progress, "report: tfidf: go build -o tfidf ./examples/tfidf (in the library's module)")
	// Built in the library's module: its requirements (the progress bar,
	// x/term) are not the bench module's.
	build := exec.Command("go", "build", "-o", bin, "./examples/tfidf")
	build.Dir = lib
	if out, err := build.CombinedOutput(); err != nil {
		return unavailable(fmt.Sprintf("go build ./examples/tfidf failed: %v\n%s", err, out))
	}
	var all bytes.Buffer
	for _, corpus := range tfidfCorpora {
		args := slices.Clone(tfidfArgs)
		d, err := corpus.dir()
		if err != nil {
			fmt.Fprintf(&all, "%s corpus %s: not run: %v\n", tfidfMark, corpus.name, err)
			continue
		}
		if d != "" {
			args = append(args, "-dir", d)
		}
		line := "tfidf " + strings.Join(args, " ")
		fmt.Fprintf(&all, "%s corpus %s: %s, %d runs, GOMAXPROCS unset (all CPUs)\n", tfidfMark, corpus.name, line, tfidfRuns)
		for r := 1; r <= tfidfRuns; r++ {
			for {
				fmt.Fprintf(progress, "report: tfidf %s run %d/%d: %s\n", corpus.name, r, tfidfRuns, line)
				before := takeCPUSnapshot()
				out, status := runTFIDFOnce(bin, args)
				span := spanOf(before, takeCPUSnapshot())
				fmt.Fprintf(progress, "report: tfidf %s run %d/%d: %s in %v; other processes used %s\n", corpus.name, r, tfidfRuns, status, span.wall.Round(time.Second), span)
				rec := fmt.Sprintf("%s run %d/%d | %s | other processes used %s\n", tfidfMark, r, tfidfRuns, status, span)
				if span.share() > contendedShare && budget.left > span.wall {
					budget.left -= span.wall
					budget.count++
					fmt.Fprintf(progress, "report: other processes took %.0f%% of the machine; running it again\n", 100*span.share())
					if err := appendFile(filepath.Join(raw, "tfidf.discarded.txt"), append([]byte(rec), out...)); err != nil {
						return err
					}
					continue
				}
				all.WriteString(rec)
				all.Write(out)
				if len(out) > 0 && out[len(out)-1] != '\n' {
					all.WriteByte('\n')
				}
				break
			}
			time.Sleep(time.Second) // separate the runs
		}
	}
	return os.WriteFile(path, all.Bytes(), 0o644)
}

// runTFIDFOnce runs the example once and returns its output (stdout then
// stderr) and its exit status in words.
func runTFIDFOnce(bin string, args []string) ([]byte, string) {
	ctx, cancel := context.WithTimeout(context.Background(), tfidfTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	out := stdout.Bytes()
	if stderr.Len() > 0 {
		out = append(append(out, "--- stderr:\n"...), stderr.Bytes()...)
	}
	switch {
	case ctx.Err() != nil:
		return out, fmt.Sprintf("killed after %v", tfidfTimeout)
	case err != nil:
		return out, "failed: " + err.Error()
	}
	return out, "ok"
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

// The thresholds for the indexing phase.
const (
	tfidfMaxImbalance   = 1.1
	tfidfMinUtilization = 0.95
	tfidfMinSpeedup     = 1.85
)

// tfidfCorpusRuns are the runs of one corpus.
func tfidfCorpusRuns(runs []tfidfRun, corpus string) []tfidfRun {
	var out []tfidfRun
	for _, r := range runs {
		if r.corpus == corpus {
			out = append(out, r)
		}
	}
	return out
}

// tfidfPaired returns, over the rounds of the runs that ended well, round
// r's time of a over round r's time of b (wall or CPU).
func tfidfPaired(runs []tfidfRun, a, b string, cpu bool) []float64 {
	var out []float64
	for _, r := range runs {
		if !r.ok() {
			continue
		}
		t := r.wall
		if cpu {
			t = r.cpu
		}
		out = append(out, pairedRatios(t.of(a), t.of(b))...)
	}
	return out
}

// tfidfBestOf returns, over the rounds of the runs that ended well, round
// r's time of a over the least of round r's times of others.
func tfidfBestOf(runs []tfidfRun, a string, others []string) []float64 {
	var out []float64
	for _, r := range runs {
		if !r.ok() {
			continue
		}
		x := r.wall.of(a)
		best := slices.Clone(r.wall.of(others[0]))
		for _, o := range others[1:] {
			for i, v := range r.wall.of(o) {
				if i < len(best) {
					best[i] = min(best[i], v)
				}
			}
		}
		out = append(out, pairedRatios(x, best)...)
	}
	return out
}

// tfidfBalance returns the median over the runs that ended well of
// strategy's imbalance and utilization (each run's own figures are its
// medians over its rounds), and the worst of each.
func tfidfBalance(runs []tfidfRun, strategy string) (imb, util, worstImb, worstUtil float64, n int) {
	var is, us []float64
	for _, r := range runs {
		if !r.ok() {
			continue
		}
		i, u := r.table.value("imbalance", strategy), r.table.value("utilization", strategy)
		if math.IsNaN(i) || math.IsNaN(u) {
			continue
		}
		is, us = append(is, i), append(us, u)
	}
	if len(is) == 0 {
		return math.NaN(), math.NaN(), math.NaN(), math.NaN(), 0
	}
	return median(is), median(us), slices.Max(is), slices.Min(us), len(is)
}

// tfidfWorkers is the worker count the runs' tables give (0 if none does).
func tfidfWorkers(runs []tfidfRun) int {
	for _, r := range runs {
		if r.table.workers > 0 {
			return r.table.workers
		}
	}
	return 0
}

// evalTFIDF turns the runs into goal rows, per corpus: speed against the
// sequential build and the hand-written strategies, weights against none
// and against static chunks, and balance. On GOROOT/src the issue's
// targets apply; on the other corpora speed is for information and
// balance is held to the same thresholds.
func evalTFIDF(runs []tfidfRun) []GoalRow {
	var out []GoalRow
	for _, corpus := range tfidfCorpora {
		cr := tfidfCorpusRuns(runs, corpus.name)
		if len(cr) == 0 {
			continue
		}
		p := tfidfWorkers(cr)
		main := corpus.name == "src"
		on := " on " + corpus.about
		addRatio := func(goal, target string, r []float64, faster bool, ok func(float64) bool) {
			if faster {
				for i := range r {
					r[i] = 1 / r[i]
				}
			}
			if row, have := ratioRow(goal+on, p, target, r, faster, ok); have {
				out = append(out, row)
			}
		}
		notSlower := fmt.Sprintf("not slower (≤ %.2f× the time)", 1+tieBand)
		target, ok := "–", (func(float64) bool)(nil)
		if main {
			target, ok = fmt.Sprintf("≥ %.2f× faster", tfidfMinSpeedup), func(x float64) bool { return x >= tfidfMinSpeedup }
		}
		addRatio("TF-IDF indexing: `stealing` (par.Fold, parloop's default) against `sequential`", target,
			tfidfPaired(cr, "stealing", "sequential", false), true, ok)
		target, ok = "–", nil
		if main {
			target, ok = notSlower, func(x float64) bool { return x <= 1+tieBand }
		}
		addRatio("TF-IDF indexing: `stealing` against the best of `static`, `dynamic` and `semaphore` (a goroutine per file) in the same round", target,
			tfidfBestOf(cr, "stealing", []string{"static", "dynamic", "semaphore"}), false, ok)
		addRatio("TF-IDF indexing: `weighted` (par.Weighted(file sizes)) against `stealing` (no weights)", notSlower,
			tfidfPaired(cr, "weighted", "stealing", false), false, func(x float64) bool { return x <= 1+tieBand })
		addRatio("TF-IDF indexing: `weighted` against `static` (equal chunks by count)", "faster",
			tfidfPaired(cr, "weighted", "static", false), true, func(x float64) bool { return x > 1+tieBand })
		addRatio("TF-IDF indexing: `weighted`'s CPU time against `stealing`'s (the work done, whatever else the machine ran)", "–",
			tfidfPaired(cr, "weighted", "stealing", true), false, nil)
		addRatio("TF-IDF indexing: `largest-first` (weighted, the files sorted by decreasing size) against `weighted` (the walk's order)", "–",
			tfidfPaired(cr, "largest-first", "weighted", false), false, nil)
		addRatio("TF-IDF indexing: `largest-first`'s CPU time against `weighted`'s", "–",
			tfidfPaired(cr, "largest-first", "weighted", true), false, nil)
		balanceTarget := fmt.Sprintf("imbalance < %.1f, utilization > %.0f%%", tfidfMaxImbalance, 100*tfidfMinUtilization)
		for _, s := range []string{"stealing", "weighted"} {
			imb, util, wi, wu, n := tfidfBalance(cr, s)
			if n == 0 {
				continue
			}
			out = append(out, GoalRow{Goal: fmt.Sprintf("TF-IDF indexing phase, `%s`: load imbalance and utilization%s", s, on), Procs: p,
				Target: balanceTarget, Measured: fmt.Sprintf("%.2f, %.1f%%", imb, 100*util), Spread: fmt.Sprintf("worst %.2f, %.1f%%", wi, 100*wu),
				Samples: n, Verdict: verdict(imb < tfidfMaxImbalance && util > tfidfMinUtilization)})
		}
		if imb, util, wi, wu, n := tfidfBalance(cr, "static"); n > 0 {
			out = append(out, GoalRow{Goal: "TF-IDF indexing phase, `static` (equal chunks by count, in the walk's order): load imbalance and utilization" + on, Procs: p,
				Target: "shown missing " + balanceTarget, Measured: fmt.Sprintf("%.2f, %.1f%%: %s", imb, 100*util, missesWord(imb, util, false)),
				Spread: fmt.Sprintf("worst %.2f, %.1f%%", wi, 100*wu), Samples: n, Verdict: "info"})
		}
	}
	return out
}

// missesWord says which of the balance thresholds static chunks miss: as
// a cell ("misses both") or, with they, as a clause ("they miss both").
func missesWord(imb, util float64, they bool) string {
	badI, badU := imb >= tfidfMaxImbalance, util <= tfidfMinUtilization
	verb := map[bool][2]string{false: {"misses", "meets"}, true: {"they miss", "they meet"}}[they]
	switch {
	case badI && badU:
		return verb[0] + " both"
	case badI:
		return verb[0] + " the imbalance threshold"
	case badU:
		return verb[0] + " the utilization threshold"
	}
	return verb[1] + " both"
}

func writeTFIDF(b *strings.Builder, raw string, quick bool) {
	b.WriteString("## TF-IDF index of the Go source tree\n\n")
	if quick {
		b.WriteString("Not run under `-quick`: the full report builds `examples/tfidf` and runs `tfidf " + strings.Join(tfidfArgs, " ") +
			fmt.Sprintf("` %d times on each corpus.\n\n", tfidfRuns))
		return
	}
	data, err := os.ReadFile(filepath.Join(raw, tfidfRaw))
	if err != nil {
		fmt.Fprintf(b, "No `raw/%s`: the example was not run.\n\n", tfidfRaw)
		return
	}
	runs, why := parseTFIDFRaw(string(data))
	if why != "" {
		fmt.Fprintf(b, "`examples/tfidf` is not available at this commit (%s).\n\n", firstLine(why))
		return
	}
	if len(runs) == 0 {
		fmt.Fprintf(b, "`raw/%s` holds no run.\n\n", tfidfRaw)
		return
	}
	fmt.Fprintf(b, "`examples/tfidf` (in the library's module) indexes a source tree for TF-IDF search: every file read and tokenised "+
		"in parallel, with a term table per worker. `tfidf %s` builds the index sequentially and with every strategy in turn, "+
		"round after round (%d rounds), checks that the indexes are identical, and prints a table of the medians over the rounds "+
		"and every build's wall and CPU time per round. The report ran it %s per corpus at GOMAXPROCS unset, measuring the "+
		"other processes' CPU use around each run as for the benchmarks (a contended run is run again within the retry budget). "+
		"The goal rows pair the builds by round (round r of A over round r of B, in the same process); the balance rows take the "+
		"median over the runs of each run's medians. The corpora: %s. Raw output: `raw/%s`.\n\n",
		strings.Join(tfidfArgs, " "), tfidfRounds, runsPerCorpus(runs), corporaList(), tfidfRaw)
	if gs := evalTFIDF(runs); len(gs) > 0 {
		t := table{head: []string{"goal", "P", "target", "measured", "range", "n", "result"}}
		for _, r := range gs {
			t.add(r.Goal, strconv.Itoa(r.Procs), r.Target, r.Measured, r.Spread, strconv.Itoa(r.Samples), r.Verdict)
		}
		b.WriteString(t.String() + "\n")
	}
	b.WriteString(staticSentence(runs))
	for _, corpus := range tfidfCorpora {
		cr := tfidfCorpusRuns(runs, corpus.name)
		if len(cr) == 0 {
			continue
		}
		fmt.Fprintf(b, "### TF-IDF: %s\n\n", corpus.about)
		writeTFIDFSpeedups(b, cr)
		for i, r := range cr {
			fmt.Fprintf(b, "Run %d (%s):\n\n```\n", i+1, r.head)
			if r.ok() {
				b.WriteString(r.table.text)
			} else {
				b.WriteString(strings.TrimRight(r.output, "\n") + "\n")
			}
			b.WriteString("```\n\n")
		}
	}
}

// runsPerCorpus says how many runs each corpus had: "3 times", or
// "1 to 3 times" where they differ.
func runsPerCorpus(runs []tfidfRun) string {
	count := map[string]int{}
	for _, r := range runs {
		count[r.corpus]++
	}
	lo, hi := len(runs), 0
	for _, n := range count {
		lo, hi = min(lo, n), max(hi, n)
	}
	if lo == hi {
		return fmt.Sprintf("%d times", lo)
	}
	return fmt.Sprintf("%d to %d times", lo, hi)
}

// corporaList names the corpora for the text.
func corporaList() string {
	var names []string
	for _, c := range tfidfCorpora {
		names = append(names, c.about)
	}
	return strings.Join(names, "; ")
}

// staticSentence says plainly whether static chunks by count miss the
// balance thresholds on each corpus, at the workers the runs had.
func staticSentence(runs []tfidfRun) string {
	var parts []string
	for _, corpus := range tfidfCorpora {
		cr := tfidfCorpusRuns(runs, corpus.name)
		imb, util, _, _, n := tfidfBalance(cr, "static")
		if n == 0 {
			continue
		}
		parts = append(parts, fmt.Sprintf("on %s, at %d workers, equal chunks by count in the walk's order come out at imbalance %.2f "+
			"and utilization %.1f%% (%s): %s", corpus.about, tfidfWorkers(cr), imb, 100*util, ofRuns(n), missesWord(imb, util, true)))
	}
	if len(parts) == 0 {
		return ""
	}
	return "Static chunks against the thresholds (imbalance < 1.1, utilization > 95%): " + strings.Join(parts, "; ") + ". " +
		"Whether they miss depends on where the large files fall in the walk's order, not on the strategy: the same code is " +
		"measured on every corpus.\n\n"
}

// ofRuns says over how many runs a median was taken.
func ofRuns(n int) string {
	if n == 1 {
		return "one run"
	}
	return fmt.Sprintf("the median of %d runs", n)
}

// writeTFIDFSpeedups writes the median speedup per strategy over runs.
func writeTFIDFSpeedups(b *strings.Builder, runs []tfidfRun) {
	var order []string
	seen := map[string]bool{}
	for _, r := range runs {
		for _, s := range r.table.strategies {
			if !seen[s] {
				seen[s] = true
				order = append(order, s)
			}
		}
	}
	if len(order) == 0 {
		return
	}
	head := []string{"strategy"}
	for i := range runs {
		head = append(head, fmt.Sprintf("speedup, run %d", i+1))
	}
	head = append(head, "median")
	t := table{head: head}
	for _, s := range order {
		cells := []string{"`" + s + "`"}
		var vs []float64
		for _, r := range runs {
			v, ok := r.table.speedup[s]
			if !ok || math.IsNaN(v) {
				cells = append(cells, "–")
				continue
			}
			vs = append(vs, v)
			cells = append(cells, fmtX(v))
		}
		med := math.NaN()
		if len(vs) > 0 {
			med = median(vs)
		}
		cells = append(cells, fmtX(med))
		t.add(cells...)
	}
	b.WriteString(t.String() + "\n")
}
