package main

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const tfidfSample = `indexed 11478 files, 127.6 MB, 283615 terms, under /usr/local/go/src
2 workers (GOMAXPROCS=2)
strategy        time  speedup  imbalance  straggler  utilization  steals
sequential    9.047s    1.00x          -       4305            -       -
static        7.235s    1.25x       %imb       6292        %util       -
stealing      6.782s    %sx       1.00       7676        99.6%       8
weighted      6.782s    1.30x       1.01       7676        99.0%       8

build wall times per round (ms), the strategies in turn:
round     sequential        static      stealing      weighted
1             2000.0        1000.0        1000.0         %w1
2             3000.0        2000.0        1500.0        1500.0

build CPU times per round (ms), the strategies in turn:
round     sequential        static      stealing      weighted
1             2000.0        2000.0        2000.0        2200.0
2             3000.0        4000.0        3000.0        3000.0
the 3 builds' indexes and answers are identical
3 words after the block as many as its columns

top 10 of 41 matching files for "channel goroutine select" (63µs):
  1    0.3485  gkey_amd64.s
`

// tfidfOut is a run's output with stealing's speedup, static's imbalance
// and utilization and weighted's first round time filled in.
func tfidfOut(stealing string) string { return tfidfOutWith(stealing, "1.04", "90.3%", "1100.0") }

func tfidfOutWith(stealing, imb, util, w1 string) string {
	return strings.NewReplacer("%s", stealing, "%imb", imb, "%util", util, "%w1", w1).Replace(tfidfSample)
}

// Catches: rounds read from the wrong block, a round or a column lost,
// a block taken from a following paragraph.
func TestParseTFIDFRounds(t *testing.T) {
	out := tfidfOut("1.33")
	w, c := parseTFIDFRounds(out, "wall"), parseTFIDFRounds(out, "CPU")
	if strings.Join(w.names, ",") != "sequential,static,stealing,weighted" || len(w.ms) != 2 {
		t.Fatalf("wall: %+v", w)
	}
	if got := w.of("weighted"); len(got) != 2 || got[0] != 1100 || got[1] != 1500 {
		t.Errorf("wall of weighted: %v", got)
	}
	if got := c.of("static"); len(got) != 2 || got[0] != 2000 || got[1] != 4000 {
		t.Errorf("CPU of static: %v", got)
	}
	if got := w.of("dynamic"); got != nil {
		t.Errorf("wall of a strategy not run: %v", got)
	}
	if got := parseTFIDFRounds("strategy time\n", "wall"); got.names != nil || got.ms != nil {
		t.Errorf("no block: %+v", got)
	}
}

func TestParseTFIDFTable(t *testing.T) {
	tb := parseTFIDFTable(tfidfOut("1.33"))
	if !tb.ok || strings.Join(tb.strategies, ",") != "sequential,static,stealing,weighted" {
		t.Fatalf("strategies %q (ok %v)", tb.strategies, tb.ok)
	}
	if tb.speedup["static"] != 1.25 || tb.speedup["stealing"] != 1.33 {
		t.Errorf("speedups %v", tb.speedup)
	}
	if !strings.HasPrefix(tb.text, "strategy ") || strings.Contains(tb.text, "round") || strings.Count(tb.text, "\n") != 5 {
		t.Errorf("table text %q", tb.text)
	}
	if tb.workers != 2 || tb.value("imbalance", "static") != 1.04 || math.Abs(tb.value("utilization", "static")-0.903) > 1e-9 {
		t.Errorf("workers %d, static's imbalance %v, utilization %v", tb.workers, tb.value("imbalance", "static"), tb.value("utilization", "static"))
	}
	if v := tb.value("imbalance", "sequential"); !math.IsNaN(v) {
		t.Errorf("sequential's imbalance %v; want none", v)
	}
	// Another layout: speedup elsewhere, a unit sign, no x.
	tb = parseTFIDFTable("name Speedup(x) time\nseq 1 3s\npar 1.9× 1.5s\n")
	if !tb.ok || tb.speedup["par"] != 1.9 || tb.speedup["seq"] != 1 {
		t.Errorf("other layout: %+v", tb)
	}
	if tb := parseTFIDFTable("panic: something\n"); tb.ok {
		t.Errorf("no table, parsed %+v", tb)
	}
	if v := parseSpeedup("-"); !math.IsNaN(v) {
		t.Errorf("speedup of -: %v", v)
	}
}

