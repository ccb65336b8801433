package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const sample = `goos: linux
goarch: amd64
pkg: github.com/parloop/parloop/bench
cpu: AMD EPYC
BenchmarkTiny/peer=seq         	 1000000	      1000 ns/op	         0 B/op	       0 allocs/op
BenchmarkTiny/peer=seq-2       	 1000000	      1010 ns/op	         0 B/op	       0 allocs/op
BenchmarkTiny/peer=par.For-2   	  500000	       600 ns/op	      1.02 imbalance	      0.95 util	        64 B/op	       1 allocs/op
BenchmarkTiny/peer=seq-func    	 1000000	      1200 ns/op
--- FAIL: BenchmarkBroken
BenchmarkFoo	--- FAIL: something
PASS
ok  	github.com/parloop/parloop/bench	12.3s
`

func TestParseBench(t *testing.T) {
	rs, err := ParseBench(strings.NewReader(sample))
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 4 {
		t.Fatalf("got %d results, want 4: %+v", len(rs), rs)
	}
	if rs[0].Name != "Tiny/peer=seq" || rs[0].Procs != 1 || rs[0].Iters != 1000000 || rs[0].Metrics["ns/op"] != 1000 {
		t.Errorf("first result: %+v", rs[0])
	}
	if rs[1].Name != "Tiny/peer=seq" || rs[1].Procs != 2 {
		t.Errorf("-2 suffix: %+v", rs[1])
	}
	p := rs[2]
	if p.Top() != "Tiny" || p.Key("peer") != "par.For" || p.Metrics["imbalance"] != 1.02 || p.Metrics["allocs/op"] != 1 {
		t.Errorf("custom metrics: %+v", p)
	}
	// A sub-benchmark whose own name ends in "-func" is not a procs suffix.
	if rs[3].Name != "Tiny/peer=seq-func" || rs[3].Procs != 1 {
		t.Errorf("seq-func: %+v", rs[3])
	}
	if _, err := ParseBench(strings.NewReader("BenchmarkX 10 5 ns/op 3\n")); err == nil {
		t.Error("a truncated result line was accepted")
	}
}

func TestSet(t *testing.T) {
	var in strings.Builder
	for i, v := range []float64{5, 1, 3, 4} {
		fmt.Fprintf(&in, "BenchmarkG/impl=base-2 1 %v ns/op\nBenchmarkG/impl=parloop-2 1 %v ns/op\n", 10*v, v+float64(i))
	}
	rs, err := ParseBench(strings.NewReader(in.String()))
	if err != nil {
		t.Fatal(err)
	}
	s := NewSet(rs)
	if m, _ := s.Median("G/impl=base", 2, "ns/op"); m != 35 {
		t.Errorf("median = %v, want 35", m)
	}
	if _, ok := s.Median("G/impl=base", 1, "ns/op"); ok {
		t.Error("median of a missing procs")
	}
	r := s.PairedRatios("G/impl=base", "G/impl=parloop", 2, "ns/op")
	want := []float64{50.0 / 5, 10.0 / 2, 30.0 / 5, 40.0 / 7}
	for i := range want {
		if math.Abs(r[i]-want[i]) > 1e-12 {
			t.Fatalf("paired ratios %v, want %v", r, want)
		}
	}
	if got := s.Names("G/"); len(got) != 2 || got[0] != "G/impl=base" {
		t.Errorf("names %v", got)
	}
}

func TestCompare(t *testing.T) {
	for _, c := range []struct {
		a, b float64
		want string
	}{{100, 101, "ties"}, {50, 100, "wins: 2.00× faster"}, {150, 100, "loses: 1.50× slower"}} {
		if got := compare(c.a, c.b, tieBand); !strings.HasPrefix(got, c.want) {
			t.Errorf("compare(%v, %v) = %q, want prefix %q", c.a, c.b, got, c.want)
		}
	}
}

