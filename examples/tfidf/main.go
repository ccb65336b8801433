// Command tfidf indexes a source tree for TF-IDF search in parallel and
// answers a query with the ten best files, to show how parloop balances a
// loop whose items differ in cost by orders of magnitude.
//
//	go run ./examples/tfidf                                # index $(go env GOROOT)/src, ask "goroutine channel select"
//	go run ./examples/tfidf -dir . mutex unlock            # any directory, any query
//	go run ./examples/tfidf -strategy all                  # every way of splitting the work, in one table
//
// # What it does
//
// It lists every regular file under -dir (by default the Go source tree,
// about 11,000 files of a few bytes to 3 MB: Go, assembly, test data,
// documents; symbolic links are left out), reads each file and splits it
// into tokens: runs of ASCII letters, digits and underscores that start with
// a letter, lowercased, of 2 to 40 bytes. A file with a NUL byte in its first
// 8000 bytes is binary, as git decides: it is read (the I/O is part of the
// work) but gives no tokens. Reading and tokenising run in parallel, each
// worker counting into a term table of its own (term -> the files it occurs
// in, with counts); the tables are merged at the end, with no lock
// anywhere. The build is par.Fold: one accumulator per worker, merged when
// every piece is done.
//
// The query's words are tokenised the same way, and every file is scored in
// parallel, again with par.Fold, each worker keeping its own top ten, merged
// at the end. A file's score is its TF-IDF, the sum over the query terms it
// contains of (1 + ln tf) · ln(N/df), over the square root of its length in
// tokens (see Index.Search). Ties are broken by path, so the ranking is the
// same on every run.
//
// Before the timed builds every file is read once, so that they all run on
// a warm file cache. The collector runs at GOGC=400 unless GOGC is set.
// Indexing runs under the pprof label phase=index and the query under
// phase=query; par runs each piece under its caller's labels, so with
// -cpuprofile, `go tool pprof -tagfocus phase=index` shows the workers'
// samples as well as the caller's.
//
// By default it builds the index with parloop's default strategy, then
// sequentially, checks that the two indexes and answers are the same, and
// prints the parallel build's time, imbalance and utilization, the
// sequential time and the speedup, then the answer: rank, score and path
// (relative to -dir) of each file.
//
// # Flags
//
//	-dir DIR          the directory to index (default $(go env GOROOT)/src)
//	-strategy NAME    how to split the indexing: static, dynamic, semaphore,
//	                  stealing (the default), weighted, or all
//	-seq              also build the index sequentially, check that it is the
//	                  same, and print the speedup (default true)
//	-k N              how many files to print (default 10)
//	-runs N           build N times with each strategy and report the
//	                  fastest build (default 1): for a machine shared with
//	                  other work
//	-stats            print the pool's counters (Pool.Stats: per worker
//	                  pieces, steals, splits, busy and idle time) after
//	                  each of parloop's builds
//	-cpuprofile FILE  write a CPU profile of the run
//	-trace FILE       write an execution trace of the run (par shows each
//	                  call as a task and each piece as a region)
//
// While it indexes, a progress bar on stderr shows the files and bytes done,
// the rate and the time left, when stderr is a terminal; it is quiet
// otherwise.
//
// # Strategies
//
// Each is written the way one would write it by hand, with P =
// GOMAXPROCS:
//
//	static     P goroutines, each given an equal share of the files by count
//	dynamic    P goroutines taking chunks of 16 files from a shared atomic counter
//	semaphore  a goroutine per file, with a semaphore of P around its read and
//	           tokenise (the semaphore is a channel of P term tables)
//	stealing   parloop's default: par.Fold over the files, on a pool of P
//	weighted   parloop told each file's cost, its size: par.Fold with
//	           par.Weighted(sizes), so pieces are cut at equal bytes, not files
//
// # The table
//
// -strategy all builds the index sequentially and with every strategy,
// checks that every index and every answer is identical to the sequential
// ones (it exits with status 1 if one is not), and prints one line each:
//
//	time         the whole build: read, tokenise, merge and sort the postings
//	speedup      the sequential time over this one
//	imbalance    the longest busy time of a worker over the mean: 1.00 is
//	             perfect, 1.5 means the busiest worker worked 50% longer than
//	             the average, and the others waited for it at the end
//	straggler    the slowest file over the median file: how skewed the items
//	             are (the same corpus, so much the same for every strategy)
//	utilization  the workers' busy time over P × the wall time of the
//	             parallel part: the share of the CPUs it used
//	steals       pieces of work that parloop's workers stole from each other
//	             (from Pool.Stats); "-" for the hand-written strategies
//	cpus         the process's CPU time during the build over its wall
//	             time: the CPUs it got. Well below P for a parallel build
//	             (or below 1 for the sequential one), the machine was busy
//	             with other work and the times are not worth comparing
//
// Imbalance and utilization are of the parallel part, where the files are
// read and tokenised. For the hand-written strategies a worker's busy time
// is the time it spent indexing files, measured around each file, and the
// wall time runs to the end of the last worker; for parloop both come from
// the pool's own counters over the par.Fold call, its merge included
// (Pool.Stats, after Pool.ResetStats), in which the calling goroutine is
// one of the P workers. Every strategy merges the workers' tables the same
// way (par.For over the tables' 64 shards), so they differ only in how they
// split the files.
//
// Static chunks by count put the large files wherever they happen to fall:
// unless the bytes happen to split evenly by count, one goroutine works
// long after the others are done (imbalance well above 1, utilization well
// below 100%). Dynamic chunks and the semaphore balance better but pay per
// chunk or per goroutine, and a large file late in the order still ends
// the build alone; parloop splits the range only when a worker is idle, and
// with par.Weighted cuts it at equal bytes. On a machine shared with other
// work, every figure is noisy: use -runs.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"runtime/trace"
	"slices"
	"strings"
	"time"

	"github.com/parloop/parloop/par"
	"golang.org/x/exp/stats"
)