// Catches: runs given to the wrong corpus, a failed run counted, goal rows
// that pair the wrong builds or take the wrong side of a ratio, static's
// misses not said, and the verbatim tables lost.
func TestWriteTFIDF(t *testing.T) {
	dir := t.TempDir()
	raw := tfidfMark + " corpus src: tfidf -strategy all, 3 runs\n" +
		tfidfMark + " run 1/3 | ok | other processes used 1%\n" + tfidfOut("1.30") +
		tfidfMark + " run 2/3 | failed: exit status 1 | other processes used 2%\n" + "the indexes differ\n" +
		tfidfMark + " run 3/3 | ok | other processes used 1%\n" + tfidfOut("1.50") +
		tfidfMark + " corpus goroot: tfidf -strategy all -dir /g, 1 runs\n" +
		tfidfMark + " run 1/1 | ok | other processes used 0%\n" + tfidfOutWith("1.70", "1.25", "80.0%", "900.0")
	if err := os.WriteFile(filepath.Join(dir, tfidfRaw), []byte(raw), 0o644); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	writeTFIDF(&b, dir, false)
	out := b.String()
	for _, want := range []string{
		"| `stealing` | 1.30× | – | 1.50× | 1.40× |", "the indexes differ", "Run 3 (3/3 | ok", "static        7.235s",
		"### TF-IDF: `$(go env GOROOT)/src`", "### TF-IDF: `$(go env GOROOT)`, the whole installation",
		"| `stealing` | 1.70× | 1.70× |", "The report ran it 1 to 3 times per corpus",
		// src: stealing against sequential, rounds 2000/1000 and 3000/1500
		// in runs 1 and 3: 2× each.
		"| TF-IDF indexing: `stealing` (par.Fold, parloop's default) against `sequential` on `$(go env GOROOT)/src` | 2 | ≥ 1.85× faster | 2.00× faster | 2.00× – 2.00× | 4 | pass |",
		// the best of static (1000, 2000) against stealing (1000, 1500).
		"against the best of `static`, `dynamic` and `semaphore` (a goroutine per file) in the same round on `$(go env GOROOT)/src` | 2 | not slower (≤ 1.03× the time) | 0.88× the time | 0.75× – 1.00× | 4 | pass |",
		// weighted 1100, 1500 against stealing 1000, 1500: 1.10, 1.
		"| TF-IDF indexing: `weighted` (par.Weighted(file sizes)) against `stealing` (no weights) on `$(go env GOROOT)/src` | 2 | not slower (≤ 1.03× the time) | 1.05× the time | 1.00× – 1.10× | 4 | **FAIL** |",
		// goroot: weighted 900 against stealing 1000.
		"against `stealing` (no weights) on `$(go env GOROOT)`, the whole installation | 2 | not slower (≤ 1.03× the time) | 0.95× the time | 0.90× – 1.00× | 2 | pass |",
		"`stealing`'s (the work done, whatever else the machine ran) on `$(go env GOROOT)/src` | 2 | – | 1.05× the time | 1.00× – 1.10× | 4 | info |",
		"| TF-IDF indexing phase, `stealing`: load imbalance and utilization on `$(go env GOROOT)/src` | 2 | imbalance < 1.1, utilization > 95% | 1.00, 99.6% | worst 1.00, 99.6% | 2 | pass |",
		"| TF-IDF indexing phase, `static` (equal chunks by count, in the walk's order): load imbalance and utilization on `$(go env GOROOT)/src` | 2 | shown missing imbalance < 1.1, utilization > 95% | 1.04, 90.3%: misses the utilization threshold |",
		"on `$(go env GOROOT)`, the whole installation, at 2 workers, equal chunks by count in the walk's order come out at imbalance 1.25 and utilization 80.0% (one run): they miss both",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
	if strings.Contains(out, "gkey_amd64") || strings.Contains(out, "`largest-first`") {
		t.Errorf("the text after a parsed table was copied, or a row made for a strategy not run:\n%s", out)
	}

	if err := os.WriteFile(filepath.Join(dir, tfidfRaw), []byte(tfidfMark+": not available at this commit: there is no examples/tfidf in /x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	b.Reset()
	writeTFIDF(&b, dir, false)
	if !strings.Contains(b.String(), "not available at this commit (there is no examples/tfidf in /x)") {
		t.Errorf("unavailable: %s", b.String())
	}
	b.Reset()
	writeTFIDF(&b, dir, true)
	if !strings.Contains(b.String(), "Not run under `-quick`") {
		t.Errorf("quick: %s", b.String())
	}
}

// TestRunTFIDF builds the example where it exists and runs it on a small
// tree (the library's par/), then renders what it kept.
func TestRunTFIDF(t *testing.T) {
	if testing.Short() {
		t.Skip("builds examples/tfidf")
	}
	raw, tmp := t.TempDir(), t.TempDir()
	saved := tfidfCorpora
	small := func(dir string) func() (string, error) {
		return func() (string, error) { return filepath.Join(libDir(), dir), nil }
	}
	tfidfCorpora = []tfidfCorpus{{"src", "par/", small("par")}, {"goroot", "iter/", small("iter")}}
	defer func() { tfidfCorpora = saved }()
	var progress strings.Builder
	if err := runTFIDF(raw, tmp, &retryBudget{}, &progress); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(raw, tfidfRaw))
	if err != nil {
		t.Fatal(err)
	}
	runs, why := parseTFIDFRaw(string(data))
	if why != "" {
		t.Skipf("examples/tfidf is not available: %s", firstLine(why))
	}
	if len(runs) != 2*tfidfRuns {
		t.Fatalf("%d runs kept, want %d:\n%s", len(runs), 2*tfidfRuns, data)
	}
	for i, r := range runs {
		if want := tfidfCorpora[i/tfidfRuns].name; r.corpus != want {
			t.Errorf("run %d: corpus %q, want %q", i+1, r.corpus, want)
		}
		if !r.ok() || len(r.wall.ms) != tfidfRounds || len(r.cpu.ms) != tfidfRounds || !slices.Contains(r.wall.names, "largest-first") {
			t.Errorf("run %d: %q, table parsed %v, %d and %d rounds of %v:\n%s", i+1, r.head, r.table.ok, len(r.wall.ms), len(r.cpu.ms), r.wall.names, r.output)
		}
	}
	if gs := evalTFIDF(runs); len(gs) < 2*8 {
		t.Errorf("%d goal rows from two corpora; want 8 or more each: %+v", len(gs), gs)
	}
	var b strings.Builder
	writeTFIDF(&b, raw, false)
	t.Logf("%s", b.String())
}
