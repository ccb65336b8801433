// Command tfidf indexes a source tree for search in parallel and answers a
// query with the files that match it best, ranked by BM25 (a TF-IDF
// weighting). It shows how parloop balances a loop whose items differ in
// cost by orders of magnitude, and how to write a parallel build that does
// no more work than the sequential one.
//
//	go run ./examples/tfidf                                # index $(go env GOROOT)/src, ask "goroutine channel select"
//	go run ./examples/tfidf work stealing deque            # any query
//	go run ./examples/tfidf -dir . mutex unlock            # any directory
//	go run ./examples/tfidf -strategy all -runs 3          # every way of splitting the work, in one table
//
// # What it does
//
// It lists every regular file under -dir (by default the Go source tree,
// about 11,000 files of a few bytes to 3 MB: Go, assembly, test data,
// documents; symbolic links are left out), reads each file and splits it
// into tokens: runs of ASCII letters, digits and underscores that start with
// a letter, lowercased, of 2 to 40 bytes. A file with a NUL byte in its first
// 8000 bytes is binary, as git decides: it is read (the I/O is part of the
// work) but gives no tokens.
//
// It first builds the index sequentially, untimed: the reference, with
// its answer to the query. By default it then builds the index with
// parloop's default strategy and sequentially, timed, checks that both
// indexes and answers are the same as the reference's, and prints the parallel build's time, CPU time, imbalance and utilization,
// the sequential build's time and CPU time, the speedup and the work ratio
// (the parallel build's CPU time over the sequential one's), then the
// answer: rank, BM25 score and path (relative to -dir) of each file, with
// the query terms it holds.
//
// # The build
//
// The index is built in two phases, each in parallel, that share no table
// and merge none:
//
//  1. Read and count: par.Fold over the files. A worker reads a file,
//     counts its terms in a small table of its own (the file's distinct
//     terms and how often each occurs: it stays in cache, and most tokens
//     repeat a term the file has already used), then appends a record per
//     distinct term (document, count, hash, the term) to one of 256 bins of
//     its own, chosen by the top bits of the term's hash: the term's
//     partition.
//  2. Build the partitions: par.For over the 256 partitions. Partition q is
//     built from every worker's bin q, read in document order: its terms
//     get their ids in order of first appearance, and each term's postings
//     (document and count) come out sorted by document, in one array for
//     the partition. A partition's thousand or so terms fit in a core's
//     cache while it is built.
//
// A worker's bins are written by that worker alone and read, once every file
// is done, by the goroutines that build the partitions, each partition by
// one; so no two goroutines ever touch the same data at once, and the par
// calls' ends order the phases. The sequential build runs the same two
// phases on one goroutine: the parallel build adds no work but the par
// calls' own, and every build gives the same index, byte for byte. The
// obvious parallel form, a term table per worker merged at the end, does
// more: every worker's table holds most of the vocabulary, so the merge
// inserts most terms again once per worker, and P large tables strain the
// caches.
//
// Before the timed builds every file is read once, and the reference is
// built and kept, so that they all run on a warm file cache and start from
// the same heap. The collector runs at GOGC=400 unless GOGC is set.
// Indexing runs under the pprof label phase=index and the query under
// phase=query; par runs each piece under its caller's labels, so with
// -cpuprofile, `go tool pprof -tagfocus phase=index` shows the workers'
// samples as well as the caller's.
//
// # Ranking
//
// A file's score for a query is BM25 with Lucene's defaults (k1 = 1.2,
// b = 0.75): the sum over the query terms it holds of the term's rarity
// (idf) times its count in the file, the count's weight saturating as it
// grows and discounted for a long file (see Index.Search for the formula).
// Files are ranked first by the query terms they hold, the rarest
// deciding: the first file holds the rarest query term that any file
// holds, and with it the next rarest that any such file holds, and so on;
// files holding the same terms are ranked by score, then by path, so the
// ranking is the same on every run and every build. Each answer line shows
// the terms the file holds. A query reads only its terms' postings, on the
// calling goroutine: well under a millisecond on GOROOT/src.
//
// # Flags
//
//	-dir DIR          the directory to index (default $(go env GOROOT)/src)
//	-strategy LIST    how to split the indexing: static, dynamic, semaphore,
//	                  stealing (the default), weighted, largest-first,
//	                  sequential (that build only), or all (the first five);
//	                  a comma-separated list of them prints the table below
//	                  for those
//	-seq              also build the index sequentially, check that it is the
//	                  same, and print the speedup (default true)
//	-k N              how many files to print (default 10)
//	-runs N           build N times with each strategy (default 1), the
//	                  strategies taking turns: round r builds once with
//	                  each, so that all of them see the same machine. The
//	                  table gives the medians over the rounds, the speedup
//	                  and the work being the medians of the rounds' paired
//	                  ratios (round r's sequential time over round r's time;
//	                  round r's CPU time over round r's sequential CPU
//	                  time); with N > 1 every build's wall time, CPU time
//	                  and count of garbage collections follow, a line per
//	                  round, for A/B comparisons on a machine shared with
//	                  other work (a build that a collection fell into is
//	                  slower by more than the noise)
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
// The strategies differ in how the first phase splits the files; the second
// phase is par.For over the partitions for all of them. Each is written the
// way one would write it by hand, with P = GOMAXPROCS:
//
//	static     P goroutines, each given an equal share of the files by count
//	dynamic    P goroutines taking chunks of 16 files from a shared atomic counter
//	semaphore  a goroutine per file, with a semaphore of P around its read and
//	           count (the semaphore is a channel of P workers' bins)
//	stealing   parloop's default: par.Fold over the files, on a pool of P
//	weighted   parloop told each file's cost, its size: par.Fold with
//	           par.Weighted(sizes), so pieces are cut at equal bytes, not files
//
// and one more, not in all, for comparison:
//
//	largest-first  weighted partitioning by file size, largest first: par.Fold
//	               over the files sorted by decreasing size, with
//	               par.Weighted(sizes in that order)
//
// weighted keeps the files in the walk's order. Largest first is the
// textbook order for a list scheduler (the last pieces are the smallest),
// but with stealing the last pieces are small anyway, and the sorted order
// costs work of its own: the files are read out of directory order, and a
// worker's files are rarely consecutive, so its bins hold a run of records
// per file, which the second phase reads one by one. Compare them with
// -strategy weighted,largest-first -runs 5: the CPU times per round show
// what the order costs whatever else the machine runs (a parloop build's
// CPU time also counts a worker's spinning while it looks for work).
//
// The sizes are good weights but not exact ones: in $(go env GOROOT)/src
// the binary files (race detector and BoringCrypto .syso objects, test
// data) are 15% of the bytes and under 1% of the time, since they are read
// but not tokenised, and each file costs an open and a read besides its
// bytes. Stealing corrects what the weights get wrong.
//
// # The table
//
// -strategy all builds the index sequentially and with every strategy,
// checks that every index and every answer is identical to the reference's
// (it exits with status 1 if one is not), and prints one line each
// (with -runs, the medians over the rounds, computed with
// golang.org/x/exp/stats):
//
//	time         the whole build, both phases
//	phase2       the second phase's time (building the partitions)
//	cpu          the process's CPU time during the build: the work done,
//	             whatever else the machine ran
//	speedup      the sequential time over this one
//	range        the least and the greatest of the rounds' speedups
//	work         this build's CPU time over the sequential build's: what
//	             the parallel form costs beyond the sequential form's work
//	             (the split, the workers' search for work, and the same
//	             work running slower beside itself on a shared cache and
//	             memory)
//	imbalance    the longest busy time of a worker over the mean: 1.00 is
//	             perfect, 1.5 means the busiest worker worked 50% longer than
//	             the average, and the others waited for it at the end
//	skew         the slowest file over the median file: how skewed the items
//	             are (the same corpus, so much the same for every strategy)
//	utilization  the workers' busy time over P × the wall time of the
//	             first phase: the share of the CPUs it used
//	steals       pieces of work that parloop's workers stole from each other
//	             (from Pool.Stats); "-" for the hand-written strategies
//	cpus         the CPU time over the wall time: the CPUs it got. Well
//	             below P for a parallel build (or below 1 for the
//	             sequential one), the machine was busy with other work and
//	             the times are not worth comparing
//
// Imbalance and utilization are of the first phase, where the files are
// read and tokenised. For the hand-written strategies a worker's busy time
// is the time it spent indexing files, measured around each file, and the
// wall time runs to the end of the last worker; for parloop both come from
// the pool's own counters over the par.Fold call (Pool.Stats, after
// Pool.ResetStats), in which the calling goroutine is one of the P workers.
//
// Static chunks by count put the large files wherever they happen to fall:
// unless the work happens to split evenly by count, one goroutine works
// long after the others are done. In $(go env GOROOT)/src at 2 workers it
// nearly does; in the whole GOROOT (-dir $(go env GOROOT)), whose walk
// puts the compiled tools and packages of pkg/ in the first half and the
// many small files of test/ in the second, it does not. Dynamic chunks and
// the semaphore balance better but pay per chunk or per goroutine, and a
// large file late in the order still ends the build alone; parloop splits
// the range only when a worker is idle, and with par.Weighted cuts it at
// equal bytes. On a machine shared with other work, every figure is noisy:
// use -runs.
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
)

