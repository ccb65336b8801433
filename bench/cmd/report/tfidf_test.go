package main

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const tfidfSample = `indexed 11478 files, 127.6 MB, 283615 terms, under /usr/local/go/src
2 workers (GOMAXPROCS=2)
strategy        time  speedup  imbalance  straggler  utilization  steals
sequential    9.047s    1.00x          -       4305            -       -
static        7.235s    1.25x       1.04       6292        90.3%       -
stealing      6.782s    %sx       1.00       7676        99.6%       8
the 3 builds' indexes and answers are identical

top 10 of 41 matching files for "channel goroutine select" (63µs):
  1    0.3485  gkey_amd64.s
`

func tfidfOut(stealing string) string { return strings.Replace(tfidfSample, "%s", stealing, 1) }

func TestParseTFIDFTable(t *testing.T) {
	tb := parseTFIDFTable(tfidfOut("1.33"))
	if !tb.ok || strings.Join(tb.strategies, ",") != "sequential,static,stealing" {
		t.Fatalf("strategies %q (ok %v)", tb.strategies, tb.ok)
	}
	if tb.speedup["static"] != 1.25 || tb.speedup["stealing"] != 1.33 {
		t.Errorf("speedups %v", tb.speedup)
	}
	if !strings.HasPrefix(tb.text, "strategy ") || strings.Contains(tb.text, "identical") || strings.Count(tb.text, "\n") != 4 {
		t.Errorf("table text %q", tb.text)
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

func TestWriteTFIDF(t *testing.T) {
	dir := t.TempDir()
	raw := tfidfMark + ": tfidf -strategy all, 3 runs\n" +
		tfidfMark + " run 1/3 | ok | other processes used 1%\n" + tfidfOut("1.30") +
		tfidfMark + " run 2/3 | failed: exit status 1 | other processes used 2%\n" + "the indexes differ\n" +
		tfidfMark + " run 3/3 | ok | other processes used 1%\n" + tfidfOut("1.50")
	if err := os.WriteFile(filepath.Join(dir, tfidfRaw), []byte(raw), 0o644); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	writeTFIDF(&b, dir, false)
	out := b.String()
	for _, want := range []string{"| `stealing` | 1.30× | – | 1.50× | 1.40× |", "the indexes differ", "Run 3 (3/3 | ok", "static        7.235s"} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
	if strings.Contains(out, "gkey_amd64") {
		t.Errorf("the text after a parsed table was copied:\n%s", out)
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
	saved := tfidfArgs
	tfidfArgs = []string{"-strategy", "all", "-dir", filepath.Join(libDir(), "par")}
	defer func() { tfidfArgs = saved }()
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
	if len(runs) != tfidfRuns {
		t.Fatalf("%d runs kept, want %d:\n%s", len(runs), tfidfRuns, data)
	}
	for i, r := range runs {
		if !r.table.ok || !strings.Contains(r.head, " | ok | ") {
			t.Errorf("run %d: %q, table parsed %v:\n%s", i+1, r.head, r.table.ok, r.output)
		}
	}
	var b strings.Builder
	writeTFIDF(&b, raw, false)
	t.Logf("%s", b.String())
}
