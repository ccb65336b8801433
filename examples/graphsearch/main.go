package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/parloop/parloop/par"
)

// options are the command's flags.
type options struct {
	n      int
	seed   uint64
	src    int
	rounds int
	names  []string // the strategies, in order
	runs   int
}

func parseFlags(args []string, stderr io.Writer) (*options, error) {
	var o options
	var list string
	fs := flag.NewFlagSet("graphsearch", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.IntVar(&o.n, "n", 1_000_000, "the number of `nodes`")
	fs.Uint64Var(&o.seed, "seed", 1, "the graph's `seed`")
	fs.IntVar(&o.src, "src", 0, "the `node` to search from")
	fs.IntVar(&o.rounds, "work", 4, "the `rounds` of SHA-256 at each node")
	fs.StringVar(&list, "strategy", "scope,sequential", "how to search: a comma-separated `list` of "+strategyList()+", or all")
	fs.IntVar(&o.runs, "runs", 1, "search this many `times` with each strategy, the strategies in turn, and report the medians")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if list == "all" {
		list = strategyList()
	}
	for _, name := range strings.Split(list, ",") {
		if _, ok := strategyNamed(name); !ok {
			return nil, fmt.Errorf("-strategy %s: want a comma-separated list of %s, or all", name, strategyList())
		}
		if !slices.Contains(o.names, name) {
			o.names = append(o.names, name)
		}
	}
	switch {
	case o.n < 1 || o.n > 1<<31-1:
		return nil, fmt.Errorf("-n %d: want 1 to 2^31-1 nodes", o.n)
	case o.src < 0 || o.src >= o.n:
		return nil, fmt.Errorf("-src %d: want a node from 0 to %d", o.src, o.n-1)
	case o.rounds < 0:
		return nil, fmt.Errorf("-work %d: want at least 0 rounds", o.rounds)
	case o.runs < 1:
		return nil, fmt.Errorf("-runs %d: want at least 1", o.runs)
	}
	return &o, nil
}

func strategyList() string {
	names := make([]string, len(strategies))
	for i, s := range strategies {
		names[i] = s.name
	}
	return strings.Join(names, ",")
}

// run generates the graph, searches it with each strategy o.runs times,
// checks that every search finds what the sequential one does, and prints
// the result and the times.
func run(o *options, stdout io.Writer) error {
	g := Generate(o.n, o.seed)
	src := int32(o.src)
	pool := par.NewPool()
	defer pool.Close()
	want := searchSequential(pool, g, src, o.rounds) // the reference
	times := make([][]time.Duration, len(o.names))
	for r := range o.runs {
		for k := range o.names {
			i := (k + r) % len(o.names)
			s, _ := strategyNamed(o.names[i])
			runtime.GC() // each search starts from the same heap
			start := time.Now()
			got := s.search(pool, g, src, o.rounds)
			d := time.Since(start)
			if got != want {
				return fmt.Errorf("%s found %+v; the sequential search %+v", s.name, got, want)
			}
			times[i] = append(times[i], d)
		}
	}
	fmt.Fprintf(stdout, "%d nodes, %d edges, seed %d: from node %d, %d reached, %d marked (key sum %#x)\n",
		g.Len(), len(g.Targets), o.seed, o.src, want.Reached, want.Marked, want.KeySum)
	fmt.Fprintf(stdout, "%d workers (GOMAXPROCS=%d), %d rounds of SHA-256 a node, %d run(s) each\n", pool.Workers(), runtime.GOMAXPROCS(0), o.rounds, o.runs)
	seq := slices.Index(o.names, "sequential")
	for i, name := range o.names {
		fmt.Fprintf(stdout, "%-10s %10v", name, median(times[i]).Round(10*time.Microsecond))
		if o.runs > 1 {
			fmt.Fprintf(stdout, "  (%v-%v)", slices.Min(times[i]).Round(10*time.Microsecond), slices.Max(times[i]).Round(10*time.Microsecond))
		}
		if seq >= 0 && i != seq {
			ratios := make([]float64, o.runs)
			for r := range ratios {
				ratios[r] = times[seq][r].Seconds() / times[i][r].Seconds()
			}
			fmt.Fprintf(stdout, "  %.2fx sequential", median(ratios))
		}
		fmt.Fprintln(stdout)
	}
	return nil
}

// median returns the median of xs (the mean of the middle two for an even
// count); xs is not changed.
func median[T time.Duration | float64](xs []T) T {
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

func main() {
	o, err := parseFlags(os.Args[1:], os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		os.Exit(2)
	}
	if err == nil {
		err = run(o, os.Stdout)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "graphsearch:", err)
		os.Exit(1)
	}
}
