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
	"strconv"
	"strings"
	"time"
)

// The TF-IDF example (examples/tfidf in the library's module): the full
// report builds it once, runs `tfidf -strategy all` tfidfRuns times, keeps
// the outputs in raw/tfidf.txt and renders each run's table as it is, with
// the median speedup per strategy. The example may not exist at the commit
// measured: the report then says so and goes on.

const (
	tfidfRaw     = "tfidf.txt"
	tfidfRuns    = 3
	tfidfTimeout = 5 * time.Minute
	// tfidfMark starts the report's own lines in raw/tfidf.txt.
	tfidfMark = "#> tfidf"
)

// tfidfArgs are the example's arguments (a test points -dir at a small tree).
var tfidfArgs = []string{"-strategy", "all"}

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
	args := strings.Join(tfidfArgs, " ")
	fmt.Fprintf(&all, "%s: tfidf %s, %d runs, GOMAXPROCS unset (all CPUs)\n", tfidfMark, args, tfidfRuns)
	for r := 1; r <= tfidfRuns; r++ {
		for {
			fmt.Fprintf(progress, "report: tfidf run %d/%d: tfidf %s\n", r, tfidfRuns, args)
			before := takeCPUSnapshot()
			out, status := runTFIDFOnce(bin)
			span := spanOf(before, takeCPUSnapshot())
			fmt.Fprintf(progress, "report: tfidf run %d/%d: %s in %v; other processes used %s\n", r, tfidfRuns, status, span.wall.Round(time.Second), span)
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
	return os.WriteFile(path, all.Bytes(), 0o644)
}

// runTFIDFOnce runs the example once and returns its output (stdout then
// stderr) and its exit status in words.
func runTFIDFOnce(bin string) ([]byte, string) {
	ctx, cancel := context.WithTimeout(context.Background(), tfidfTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, tfidfArgs...)
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

// tfidfRun is one run of the example, as kept in raw/tfidf.txt.
type tfidfRun struct {
	head   string // the report's line about the run
	output string
	table  tfidfTable
}

// tfidfTable is the table of -strategy all: the header line and the lines
// after it, one strategy each, and the speedup of each.
type tfidfTable struct {
	text       string // header and rows, verbatim
	strategies []string
	speedup    map[string]float64
	ok         bool
}

// parseTFIDFRaw splits raw/tfidf.txt into runs; unavailable is the reason
// the example was not run, if it was not.
func parseTFIDFRaw(s string) (runs []tfidfRun, unavailable string) {
	var cur *tfidfRun
	var body strings.Builder
	flush := func() {
		if cur != nil {
			cur.output = body.String()
			cur.table = parseTFIDFTable(cur.output)
			runs = append(runs, *cur)
		}
		body.Reset()
	}
	if rest, ok := strings.CutPrefix(s, tfidfMark+": not available at this commit: "); ok {
		return nil, strings.TrimSpace(rest)
	}
	for _, l := range strings.SplitAfter(s, "\n") {
		if rest, ok := strings.CutPrefix(l, tfidfMark+" run "); ok {
			flush()
			cur = &tfidfRun{head: strings.TrimSpace(rest)}
			continue
		}
		if strings.HasPrefix(l, tfidfMark) {
			continue
		}
		if cur != nil {
			body.WriteString(l)
		}
	}
	flush()
	return runs, ""
}

// parseTFIDFTable finds the table in one run's output: the first line with
// a column whose header contains "speedup", then every following line with
// as many columns, the first column being the strategy. Anything it cannot
// read leaves ok false, and the output is shown verbatim instead.
func parseTFIDFTable(out string) tfidfTable {
	t := tfidfTable{speedup: map[string]float64{}}
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		head := strings.Fields(l)
		col := -1
		for j, h := range head {
			if strings.Contains(strings.ToLower(h), "speedup") {
				col = j
				break
			}
		}
		if col < 1 {
			continue
		}
		text := []string{l}
		for _, r := range lines[i+1:] {
			f := strings.Fields(r)
			if len(f) != len(head) {
				break
			}
			v := parseSpeedup(f[col])
			if math.IsNaN(v) { // a sentence after the table that happens to have as many words
				break
			}
			text = append(text, r)
			t.strategies = append(t.strategies, f[0])
			t.speedup[f[0]] = v
		}
		t.text = strings.Join(text, "\n") + "\n"
		t.ok = len(t.strategies) > 0
		return t
	}
	return t
}

// parseSpeedup reads "1.85x", "1.85×" or "1.85"; NaN otherwise.
func parseSpeedup(s string) float64 {
	s = strings.TrimSuffix(strings.TrimSuffix(strings.TrimSpace(s), "x"), "×")
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return math.NaN()
	}
	return v
}

func writeTFIDF(b *strings.Builder, raw string, quick bool) {
	b.WriteString("## TF-IDF index of the Go source tree\n\n")
	if quick {
		b.WriteString("Not run under `-quick`: the full report builds `examples/tfidf` and runs `tfidf -strategy all` " +
			fmt.Sprintf("%d times.\n\n", tfidfRuns))
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
	fmt.Fprintf(b, "`examples/tfidf` (in the library's module) indexes `$(go env GOROOT)/src` for TF-IDF search: about 11,000 files "+
		"from a few bytes to 3 MB, read and tokenised in parallel, with a term table per worker. `tfidf -strategy all` builds the index "+
		"sequentially and with every strategy, checks that the indexes are identical, and prints a table; the report ran it %d times "+
		"at GOMAXPROCS unset, measuring the other processes' CPU use around each run as for the benchmarks (a contended run is run "+
		"again within the retry budget). The tables are the example's output as it printed them; its own documentation explains the "+
		"columns. Raw output: `raw/%s`.\n\n", len(runs), tfidfRaw)
	// The median speedup per strategy, over the runs whose table parsed.
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
	if len(order) > 0 {
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
	for i, r := range runs {
		fmt.Fprintf(b, "Run %d (%s):\n\n```\n", i+1, r.head)
		if r.table.ok && strings.Contains(r.head, " | ok | ") {
			b.WriteString(r.table.text)
		} else {
			b.WriteString(strings.TrimRight(r.output, "\n") + "\n")
		}
		b.WriteString("```\n\n")
	}
}
