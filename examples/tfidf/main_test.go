package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/pprof/profile"
	"github.com/parloop/parloop/par"
	"go.uber.org/goleak"
)

// The command starts goroutines (its pool, the semaphore strategy's, the
// progress bar's): none may be left behind.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// long runs the tests on full-size inputs under the race detector too
// (go test -race ./examples/tfidf -long); CI passes it. Without it, under
// the race detector, TestStrategiesAgree and TestOutput write files a
// quarter of the size and TestCountMatchesReference checks a quarter of the
// texts, so that the package's tests take seconds.
var long = flag.Bool("long", false, "run the tests on full-size inputs under the race detector too")

// sizeScale is what the tests multiply their file sizes by: 1, or 1/4 under
// the race detector without -long.
func sizeScale() float64 {
	if raceEnabled && !*long {
		return 0.25
	}
	return 1
}

// vocabulary is what the generated files are written in: a few Go words and
// many made-up ones, so that some terms are common and most are rare.
var vocabulary = func() []string {
	v := []string{"goroutine", "channel", "select", "func", "return", "mutex", "Unlock", "for", "range", "if", "err", "nil"}
	for i := range 400 {
		v = append(v, fmt.Sprintf("word%d", i), fmt.Sprintf("Ident_%d", i))
	}
	return v
}()