// defaultQuery is asked when the command line gives none.
var defaultQuery = []string{"goroutine", "channel", "select"}

// options are the command's settings, from its flags.
type options struct {
	dir        string
	strategy   string
	seq        bool
	k          int
	runs       int
	stats      bool
	cpuprofile string
	trace      string
	query      []string
	bar        bool // show the progress bar on stderr
}

func parseFlags(args []string, stderr io.Writer) (*options, error) {
	fs := flag.NewFlagSet("tfidf", flag.ContinueOnError)
	fs.SetOutput(stderr)
	o := &options{}
	fs.StringVar(&o.dir, "dir", "", "the `directory` to index (default $(go env GOROOT)/src)")
	fs.StringVar(&o.strategy, "strategy", "stealing", "how to split the indexing: static, dynamic, semaphore, stealing, weighted or all")
	fs.BoolVar(&o.seq, "seq", true, "also build the index sequentially, check it is the same, and print the speedup")
	fs.IntVar(&o.k, "k", 10, "how many files to print")
	fs.BoolVar(&o.stats, "stats", false, "print the pool's counters (Pool.Stats) after each of parloop's builds")
	fs.IntVar(&o.runs, "runs", 1, "build the index this many `times` with each strategy and report the fastest")
	fs.StringVar(&o.cpuprofile, "cpuprofile", "", "write a CPU profile to `file`")
	fs.StringVar(&o.trace, "trace", "", "write an execution trace to `file`")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: tfidf [flags] [query words...]\n\nIndexes a source tree in parallel and prints the files that best match the query\n(default %q).\n\n", strings.Join(defaultQuery, " "))
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if _, ok := strategyNamed(o.strategy); !ok && o.strategy != "all" {
		return nil, fmt.Errorf("-strategy %s: want static, dynamic, semaphore, stealing, weighted or all", o.strategy)
	}
	if o.k < 1 {
		return nil, fmt.Errorf("-k %d: want at least 1", o.k)
	}
	if o.runs < 1 {
		return nil, fmt.Errorf("-runs %d: want at least 1", o.runs)
	}
	if o.dir == "" {
		out, err := exec.Command("go", "env", "GOROOT").Output()
		if err != nil {
			return nil, fmt.Errorf("go env GOROOT: %v (give -dir)", err)
		}
		o.dir = filepath.Join(strings.TrimSpace(string(out)), "src")
	}
	o.query = fs.Args()
	if len(o.query) == 0 {
		o.query = defaultQuery
	}
	return o, nil
}

// errMismatch reports an index or an answer that differs between builds.
var errMismatch = errors.New("builds disagree")

// run is the command; it returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	o, err := parseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, "tfidf:", err)
		return 2
	}
	o.bar = isTerminal(stderr)
	if err := o.profiled(stdout, stderr); err != nil {
		fmt.Fprintln(stderr, "tfidf:", err)
		return 1
	}
	return 0
}

