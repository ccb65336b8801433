// Command report runs parloop's benchmark suite and writes RESULTS.md and
// the speedup plots. Run it inside bench/:
//
//	go run ./cmd/report -quick   # a preview: one sample each, under 2 minutes
//	go run ./cmd/report          # the full run (under 15 minutes on 2 cores)
//	go run ./cmd/report -from raw  # rewrite RESULTS.md from the last run's raw output
//
// It compiles the benchmarks once (go test -c) and runs them in phases (the
// main suite over GOMAXPROCS 1..NumCPU, the goals, the experiments), each in
// rounds of one process per GOMAXPROCS (see Phase), keeps each phase's output
// in raw/, in the full run builds examples/tfidf and runs it 3 times on
// each of two corpora, GOROOT/src and the whole GOROOT (raw/tfidf.txt),
// runs benchstat over it when benchstat is installed, and generates the tables,
// the per-workload findings and the plots from the numbers. The hand-written
// analysis lives in ANALYSIS.md and is copied into RESULTS.md as it is.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// Config is what a run measures and where it writes.
type Config struct {
	Quick  bool
	Out    string // directory of RESULTS.md and the plots
	Raw    string // directory of the raw outputs
	Phases []Phase
	// RetryBudget is the time the run may spend running processes again
	// because other processes took the machine meanwhile.
	RetryBudget time.Duration
	// TFIDF: build and run examples/tfidf after the phases (the full run).
	TFIDF bool
	// placeholder: the library measured is par's serial placeholder.
	placeholder bool
}

func phases(quick bool, cpus []int, mainCount, goalCount, expCount int, mainTime, goalTime string) []Phase {
	maxp := cpus[len(cpus)-1]
	ends := []int{1}
	if maxp > 1 {
		ends = append(ends, maxp)
	}
	ps := []Phase{
		{
			Name:    "main",
			Benches: []string{"Tiny", "Uniform", "Mandelbrot", "Skewed", "Fib30", "Fib35", "Quicksort", "Reduce", "Nested", "ManyCallers", "TreeWalk", "UTS", "UTSAlloc"},
			CPU:     cpus, Rounds: mainCount, Benchtime: mainTime, Short: quick,
			Benchstat: []BenchstatView{{Title: "all workloads, every peer"}},
		},
		{
			Name:    "goals",
			Benches: []string{"Goal_Invoke", "Goal_Fib30", "Goal_Tiny", "Goal_ForAllocs"},
			CPU:     ends, Rounds: goalCount, Benchtime: goalTime, Short: quick,
			Benchstat: []BenchstatView{{Title: "A against B (-col /impl)", Col: "/impl"}},
		},
	}
	if maxp >= 2 {
		// The goals that the main suite's three rounds of one op each
		// judge by a coin toss (ops of 30-170 ms whose ratios move by 10%
		// between rounds): the tree walks and Filter+Map+Reduce over a
		// slice, at 2 workers, in ten rounds of three ops each; and the
		// loop whose first item is half the work (cuts, par/offer.go).
		treeTime := "3x"
		if quick {
			treeTime = "1x"
		}
		ps = append(ps, Phase{
			Name:    "paired",
			Benches: []string{"UTS", "UTSAlloc", "IterSlice", "LongFirstItem", "CallersSweep"},
			CPU:     []int{2}, Rounds: goalCount, Benchtime: treeTime, Short: quick,
			Benchstat: []BenchstatView{{Title: "tree walks, Filter+Map+Reduce, a long first item and the many-callers sweep at 2 workers, ten rounds"}},
		})
		ps = append(ps, Phase{
			Name:    "goals2",
			Benches: []string{"Goal_Uniform", "Goal_Mandelbrot", "Goal_Pinning"},
			CPU:     []int{2}, Rounds: goalCount, Benchtime: goalTime, Short: quick,
			Benchstat: []BenchstatView{{Title: "A against B at 2 workers (-col /impl)", Col: "/impl"}},
		})
	}
	ps = append(ps, Phase{
		Name:    "exp",
		Benches: []string{"Exp_Grain", "Exp_Victims", "Exp_Backoff"},
		CPU:     []int{maxp}, Rounds: expCount, Benchtime: mainTime, Short: quick,
		Benchstat: []BenchstatView{
			{Title: "granularity", Filter: ".name:Exp_Grain", Col: "/grain"},
			{Title: "victim selection", Filter: ".name:Exp_Victims", Col: "/victims"},
			{Title: "back-off", Filter: ".name:Exp_Backoff", Col: "/backoff"},
		},
	})
	// The rows of few items, blocking bodies, labels and nested calls. Few
	// items take up to a third of a second an op: a fixed count of ops.
	fewTime := "3x"
	if quick {
		fewTime = "1x"
	}
	ps = append(ps,
		Phase{
			Name: "rows", Benches: []string{"Labels", "NestedSmall"},
			CPU: ends, Rounds: goalCount, Benchtime: goalTime, Short: quick,
			Benchstat: []BenchstatView{{Title: "labels and nested calls (-col /impl)", Col: "/impl"}},
		},
		Phase{
			Name: "few", Benches: []string{"FewItems"},
			CPU: []int{maxp}, Rounds: expCount, Benchtime: fewTime, Short: quick,
			Benchstat: []BenchstatView{{Title: "few expensive items (-col /impl)", Col: "/impl"}},
		},
		Phase{
			Name: "blocking", Benches: []string{"Blocking"},
			CPU: []int{maxp}, Rounds: expCount, Benchtime: mainTime, Short: quick,
			Benchstat: []BenchstatView{{Title: "blocking bodies (-col /impl)", Col: "/impl"}},
		},
		// Weights and Fold: the skewed loop split by weight, and word
		// counts over skewed documents, at 1 and the largest GOMAXPROCS.
		Phase{
			Name: "weighted", Benches: []string{"Weighted", "FoldDocs"},
			CPU: ends, Rounds: mainCount, Benchtime: mainTime, Short: quick,
			Benchstat: []BenchstatView{
				{Title: "weighted partitioning (-col /impl)", Filter: ".name:Weighted", Col: "/impl"},
				{Title: "word counts with Fold (-col /impl)", Filter: ".name:FoldDocs", Col: "/impl"},
			},
		},
		// The iter package: cheap bodies and the slice at 1 and 2 workers.
		Phase{
			Name: "iter", Benches: []string{"IterSeqMapCheap", "IterSlice"},
			CPU: iterCPU(maxp), Rounds: mainCount, Benchtime: mainTime, Short: quick,
			Benchstat: []BenchstatView{{Title: "iter pipelines, 50 ns body and slice (-col /impl)", Col: "/impl"}},
		},
		// Tracing off and Track: small calls, paired by round as the goals.
		Phase{
			Name: "trace", Benches: []string{"TraceOff"},
			CPU: ends, Rounds: goalCount, Benchtime: goalTime, Short: quick,
			Benchstat: []BenchstatView{{Title: "tracing off, Track, tracing on (-col /impl)", Col: "/impl"}},
		},
	)
	if maxp >= 2 {
		// The iter package at 2 workers: runs of a second or more an op,
		// so at most two rounds (the phase's ~2 minutes).
		ps = append(ps,
			Phase{
				Name: "iter2", Benches: []string{"IterSeqMap", "IterPgrep"},
				CPU: []int{2}, Rounds: min(mainCount, 2), Benchtime: "1x", Short: quick,
				Benchstat: []BenchstatView{{Title: "iter pipelines at 2 workers (-col /impl)", Col: "/impl"}},
			},
			Phase{
				Name: "iterstream", Benches: []string{"IterStream"},
				CPU: []int{2}, Rounds: 1, Benchtime: "1x", Short: quick,
			})
	}
	return ps
}