// makeCorpus writes n files of skewed sizes under dir, in nested folders:
// most of them small, a few a thousand times larger, words drawn with a
// Zipf-like skew; plus a binary file, an empty one and a symbolic link,
// which the index must leave out. scale multiplies every size.
func makeCorpus(t testing.TB, dir string, n int, scale float64) {
	t.Helper()
	r := rand.New(rand.NewPCG(1, 2))
	zipf := rand.NewZipf(r, 1.2, 1, uint64(len(vocabulary)-1))
	for i := range n {
		size := 40 + r.IntN(400)
		switch {
		case i%97 == 13:
			size *= 1000 // the slow files
		case i%11 == 0:
			size *= 20
		}
		size = int(float64(size) * scale)
		var b strings.Builder
		for b.Len() < size {
			b.WriteString(vocabulary[zipf.Uint64()])
			b.WriteString([]string{" ", "\n", "(", ".", " 0x1f ", " 12ab "}[r.IntN(6)])
		}
		path := filepath.Join(dir, fmt.Sprintf("d%d", i%7), fmt.Sprintf("f%03d.go", i))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name, data := range map[string]string{"bin.dat": "goroutine\x00channel select", "empty.txt": ""} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("d0", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
}

// buildWith builds c's index with the named strategy (or sequentially).
func buildWith(t testing.TB, c *corpus, name string, pool *par.Pool) *Index {
	t.Helper()
	c.reset()
	m := new(meter)
	var ws []*bins
	each := sequentially
	if name == "sequential" {
		ws = []*bins{buildSequential(c, m)}
	} else {
		each = onPool(pool)
		s, ok := strategyNamed(name)
		if !ok {
			t.Fatalf("no strategy %q", name)
		}
		ws, _ = s.build(&builder{c: c, P: pool.Workers(), pool: pool, m: m})
	}
	x, err := c.finish(ws, each)
	if err != nil {
		t.Fatal(err)
	}
	if f, b := m.done(); f != int64(len(c.docs)) || b != c.bytes {
		t.Errorf("%s: the meter counted %d files, %d bytes; want %d, %d", name, f, b, len(c.docs), c.bytes)
	}
	return x
}

// Catches: a strategy that skips or repeats files, races on bins, reads the
// workers' runs out of order, or orders postings by worker: every
// strategy's index, at several pool sizes, and its answers must equal the
// sequential build's.
func TestStrategiesAgree(t *testing.T) {
	dir := t.TempDir()
	makeCorpus(t, dir, 300, sizeScale())
	c, err := walk(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := buildWith(t, c, "sequential", nil)
	queries := [][]string{{"goroutine", "channel", "select"}, {"word7"}, {"ident_3", "WORD12", "nosuchword"}}
	var wantHits [][]Hit
	for _, q := range queries {
		h := want.Search(queryTerms(q), 10).Hits
		if len(h) == 0 {
			t.Fatalf("query %q found nothing", q)
		}
		wantHits = append(wantHits, h)
	}
	for _, workers := range []int{2, 3, 4} {
		pool := par.NewPool(par.Workers(workers))
		for _, s := range strategies {
			got := buildWith(t, c, s.name, pool)
			if d := diff(want, got); d != "" {
				t.Errorf("%d workers, %s: the index differs from the sequential one: %s", workers, s.name, d)
			}
			for i, q := range queries {
				if h := got.Search(queryTerms(q), 10).Hits; !slices.Equal(h, wantHits[i]) {
					t.Errorf("%d workers, %s, query %q: %v; sequential %v", workers, s.name, q, h, wantHits[i])
				}
			}
		}
		pool.Close()
	}
}

// Catches: a tokeniser or counter that gets terms wrong in the same way for
// every strategy (case, digits, underscores, length limits, binary files),
// and a walk that follows links or indexes irregular files.
func TestIndexContents(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"a.go":    "Foo foo FOO bar_baz 0x1f 12ab x " + strings.Repeat("y", maxTerm+1) + " " + strings.Repeat("z", maxTerm),
		"b/c.txt": "foo\tquux,quux",
		"bin":     "foo\x00foo",
	}
	for name, data := range files {
		os.MkdirAll(filepath.Join(dir, filepath.Dir(name)), 0o755)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("a.go", filepath.Join(dir, "link.go")); err != nil {
		t.Fatal(err)
	}
	c, err := walk(dir)
	if err != nil {
		t.Fatal(err)
	}
	x := buildWith(t, c, "sequential", nil)
	var paths []string
	for _, d := range x.Docs {
		paths = append(paths, d.Path)
	}
	if want := []string{"a.go", "b/c.txt", "bin"}; !slices.Equal(paths, want) {
		t.Fatalf("documents %q; want %q", paths, want)
	}
	if lens := []int32{x.Docs[0].Len, x.Docs[1].Len, x.Docs[2].Len}; !slices.Equal(lens, []int32{5, 3, 0}) {
		t.Errorf("document lengths %v; want [5 3 0]", lens)
	}
	for term, want := range map[string][]posting{
		"foo":                          {{0, 3}, {1, 1}},
		"bar_baz":                      {{0, 1}},
		"quux":                         {{1, 2}},
		strings.Repeat("z", maxTerm):   {{0, 1}},
		"x":                            nil,
		"x1f":                          nil,
		"ab":                           nil,
		strings.Repeat("y", maxTerm+1): nil,
	} {
		if got := x.postings(term); !slices.Equal(got, want) {
			t.Errorf("postings of %q: %v; want %v", term, got, want)
		}
	}
	if x.Terms() != 4 {
		t.Errorf("%d terms; want 4", x.Terms())
	}
}

var hitLine = regexp.MustCompile(`^ *(\d+)  +(\d+\.\d{4})  (\S+)(?:  \[([a-z0-9_ ]+)\])?$`)

// hitsOf returns the ranked lines of the command's output.
func hitsOf(t *testing.T, out string) [][]string {
	t.Helper()
	_, after, ok := strings.Cut(out, "matching files for")
	if !ok {
		t.Fatalf("no answer in the output:\n%s", out)
	}
	var hits [][]string
	for _, line := range strings.Split(strings.TrimSpace(after), "\n")[1:] {
		m := hitLine.FindStringSubmatch(line)
		if m == nil {
			t.Fatalf("answer line %q is not rank, score, path", line)
		}
		hits = append(hits, m[1:])
	}
	return hits
}

// Catches: output that lacks the speedup or the table's columns, answers
// not ranked by the terms they hold, then score, then path, a ranking that
// changes between runs, and a progress bar drawn on a stderr that is not a
// terminal.
func TestOutput(t *testing.T) {
	dir := t.TempDir()
	makeCorpus(t, dir, 120, sizeScale())
	var out, errb bytes.Buffer
	if rc := run([]string{"-dir", dir, "goroutine", "Channel"}, &out, &errb); rc != 0 {
		t.Fatalf("exit %d: %s", rc, errb.String())
	}
	if errb.Len() != 0 {
		t.Errorf("stderr is not a terminal, yet something was written to it:\n%s", errb.String())
	}
	for _, want := range []string{"indexed 122 files", "stealing (par.Fold", "imbalance", "utilization", `top 10 of `, `"channel goroutine"`, "identical"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	if !regexp.MustCompile(`(?m)^sequential: \S+, CPU \S+ \(\d+\.\d\d CPUs\); speedup \d+\.\d\dx, work \d+\.\d\dx \(GOMAXPROCS=\d+\)$`).MatchString(out.String()) {
		t.Errorf("no sequential line with CPU time, speedup and work:\n%s", out.String())
	}
	hits := hitsOf(t, out.String())
	if len(hits) != 10 {
		t.Fatalf("%d answers; want 10", len(hits))
	}
	for i := range hits {
		if hits[i][0] != strconv.Itoa(i+1) {
			t.Errorf("rank %s on line %d", hits[i][0], i+1)
		}
		if i > 0 && hits[i-1][3] == hits[i][3] { // the same terms held
			a, _ := strconv.ParseFloat(hits[i-1][1], 64)
			b, _ := strconv.ParseFloat(hits[i][1], 64)
			if a < b { // equal scores at 4 digits may differ further: TestRankingByHand checks ties
				t.Errorf("answers %v and %v out of order", hits[i-1], hits[i])
			}
		}
	}

	out.Reset()
	if rc := run([]string{"-dir", dir, "-strategy", "all", "-runs", "2", "-k", "3", "goroutine", "Channel"}, &out, &errb); rc != 0 {
		t.Fatalf("-strategy all: exit %d: %s", rc, errb.String())
	}
	header := regexp.MustCompile(`(?m)^strategy +time +phase2 +cpu +speedup +range +work +imbalance +skew +utilization +steals +cpus$`)
	if !header.MatchString(out.String()) {
		t.Errorf("-strategy all: no table header:\n%s", out.String())
	}
	for _, name := range []string{"sequential", "static", "dynamic", "semaphore", "stealing", "weighted"} {
		steals := `-`
		if name == "stealing" || name == "weighted" {
			steals = `\d+`
		}
		row := regexp.MustCompile(`(?m)^` + name + ` +\S+ +\S+ +\S+ +\d+\.\d\dx +\d+\.\d\d-\d+\.\d\d +\d+\.\d\d +(-|\d+\.\d\d) +\d+ +(-|\d+\.\d%) +` + steals + ` +(-|\d+\.\d\d)$`)
		if !row.MatchString(out.String()) {
			t.Errorf("-strategy all: no row for %s:\n%s", name, out.String())
		}
	}
	if !strings.Contains(out.String(), "the 12 timed builds' indexes and answers are identical to an untimed sequential build's") {
		t.Errorf("-strategy all does not report the builds identical:\n%s", out.String())
	}
	if all := hitsOf(t, out.String()); !slices.EqualFunc(all, hits[:3], slices.Equal) {
		t.Errorf("-strategy all answers %v; the default run %v", all, hits[:3])
	}
	if strings.Contains(out.String(), "largest-first") {
		t.Errorf("-strategy all runs largest-first, which is not one of its five:\n%s", out.String())
	}
	// With -runs 2, every build's time, a line per round, in the order of
	// the table.
	for what, cell := range map[string]string{"wall times per round \\(ms\\)": `\d+\.\d`, "CPU times per round \\(ms\\)": `\d+\.\d`, "GC cycles per round": `\d+`} {
		rounds := regexp.MustCompile(`(?m)^build ` + what + `.*\nround +sequential +static +dynamic +semaphore +stealing +weighted\n1( +` + cell + `){6}\n2( +` + cell + `){6}$`)
		if !rounds.MatchString(out.String()) {
			t.Errorf("-strategy all -runs 2: no %s times per round:\n%s", what, out.String())
		}
	}

	// A list of strategies: a table of those and the sequential build.
	out.Reset()
	if rc := run([]string{"-dir", dir, "-strategy", "largest-first,stealing", "-k", "3", "goroutine", "Channel"}, &out, &errb); rc != 0 {
		t.Fatalf("-strategy largest-first,stealing: exit %d: %s", rc, errb.String())
	}
	for _, name := range []string{"sequential", "largest-first", "stealing"} {
		if !regexp.MustCompile(`(?m)^` + name + ` +\S+ +\S+ +\S+ +\d+\.\d\dx `).MatchString(out.String()) {
			t.Errorf("-strategy largest-first,stealing: no row for %s:\n%s", name, out.String())
		}
	}
	if regexp.MustCompile(`(?m)^(static|weighted|round) `).MatchString(out.String()) {
		t.Errorf("-strategy largest-first,stealing runs more than asked, or prints rounds for one run:\n%s", out.String())
	}
	if got := hitsOf(t, out.String()); !slices.EqualFunc(got, hits[:3], slices.Equal) {
		t.Errorf("-strategy largest-first,stealing answers %v; the default run %v", got, hits[:3])
	}

	// The sequential build alone, as a strategy: one build, its CPU time.
	out.Reset()
	if rc := run([]string{"-dir", dir, "-strategy", "sequential", "-k", "3", "goroutine", "Channel"}, &out, &errb); rc != 0 {
		t.Fatalf("-strategy sequential: exit %d: %s", rc, errb.String())
	}
	if !regexp.MustCompile(`(?m)^sequential: \S+, CPU \S+ \(\d+\.\d\d CPUs\)$`).MatchString(out.String()) || !strings.Contains(out.String(), "the timed build's index and answer are identical") {
		t.Errorf("-strategy sequential: not one build with its CPU time:\n%s", out.String())
	}
	if got := hitsOf(t, out.String()); !slices.EqualFunc(got, hits[:3], slices.Equal) {
		t.Errorf("-strategy sequential answers %v; the default run %v", got, hits[:3])
	}
}

// Catches: medians taken over the wrong builds, a speedup that is not the
// median of the paired ratios (round r's sequential time over round r's),
// or a steal count given to the hand-written strategies.
func TestSummarize(t *testing.T) {
	ms := time.Millisecond
	res := func(name string, d time.Duration, imb float64, steals int64) result {
		return result{name: name, time: d, cpu: d, spread: spread{imbalance: imb, utilization: 1 / imb, steals: steals}}
	}
	names := []string{"sequential", "static", "stealing"}
	rounds := [][]result{
		{res("sequential", 200*ms, 1, -1), res("static", 100*ms, 1.5, -1), res("stealing", 100*ms, 1.0, 4)},
		{res("sequential", 400*ms, 1, -1), res("static", 100*ms, 1.1, -1), res("stealing", 300*ms, 1.2, 8)},
		{res("sequential", 300*ms, 1, -1), res("static", 400*ms, 1.3, -1), res("stealing", 100*ms, 1.1, 6)},
	}
	got := summarize(names, rounds)
	if len(got) != 3 {
		t.Fatalf("%d summaries; want 3", len(got))
	}
	// static: times 100, 100, 400 (median 100); paired ratios 2, 4, 0.75
	// (median 2, while the ratio of the medians would be 300/100 = 3).
	st := got[1]
	if st.name != "static" || st.time != 100*ms || st.speedup != 2 || st.imbalance != 1.3 || st.steals != -1 || st.cpus != 1 {
		t.Errorf("static: %+v", st)
	}
	// stealing: times 100, 300, 100; ratios 2, 4/3, 3 (median 2).
	sl := got[2]
	if sl.name != "stealing" || sl.time != 100*ms || sl.speedup != 2 || sl.imbalance != 1.1 || sl.steals != 6 {
		t.Errorf("stealing: %+v", sl)
	}
	if sq := got[0]; sq.speedup != 1 || sq.time != 300*ms {
		t.Errorf("sequential: %+v", sq)
	}
	// No sequential build: no speedup.
	if got := summarize(names[1:], [][]result{rounds[0][1:]}); got[0].speedup != 0 || got[1].time != 100*ms {
		t.Errorf("without a sequential build: %+v", got)
	}
}

// Catches: a -h that fails, bad flags accepted, a missing directory not
// reported, and profiles not written.
func TestFlags(t *testing.T) {
	var out, errb bytes.Buffer
	if rc := run([]string{"-h"}, &out, &errb); rc != 0 {
		t.Errorf("-h: exit %d; want 0", rc)
	}
	if !strings.Contains(errb.String(), "-strategy") {
		t.Errorf("-h does not list the flags:\n%s", errb.String())
	}
	for _, args := range [][]string{{"-strategy", "random"}, {"-strategy", "stealing,random"}, {"-strategy", ""}, {"-k", "0"}, {"-runs", "0"}, {"-nosuchflag"}} {
		if rc := run(args, &out, &errb); rc != 2 {
			t.Errorf("%q: exit %d; want 2", args, rc)
		}
	}
	if rc := run([]string{"-dir", filepath.Join(t.TempDir(), "none")}, &out, &errb); rc != 1 {
		t.Errorf("a missing -dir: exit %d; want 1", rc)
	}
	dir := t.TempDir()
	makeCorpus(t, dir, 30, 1)
	prof, tr := filepath.Join(t.TempDir(), "cpu.pprof"), filepath.Join(t.TempDir(), "trace.out")
	if rc := run([]string{"-dir", dir, "-seq=false", "-stats", "-cpuprofile", prof, "-trace", tr}, &out, &errb); rc != 0 {
		t.Fatalf("-cpuprofile, -trace: exit %d: %s", rc, errb.String())
	}
	if strings.Contains(out.String(), "speedup") {
		t.Errorf("-seq=false still builds sequentially")
	}
	if !strings.Contains(out.String(), "stealing: pool stats over") {
		t.Errorf("-stats prints no pool stats:\n%s", out.String())
	}
	for _, f := range []string{prof, tr} {
		if st, err := os.Stat(f); err != nil || st.Size() == 0 {
			t.Errorf("%s not written: %v", f, err)
		}
	}
	if _, err := profile.Parse(mustOpen(t, prof)); err != nil {
		t.Errorf("-cpuprofile wrote no profile: %v", err)
	}
}

func mustOpen(t *testing.T, path string) *os.File {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// Catches: a bar that draws nothing, or whose goroutine outlives stop.
func TestProgressBar(t *testing.T) {
	var m meter
	var b bytes.Buffer
	stop := startBar(&b, "stealing", 10, 1000, &m)
	m.files.Add(4)
	m.bytes.Add(400)
	time.Sleep(3 * barTick)
	stop()
	if !strings.Contains(b.String(), "4/10 files") {
		t.Errorf("the bar does not show the files done: %q", b.String())
	}

	// Fed by par.Progress: its Done out of its Total.
	var m2 meter
	b.Reset()
	pool := par.NewPool(par.Workers(2))
	defer pool.Close()
	stop = startBar(&b, "stealing", 10, 1000, &m2)
	par.For(50, func(int) { m2.bytes.Add(20) }, par.On(pool), par.Track(&m2.prog))
	stop()
	if !strings.Contains(b.String(), "50/50 files") {
		t.Errorf("the bar does not show par.Progress's count: %q", b.String())
	}
}

// Catches: workers' CPU samples that lose the caller's pprof labels, so that
// `go tool pprof -tagfocus phase=index` would miss the work the pool's
// workers did for the indexing. The indexing runs on a pool of 2 under
// phase=index until about a second of CPU is sampled; at least 95% of the
// samples in either phase of the build (indexFile, buildPartition) must
// carry the label.
func TestProfileLabels(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("takes a CPU profile of about a second; under the race detector most samples fall in its C code, with no Go stack")
	}
	dir := t.TempDir()
	makeCorpus(t, dir, 200, 4)
	c, err := walk(dir)
	if err != nil {
		t.Fatal(err)
	}
	pool := par.NewPool(par.Workers(2))
	defer pool.Close()

	var buf bytes.Buffer
	if err := pprof.StartCPUProfile(&buf); err != nil {
		t.Skipf("cannot profile: %v", err)
	}
	builds := 0
	long := 1500 * time.Millisecond
	pprof.Do(context.Background(), pprof.Labels("phase", "index"), func(context.Context) {
		for start := time.Now(); time.Since(start) < long || builds < 2; builds++ {
			buildWith(t, c, "stealing", pool)
		}
	})
	pprof.StopCPUProfile()
	st := pool.Stats()

	p, err := profile.Parse(&buf)
	if err != nil {
		t.Fatal(err)
	}
	var inBuild, labelled int
	for _, s := range p.Sample {
		if !inFunc(s, ".(*corpus).indexFile") && !inFunc(s, ".buildPartition") {
			continue
		}
		inBuild++
		if slices.Equal(s.Label["phase"], []string{"index"}) {
			labelled++
		}
	}
	t.Logf("%d builds; %d samples in the build, %d labelled phase=index\n%v", builds, inBuild, labelled, st)
	if inBuild < 20 {
		t.Fatalf("only %d samples in the build: too few to judge", inBuild)
	}
	if float64(labelled) < 0.95*float64(inBuild) {
		t.Errorf("%d of %d of the build's samples carry phase=index; want at least 95%%", labelled, inBuild)
	}
	var stolen int64
	for _, w := range st.Workers {
		stolen += w.Pieces
	}
	if stolen == 0 {
		t.Errorf("the pool's worker ran no piece: the profile shows only the caller's labels")
	}
}

// inFunc reports whether s's stack passes through a function whose name
// ends in fn (a test binary names package main by its import path).
func inFunc(s *profile.Sample, fn string) bool {
	for _, loc := range s.Location {
		for _, l := range loc.Line {
			if l.Function != nil && strings.HasSuffix(l.Function.Name, fn) {
				return true
			}
		}
	}
	return false
}

// Catches: -strategy all that reports a build that differs from the
// sequential one as fine, or exits 0 on it.
func TestMismatchFails(t *testing.T) {
	dir := t.TempDir()
	makeCorpus(t, dir, 40, 1)
	saved := strategies
	defer func() { strategies = saved }()
	strategies = append(slices.Clone(saved), strategy{"broken", "static, but postings are lost", true, func(b *builder) ([]*bins, spread) {
		ws, sp := buildStatic(b)
		// The first worker's last run loses its records in every bin.
		w := ws[0]
		last := len(w.runs) - 1
		for q := range w.bin {
			w.bin[q] = w.bin[q][:w.offs[q][last]]
		}
		return ws, sp
	}})
	var out, errb bytes.Buffer
	if rc := run([]string{"-dir", dir, "-strategy", "all"}, &out, &errb); rc != 1 {
		t.Errorf("a build that differs: exit %d; want 1\n%s", rc, out.String())
	}
	if !strings.Contains(errb.String(), "broken's index differs from the sequential build's") {
		t.Errorf("the mismatch is not reported:\n%s", errb.String())
	}
}

// Catches: a file read short when it grew after the walk sized it.
func TestReadGrownFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	data := bytes.Repeat([]byte("grown "), 1000)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	b := newBins()
	for _, size := range []int64{0, 10, int64(len(data))} {
		n, err := b.read(path, size)
		if err != nil || !bytes.Equal(b.data[:n], data) {
			t.Errorf("read with size %d: %d bytes, %v; want the %d bytes of the file", size, n, err, len(data))
		}
	}
}

// Catches: an imbalance that is not the largest busy time over the mean,
// a utilization over the wrong count of workers, and NaN from no work.
func TestHandSpread(t *testing.T) {
	s := handSpread([]time.Duration{time.Second, 3 * time.Second, 2 * time.Second}, 4*time.Second)
	if s.imbalance != 1.5 || s.utilization != 0.5 || s.steals != -1 {
		t.Errorf("busy 1s, 3s, 2s over 4s: %+v; want imbalance 1.5, utilization 0.5, steals -1", s)
	}
	for _, busy := range [][]time.Duration{nil, {0, 0}} {
		if s := handSpread(busy, time.Second); s.imbalance != 0 || s.utilization != 0 {
			t.Errorf("busy %v: %+v; want zeros", busy, s)
		}
	}
}