// profiled runs the command under the profiles asked for.
func (o *options) profiled(stdout, stderr io.Writer) (err error) {
	if o.cpuprofile != "" {
		f, err := os.Create(o.cpuprofile)
		if err != nil {
			return err
		}
		defer func() { err = errors.Join(err, f.Close()) }()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	if o.trace != "" {
		f, err := os.Create(o.trace)
		if err != nil {
			return err
		}
		defer func() { err = errors.Join(err, f.Close()) }()
		if err := trace.Start(f); err != nil {
			return err
		}
		defer trace.Stop()
	}
	return o.main(stdout, stderr)
}

// result is one build's figures.
type result struct {
	name   string
	x      *Index // dropped once checked
	time   time.Duration
	cpu    time.Duration // the process's CPU time during the build (0 if unknown)
	spread spread
	items  []time.Duration // each file's indexing time
}

func (o *options) main(stdout, stderr io.Writer) error {
	c, err := walk(o.dir)
	if err != nil {
		return err
	}
	pool := par.NewPool()
	defer pool.Close()
	P := pool.Workers()
	warm(c)

	ctx := context.Background()
	terms := queryTerms(o.query)
	names := []string{o.strategy}
	if o.strategy == "all" {
		names = nil
		for _, s := range strategies {
			names = append(names, s.name)
		}
	}
	if o.seq || o.strategy == "all" {
		names = append([]string{"sequential"}, names...)
	}
	if o.strategy != "all" {
		// The parallel build first, as the command's answer.
		slices.Reverse(names)
	}

	// Every build's index, and its answer to the query, must be the same
	// as the first build's. Only the first index is kept.
	var (
		first   *Index
		hits    []Hit
		matched int
		qtime   time.Duration
		runs    []result
		bad     []string
		builds  int
	)
	for _, name := range names {
		var best result
		for rep := range o.runs {
			var r result
			pprof.Do(ctx, pprof.Labels("phase", "index"), func(context.Context) {
				r, err = o.build(c, name, pool, stderr)
			})
			if err != nil {
				return err
			}
			var h []Hit
			var m int
			pprof.Do(ctx, pprof.Labels("phase", "query"), func(context.Context) {
				start := time.Now()
				h, m = r.x.Search(terms, o.k, par.On(pool))
				if first == nil {
					qtime = time.Since(start)
				}
			})
			builds++
			if first == nil {
				first, hits, matched = r.x, h, m
			} else {
				if d := diff(first, r.x); d != "" {
					bad = append(bad, fmt.Sprintf("%s's index differs from %s's: %s", name, names[0], d))
				}
				if m != matched || !slices.Equal(h, hits) {
					bad = append(bad, fmt.Sprintf("%s's answer differs from %s's", name, names[0]))
				}
			}
			r.x = nil
			if rep == 0 || r.time < best.time {
				best = r
			}
		}
		runs = append(runs, best)
	}
	fmt.Fprintf(stdout, "indexed %d files, %.1f MB, %d terms, under %s\n", len(c.docs), float64(c.bytes)/1e6, first.Terms(), o.dir)

	var seq *result
	for i := range runs {
		if runs[i].name == "sequential" {
			seq = &runs[i]
		}
	}
	if o.strategy == "all" {
		printTable(stdout, runs, P)
	} else {
		r := runs[0]
		s, _ := strategyNamed(r.name)
		fmt.Fprintf(stdout, "%s (%s): %v on %d workers (%s CPUs), imbalance %.2f, utilization %.0f%%\n", r.name, s.about, r.time.Round(time.Millisecond), P, cpus(r), r.spread.imbalance, 100*r.spread.utilization)
		if seq != nil {
			fmt.Fprintf(stdout, "sequential: %v (%s CPUs), speedup %.2fx (GOMAXPROCS=%d)\n", seq.time.Round(time.Millisecond), cpus(*seq), seq.time.Seconds()/r.time.Seconds(), runtime.GOMAXPROCS(0))
		}
	}
	if o.stats {
		for _, r := range runs {
			if r.spread.pool != "" {
				fmt.Fprintf(stdout, "%s: %s", r.name, r.spread.pool)
			}
		}
	}
	if builds > 1 && len(bad) == 0 {
		fmt.Fprintf(stdout, "the %d builds' indexes and answers are identical\n", builds)
	}

	fmt.Fprintf(stdout, "\ntop %d of %d matching files for %q (%v):\n", len(hits), matched, strings.Join(terms, " "), qtime.Round(time.Microsecond))
	for i, h := range hits {
		fmt.Fprintf(stdout, "%3d  %8.4f  %s\n", i+1, h.Score, h.Path)
	}
	if len(bad) > 0 {
		return fmt.Errorf("%w:\n%s", errMismatch, strings.Join(bad, "\n"))
	}
	return nil
}

// warm reads every file once, untimed, so that the builds all run on a
// warm file cache. The reads block, so they run with par.Blocking.
func warm(c *corpus) {
	par.For(len(c.docs), func(i int) {
		_, _ = os.ReadFile(filepath.Join(c.root, filepath.FromSlash(c.docs[i].Path)))
	}, par.Blocking(4*runtime.GOMAXPROCS(0)))
}

// build builds the index with the named strategy, or sequentially.
func (o *options) build(c *corpus, name string, pool *par.Pool, stderr io.Writer) (result, error) {
	c.reset()
	runtime.GC() // start every build from the same heap
	m := new(meter)
	stop := func() {}
	if o.bar {
		stop = startBar(stderr, name, int64(len(c.docs)), c.bytes, m)
	}
	cpu0 := processCPU()
	start := time.Now()
	var t *table
	var sp spread
	each := onPool(pool)
	if name == "sequential" {
		t = buildSequential(c, m)
		sp = handSpread([]time.Duration{t.busy}, time.Since(start))
		each = sequentially
	} else {
		s, _ := strategyNamed(name)
		t, sp = s.build(&builder{c: c, P: pool.Workers(), pool: pool, m: m})
	}
	x, err := c.finish(t, each)
	elapsed := time.Since(start)
	cpu := processCPU() - cpu0
	stop()
	if err != nil {
		return result{}, err
	}
	return result{name: name, x: x, time: elapsed, cpu: cpu, spread: sp, items: slices.Clone(c.itemTime)}, nil
}

// printTable prints -strategy all's table: one line per build.
func printTable(w io.Writer, runs []result, P int) {
	var seq time.Duration
	for _, r := range runs {
		if r.name == "sequential" {
			seq = r.time
		}
	}
	fmt.Fprintf(w, "%d workers (GOMAXPROCS=%d)\n", P, runtime.GOMAXPROCS(0))
	fmt.Fprintf(w, "%-10s %9s %8s %10s %10s %12s %7s %5s\n", "strategy", "time", "speedup", "imbalance", "straggler", "utilization", "steals", "cpus")
	for _, r := range runs {
		speedup := "-"
		if seq > 0 {
			speedup = fmt.Sprintf("%.2fx", seq.Seconds()/r.time.Seconds())
		}
		imb, util, steals := fmt.Sprintf("%.2f", r.spread.imbalance), fmt.Sprintf("%.1f%%", 100*r.spread.utilization), "-"
		if r.spread.steals >= 0 {
			steals = fmt.Sprint(r.spread.steals)
		}
		if r.name == "sequential" {
			imb, util = "-", "-"
		}
		fmt.Fprintf(w, "%-10s %9v %8s %10s %10s %12s %7s %5s\n", r.name, r.time.Round(time.Millisecond), speedup, imb, straggler(r.items), util, steals, cpus(r))
	}
}

// cpus returns the CPUs a build had: the process's CPU time over the wall
// time. Below P for a parallel build, the machine was busy with other work
// (or the build waited), and its times say little.
func cpus(r result) string {
	if r.cpu <= 0 || r.time <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", r.cpu.Seconds()/r.time.Seconds())
}

// straggler returns the slowest item's time over the median item's.
func straggler(items []time.Duration) string {
	if len(items) == 0 {
		return "-"
	}
	f := make([]float64, len(items))
	for i, d := range items {
		f[i] = float64(d)
	}
	med := stats.Median(f)
	if med <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f", slices.Max(f)/med)
}

func main() {
	if os.Getenv("GOGC") == "" {
		// The index grows in small steps (new terms, longer postings)
		// to about 60 MB; like a batch job, let the heap grow fourfold
		// between collections rather than twofold. Every build gains,
		// the parallel ones most: the sequential build's collector runs
		// on the otherwise idle CPUs.
		debug.SetGCPercent(400)
	}
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}