// defaultQuery is asked when the command line gives none.
var defaultQuery = []string{"goroutine", "channel", "select"}

// options are the command's settings, from its flags.
type options struct {
	dir        string
	strategy   string
	names      []string // the strategies of -strategy, in order
	table      bool     // more than one, or all: print the table
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
	fs.StringVar(&o.strategy, "strategy", "stealing", "how to split the indexing: a comma-separated `list` of "+strategyList()+", or all (the first five)")
	fs.BoolVar(&o.seq, "seq", true, "also build the index sequentially, check it is the same, and print the speedup")
	fs.IntVar(&o.k, "k", 10, "how many files to print")
	fs.BoolVar(&o.stats, "stats", false, "print the pool's counters (Pool.Stats) after each of parloop's builds")
	fs.IntVar(&o.runs, "runs", 1, "build the index this many `times` with each strategy, the strategies in turn, and report the medians")
	fs.StringVar(&o.cpuprofile, "cpuprofile", "", "write a CPU profile to `file`")
	fs.StringVar(&o.trace, "trace", "", "write an execution trace to `file`")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: tfidf [flags] [query words...]\n\nIndexes a source tree in parallel and prints the files that best match the query\n(default %q).\n\n", strings.Join(defaultQuery, " "))
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	for _, name := range strings.Split(o.strategy, ",") {
		if name == "all" {
			for _, s := range strategies {
				if s.inAll && !slices.Contains(o.names, s.name) {
					o.names = append(o.names, s.name)
				}
			}
			continue
		}
		if _, ok := strategyNamed(name); !ok && name != "sequential" {
			return nil, fmt.Errorf("-strategy %s: want a comma-separated list of %s, or all", name, strategyList())
		}
		if !slices.Contains(o.names, name) {
			o.names = append(o.names, name)
		}
	}
	o.table = len(o.names) > 1 || o.strategy == "all"
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
	phase2 time.Duration // the second phase's time
	gcs    uint64        // garbage collections that ended during the build
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

	// The reference: an untimed sequential build, and its answer to the
	// query. Every timed build's index and answer must be the same. Built
	// first, it also grows the heap, which a process's first build would
	// otherwise do (with more collections, and the kernel faulting in
	// fresh pages) while it is timed; and its index stays alive through
	// every timed build, so that they all start from the same heap.
	ctx := context.Background()
	terms := queryTerms(o.query)
	var ref result
	pprof.Do(ctx, pprof.Labels("phase", "index"), func(context.Context) {
		ref, err = o.build(c, "sequential", pool, stderr)
	})
	if err != nil {
		return err
	}
	var answer Result
	var qtime time.Duration
	pprof.Do(ctx, pprof.Labels("phase", "query"), func(context.Context) {
		start := time.Now()
		answer = ref.x.Search(terms, o.k)
		qtime = time.Since(start)
	})

	names := o.names
	if o.seq && !slices.Contains(names, "sequential") {
		if o.table {
			names = append([]string{"sequential"}, names...)
		} else {
			// The parallel build first, as the command's answer.
			names = append(names, "sequential")
		}
	}

	// The strategies take turns: round r builds once with each, so that
	// every strategy sees the same machine, and the rounds are paired.
	var (
		rounds = make([][]result, o.runs) // rounds[r][i]: round r's build with names[i]
		bad    []string
		builds int
	)
	for rep := range o.runs {
		for _, name := range names {
			var r result
			pprof.Do(ctx, pprof.Labels("phase", "index"), func(context.Context) {
				r, err = o.build(c, name, pool, stderr)
			})
			if err != nil {
				return err
			}
			var a Result
			pprof.Do(ctx, pprof.Labels("phase", "query"), func(context.Context) {
				a = r.x.Search(terms, o.k)
			})
			builds++
			if d := diff(ref.x, r.x); d != "" {
				bad = append(bad, fmt.Sprintf("%s's index differs from the sequential build's: %s", name, d))
			}
			if a.Matched != answer.Matched || !slices.Equal(a.Hits, answer.Hits) {
				bad = append(bad, fmt.Sprintf("%s's answer differs from the sequential build's", name))
			}
			r.x = nil
			rounds[rep] = append(rounds[rep], r)
		}
	}
	runs := summarize(names, rounds)
	fmt.Fprintf(stdout, "indexed %d files, %.1f MB, %d terms, under %s\n", len(c.docs), float64(c.bytes)/1e6, ref.x.Terms(), o.dir)

	if o.table {
		printTable(stdout, runs, P, o.runs)
	} else if r := runs[0]; r.name == "sequential" {
		fmt.Fprintf(stdout, "sequential: %v, CPU %v (%s CPUs)\n", r.time.Round(time.Millisecond), r.cpu.Round(time.Millisecond), fmtCPUs(r.cpus))
	} else {
		s, _ := strategyNamed(r.name)
		fmt.Fprintf(stdout, "%s (%s): %v on %d workers, CPU %v (%s CPUs), imbalance %.2f, utilization %.0f%%\n", r.name, s.about, r.time.Round(time.Millisecond), P, r.cpu.Round(time.Millisecond), fmtCPUs(r.cpus), r.imbalance, 100*r.utilization)
		if len(runs) > 1 && runs[1].name == "sequential" {
			seq := runs[1]
			fmt.Fprintf(stdout, "sequential: %v, CPU %v (%s CPUs); speedup %.2fx, work %.2fx (GOMAXPROCS=%d)\n", seq.time.Round(time.Millisecond), seq.cpu.Round(time.Millisecond), fmtCPUs(seq.cpus), r.speedup, r.work, runtime.GOMAXPROCS(0))
		}
	}
	if o.runs > 1 {
		printRounds(stdout, names, rounds)
	}
	if o.stats {
		for _, r := range runs {
			if r.pool != "" {
				fmt.Fprintf(stdout, "%s: %s", r.name, r.pool)
			}
		}
	}
	if len(bad) == 0 && builds == 1 {
		fmt.Fprintln(stdout, "the timed build's index and answer are identical to an untimed sequential build's")
	} else if len(bad) == 0 {
		fmt.Fprintf(stdout, "the %d timed builds' indexes and answers are identical to an untimed sequential build's\n", builds)
	}

	printAnswer(stdout, terms, answer, qtime)
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
	cpu0, gc0 := processCPU(), gcCycles()
	start := time.Now()
	var ws []*bins
	var sp spread
	each := onPool(pool)
	if name == "sequential" {
		b := buildSequential(c, m)
		ws, sp = []*bins{b}, handSpread([]time.Duration{b.busy}, time.Since(start))
		each = sequentially
	} else {
		s, _ := strategyNamed(name)
		ws, sp = s.build(&builder{c: c, P: pool.Workers(), pool: pool, m: m})
	}
	second := time.Now()
	x, err := c.finish(ws, each)
	elapsed, phase2 := time.Since(start), time.Since(second)
	cpu, gcs := processCPU()-cpu0, gcCycles()-gc0
	stop()
	if err != nil {
		return result{}, err
	}
	return result{name: name, x: x, time: elapsed, cpu: cpu, phase2: phase2, gcs: gcs, spread: sp, items: slices.Clone(c.itemTime)}, nil
}

func main() {
	if os.Getenv("GOGC") == "" {
		// A build allocates about 150 MB, most of it the bins of its
		// first phase; like a batch job, let the heap grow fourfold
		// between collections rather than twofold.
		debug.SetGCPercent(400)
	}
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// printAnswer prints the answer to the query: a line per file, its rank,
// BM25 score and path, then, for a query of several terms, the terms it
// holds (which rank it first: see Index.Search).
func printAnswer(w io.Writer, terms []string, a Result, took time.Duration) {
	fmt.Fprintf(w, "\ntop %d of %d matching files for %q (%v):\n", len(a.Hits), a.Matched, strings.Join(terms, " "), took.Round(time.Microsecond))
	if len(a.Missing) > 0 {
		fmt.Fprintf(w, "no file holds %s\n", strings.Join(a.Missing, ", "))
	}
	for i, h := range a.Hits {
		held := ""
		if len(terms) > 1 {
			held = "  [" + strings.Join(a.heldTerms(h), " ") + "]"
		}
		fmt.Fprintf(w, "%3d  %8.4f  %s%s\n", i+1, h.Score, h.Path, held)
	}
}