// iterCPU is the GOMAXPROCS values of phase iter: 1 and 2.
func iterCPU(maxp int) []int {
	if maxp >= 2 {
		return []int{1, 2}
	}
	return []int{1}
}

func main() {
	quick := flag.Bool("quick", false, "a preview: one sample per benchmark, 10ms benchtime, smaller heavy workloads and fewer experiment points (go test -short)")
	from := flag.String("from", "", "do not run anything: rewrite RESULTS.md and the plots from the raw outputs in this directory")
	count := flag.Int("count", 0, "rounds (samples per benchmark) of the main suite and experiments (default 3, quick 1)")
	goalCount := flag.Int("goal-count", 0, "rounds (samples per benchmark) of the goals (default 10, quick 2)")
	maxCPU := flag.Int("maxcpu", runtime.NumCPU(), "sweep GOMAXPROCS from 1 to this")
	only := flag.String("only", "", "run only these phases (comma-separated names, \"tfidf\" for the TF-IDF runs), for a targeted run; use it with -out elsewhere, since RESULTS.md then lacks the other sections")
	out := flag.String("out", ".", "directory for RESULTS.md and the plots")
	flag.Parse()

	if err := checkDir("."); err != nil {
		fmt.Fprintln(os.Stderr, "report:", err)
		os.Exit(2)
	}
	var cpus []int
	for c := 1; c <= max(1, *maxCPU); c++ {
		cpus = append(cpus, c)
	}
	mc, gc, ec, mt, gt := 3, 10, 3, "50ms", "50ms"
	if *quick {
		mc, gc, ec, mt, gt = 1, 2, 1, "10ms", "10ms"
	}
	if *count > 0 {
		mc, ec = *count, *count
	}
	if *goalCount > 0 {
		gc = *goalCount
	}
	retry := 4 * time.Minute
	if *quick {
		retry = 15 * time.Second
	}
	cfg := Config{Quick: *quick, Out: *out, Raw: filepath.Join(*out, "raw"), Phases: phases(*quick, cpus, mc, gc, ec, mt, gt), RetryBudget: retry, TFIDF: !*quick}
	if *only != "" {
		keep := map[string]bool{}
		for _, name := range strings.Split(*only, ",") {
			keep[strings.TrimSpace(name)] = true
		}
		var ps []Phase
		for _, p := range cfg.Phases {
			if keep[p.Name] {
				ps = append(ps, p)
			}
		}
		cfg.Phases, cfg.TFIDF = ps, cfg.TFIDF && keep["tfidf"]
		if len(ps) == 0 && !cfg.TFIDF {
			fmt.Fprintf(os.Stderr, "report: -only %s names no phase\n", *only)
			os.Exit(2)
		}
		if err := os.MkdirAll(*out, 0o755); err != nil {
			fmt.Fprintln(os.Stderr, "report:", err)
			os.Exit(1)
		}
	}

	began := time.Now()
	cfg.placeholder = placeholder() // before the run: the library may change under a long run
	if *from != "" {
		cfg.Raw = *from
	} else if err := runAll(cfg); err != nil {
		fmt.Fprintln(os.Stderr, "report:", err)
		os.Exit(1)
	}
	elapsed := time.Since(began)
	cmdline := strings.TrimSpace("go run ./cmd/report " + strings.Join(os.Args[1:], " "))
	if err := writeReport(cfg, cmdline, elapsed, *from != ""); err != nil {
		fmt.Fprintln(os.Stderr, "report:", err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "report: wrote %s in %v\n", filepath.Join(cfg.Out, "RESULTS.md"), time.Since(began).Round(time.Second))
}

// checkDir makes sure the report runs inside bench/.
func checkDir(dir string) error {
	b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil || !bytes.Contains(b, []byte("module github.com/parloop/parloop/bench")) {
		return fmt.Errorf("run me inside bench/ (go run ./cmd/report)")
	}
	return nil
}

// runAll runs every phase, writing raw outputs and benchstat summaries.
func runAll(cfg Config) error {
	if err := os.MkdirAll(cfg.Raw, 0o755); err != nil {
		return err
	}
	repro, err := filepath.Abs(filepath.Join(cfg.Raw, "reduce-repro.tsv"))
	if err != nil {
		return err
	}
	_ = os.Remove(repro)
	tmp, err := os.MkdirTemp("", "parloop-bench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	bin := filepath.Join(tmp, "bench.test")
	fmt.Fprintln(os.Stderr, "report: go test -tags parloop_experiments -c -o bench.test .")
	if err := buildTestBinary(".", bin); err != nil {
		return err
	}
	bs := benchstatPath()
	budget := retryBudget{left: cfg.RetryBudget}
	for _, p := range cfg.Phases {
		t0 := time.Now()
		fmt.Fprintf(os.Stderr, "report: phase %s: %s\n", p.Name, p.Command())
		raw := filepath.Join(cfg.Raw, p.Name+".txt")
		_ = os.Remove(filepath.Join(cfg.Raw, p.Name+".discarded.txt"))
		load, err := p.run(bin, ".", raw, []string{"PARLOOP_BENCH_REPRO=" + repro}, os.Stderr, &budget)
		if err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "report: phase %s: other processes used %s\n", p.Name, load)
		if err := os.WriteFile(filepath.Join(cfg.Raw, p.Name+".load"), []byte(load+"\n"), 0o644); err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "report: phase %s took %v\n", p.Name, time.Since(t0).Round(time.Second))
		if err := os.WriteFile(filepath.Join(cfg.Raw, p.Name+".seconds"), fmt.Appendf(nil, "%.0f\n", time.Since(t0).Seconds()), 0o644); err != nil {
			return err
		}
		var sb strings.Builder
		if bs == "" {
			sb.WriteString("benchstat is not installed; install it with\n  go install golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da\n")
		}
		core := filepath.Join(cfg.Raw, p.Name+".core.txt")
		if err := writeCore(raw, core); err != nil {
			return err
		}
		for _, v := range p.Benchstat {
			if bs == "" {
				break
			}
			out, err := runBenchstat(bs, core, v)
			if err != nil {
				out += "\n(benchstat failed: " + err.Error() + ")\n"
			}
			fmt.Fprintf(&sb, "### %s\n%s\n", v.Title, out)
		}
		if err := os.WriteFile(filepath.Join(cfg.Raw, p.Name+".benchstat.txt"), []byte(sb.String()), 0o644); err != nil {
			return err
		}
	}
	if !cfg.TFIDF {
		_ = os.Remove(filepath.Join(cfg.Raw, tfidfRaw)) // not run: no stale runs in this report
		return nil
	}
	return runTFIDF(cfg.Raw, tmp, &budget, os.Stderr)
}