// goalsSample makes goal results where every goal passes except the fib
// overhead, for evalGoals.
func goalsSample() (string, string) {
	var g, g2 strings.Builder
	for i := 0; i < 3; i++ {
		for _, p := range []string{"", "-2"} {
			fmt.Fprintf(&g, "BenchmarkGoal_Invoke/op=call/impl=base%s 1 2 ns/op 0 allocs/op\n", p)
			fmt.Fprintf(&g, "BenchmarkGoal_Invoke/op=Invoke/impl=parloop%s 1 20 ns/op 0 allocs/op\n", p)
			fmt.Fprintf(&g, "BenchmarkGoal_Invoke/op=Join/impl=parloop%s 1 30 ns/op 0 allocs/op\n", p)
			fmt.Fprintf(&g, "BenchmarkGoal_Fib30/impl=seq%s 1 4000000 ns/op 0 allocs/op\n", p)
			fmt.Fprintf(&g, "BenchmarkGoal_Fib30/impl=wg%s 1 2000000000 ns/op 1346268 allocs/op\n", p)
			t := 4000000 + 50*1346268.0
			if p != "" {
				t /= 1.9
			}
			fmt.Fprintf(&g, "BenchmarkGoal_Fib30/impl=par.Join%s 1 %.0f ns/op 2692536 allocs/op\n", p, t)
			fmt.Fprintf(&g, "BenchmarkGoal_Tiny/pair=For-vs-seq-func/impl=base%s 1 1000 ns/op\n", p)
			fmt.Fprintf(&g, "BenchmarkGoal_Tiny/pair=For-vs-seq-func/impl=parloop%s 1 1400 ns/op\n", p)
			fmt.Fprintf(&g, "BenchmarkGoal_ForAllocs/n=1000/impl=parloop%s 1 1400 ns/op 2 allocs/op\n", p)
		}
		fmt.Fprintf(&g2, "BenchmarkGoal_Mandelbrot/pair=For-vs-seq/impl=base-2 1 1000 ns/op\n")
		fmt.Fprintf(&g2, "BenchmarkGoal_Mandelbrot/pair=For-vs-seq/impl=parloop-2 1 500 ns/op\n")
		fmt.Fprintf(&g2, "BenchmarkGoal_Pinning/work=uniform/impl=unpinned-2 1 1000 ns/op\n")
		fmt.Fprintf(&g2, "BenchmarkGoal_Pinning/work=uniform/impl=pinned-2 1 900 ns/op\n")
	}
	return g.String(), g2.String()
}

func TestEvalGoals(t *testing.T) {
	a, b := goalsSample()
	ra, _ := ParseBench(strings.NewReader(a))
	rb, _ := ParseBench(strings.NewReader(b))
	rows := evalGoals(NewSet(ra), NewSet(rb))
	got := map[string]string{}
	for _, r := range rows {
		got[fmt.Sprintf("%s@%d", r.Goal, r.Procs)] = r.Verdict
	}
	expect := map[string]string{
		"`par.Invoke([]func(){f, g})`, empty f and g, inside a body@1":                    "pass",
		"`par.Join(f, g)`, empty f and g, inside a body@2":                                "**FAIL**",
		"fib(30) forking at every call: `par.Join` against a goroutine per fork (`wg`)@2": "pass",
		"fib(30), `par.Join`: overhead per fork, (time − seq)/1,346,268@1":                "**FAIL**",
		"fib(30), `par.Join`: 2 workers against 1@2":                                      "pass",
		"tiny n=1000: `par.For` against the loop calling the same func value@1":           "pass",
		"mandelbrot 1024×1024 over rows: `par.For` against the plain loop@2":              "pass",
		"`par.For` allocations per call, n = 1, 1000, 1M@2":                               "pass",
		"pinned against unpinned pool: uniform@2":                                         "info",
	}
	for k, v := range expect {
		if got[k] != v {
			t.Errorf("%s: verdict %q, want %q", k, got[k], v)
		}
	}
}

// TestWriteReport renders RESULTS.md and the plots from synthetic raw
// outputs.
func TestWriteReport(t *testing.T) {
	dir := t.TempDir()
	raw := filepath.Join(dir, "raw")
	if err := os.MkdirAll(raw, 0o755); err != nil {
		t.Fatal(err)
	}
	var m, e strings.Builder
	for _, w := range workloadList {
		for _, p := range []string{"", "-2"} {
			div := 1.0
			if p != "" {
				div = 1.8
			}
			fmt.Fprintf(&m, "Benchmark%s/peer=seq%s 1 1000 ns/op 0 B/op 0 allocs/op\n", w.Top, p)
			fmt.Fprintf(&m, "Benchmark%s/peer=atomic%s 1 %.0f ns/op 10 B/op 1 allocs/op\n", w.Top, p, 1100/div)
			fmt.Fprintf(&m, "Benchmark%s/peer=par.For%s 1 %.0f ns/op 1.1 imbalance 1.3 straggler 0.93 util 5 w0-pieces/op 1 w0-steals/op 2 allocs/op\n", w.Top, p, 1020/div)
		}
	}
	for _, g := range []string{"auto", "1", "64", "1000"} {
		fmt.Fprintf(&e, "BenchmarkExp_Grain/work=uniform/grain=%s-2 1 %d ns/op 3 pieces/op\n", g, 100+len(g))
	}
	for _, v := range []string{"nearest", "random", "longest"} {
		fmt.Fprintf(&e, "BenchmarkExp_Victims/work=tree/victims=%s-2 1 100 ns/op 150 cpu-ns/op\n", v)
	}
	for _, v := range []string{"on", "off"} {
		fmt.Fprintf(&e, "BenchmarkExp_Backoff/work=burst/backoff=%s-2 1 100 ns/op 150 cpu-ns/op\n", v)
	}
	g, g2 := goalsSample()
	few := "BenchmarkFewItems/n=2/cost=1ms/pool=P2/impl=par.For-2 3 1050000 ns/op 1.05 x-bound\n" +
		"BenchmarkFewItems/n=2/cost=1ms/pool=P2/impl=wg-2 3 1000000 ns/op 1 x-bound\n" +
		"BenchmarkFewItems/n=32/cost=1ms/pool=P8sleep/impl=par.For-2 3 5000000 ns/op 1.25 x-bound\n" +
		"BenchmarkFewItems/n=32/cost=1ms/pool=P8sleep/impl=wg-2 3 1100000 ns/op 0.275 x-bound\n" +
		"BenchmarkFewItems/n=8/cost=1ms/pool=P8sleep/impl=par.For-2 3 1300000 ns/op 1.3 x-bound 1100000 item-ns\n" +
		"BenchmarkFewItems/n=8/cost=1ms/pool=P8sleep/impl=wg-2 3 1150000 ns/op 1.15 x-bound 1100000 item-ns\n"
	var blocking strings.Builder
	for impl, ms := range map[string]float64{"par.For": 600, "par.For+Blocking64": 20, "chan64": 15, "errgroup64": 16, "wg": 12} {
		fmt.Fprintf(&blocking, "BenchmarkBlocking/work=files/impl=%s-2 3 %.0f ns/op 1000 cpu-ns/op 10 allocs/op\n", impl, ms*1e6)
	}
	blocking.WriteString("BenchmarkBlocking/work=cpu-alongside/impl=alone-2 3 30000000 ns/op\nBenchmarkBlocking/work=cpu-alongside/impl=with-files-2 3 31000000 ns/op 5 file-loops\n" +
		"BenchmarkBlocking/work=cpu-alongside/impl=with-chan64-2 3 33000000 ns/op 5 file-loops\n")
	rowsOut := "BenchmarkLabels/impl=nolabels 3 1000 ns/op\nBenchmarkLabels/impl=labels 3 1010 ns/op\n" +
		"BenchmarkNestedSmall/impl=base 3 10 ns/op 0 allocs/op\nBenchmarkNestedSmall/impl=parloop 3 60 ns/op 0 allocs/op\n"
	for name, body := range map[string]string{"main": m.String(), "exp": e.String(), "goals": g, "goals2": g2,
		"few": few, "blocking": blocking.String(), "rows": rowsOut, "reduce-repro.tsv-skip": ""} {
		if strings.HasSuffix(name, "-skip") {
			continue
		}
		if err := os.WriteFile(filepath.Join(raw, name+".txt"), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	repro := "BenchmarkReduce/peer=static\t1\t00aa\nBenchmarkReduce/peer=static\t2\t00ab\nBenchmarkReduce/peer=par.Reduce-det\t1\t00aa\nBenchmarkReduce/peer=par.Reduce-det\t2\t00aa\n"
	if err := os.WriteFile(filepath.Join(raw, "reduce-repro.tsv"), []byte(repro), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(raw, "exp.load"), []byte("47% of the machine (37s of CPU time by other processes in 39s)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(raw, "main.load"), []byte("1% of the machine (2s of CPU time by other processes in 3m12s)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "ANALYSIS.md"), []byte("HAND WRITTEN\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := Config{Out: dir, Raw: raw}
	if err := writeReport(cfg, "test", 0, true); err != nil {
		t.Fatal(err)
	}
	out, err := os.ReadFile(filepath.Join(dir, "RESULTS.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(out)
	for _, want := range []string{"## Goals", "## Summary at 2 workers", "### tiny", "wins: 1.08× faster",
		"Scheduler metrics", "HAND WRITTEN", "### Granularity", "### Victim selection", "### Back-off",
		"| `static` | P=1: 1, P=2: 1 | yes | **no** |", "| `par.Reduce-det` | P=1: 1, P=2: 1 | yes | yes |",
		"speedup_tiny.png", "exp_grain.png", "during `exp` (47%)",
		"## Few items, blocking bodies, labels, nested calls", "`par.For` within ceil(n/P)·c + 10% + 100 µs, every case of the table below | 2 | all cases | 2 of 3 cases; worst 1.25× the bound (n=32/cost=1ms/pool=P8sleep)",
		"### Few expensive items", "| 32 | 1ms | – | P8sleep | 4 ms | **5 ms (1.25×)** | 1.1 ms (0.28×) |",
		"| 8 | 1ms | 1.1 ms | P8sleep | 1.1 ms | 1.3 ms (1.18×) | 1.15 ms (1.05×) |",
		"### Blocking bodies: 500 files", "`par.For+Blocking64` against the best hand-written fan-out at 64 (`chan64`, 15 ms) | 2 | ≤ 2× the time | 20 ms, 1.33× the time",
		"keeps its speed (≤ 1.10× the time) | 0.94× the time (31 ms against 33 ms)", "beside the `Blocking(64)` file loop against the CPU loop alone (the file loop's own CPU use) | 2 | – | 1.03× the time |",
		"beside the hand-written `chan64` file loop against the CPU loop alone (the file loop's own CPU use) | 2 | – | 1.10× the time |", "| 1 | ≤ 100 ns | 50 ns/call, 0 allocs |",
		"nothing measurable (within ±3%) | 1.01× the time"} {
		if !strings.Contains(text, want) {
			t.Errorf("RESULTS.md lacks %q", want)
		}
	}
	if strings.Contains(text, "during `main`") {
		t.Error("a quiet phase was flagged as contended")
	}
	for _, png := range []string{"speedup_tiny.png", "speedup_treewalk.png", "exp_grain.png"} {
		if st, err := os.Stat(filepath.Join(dir, png)); err != nil || st.Size() < 1000 {
			t.Errorf("plot %s: %v", png, err)
		}
	}
}
