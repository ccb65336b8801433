// Command graphsearch searches a generated graph of a million nodes from
// one node, doing some work at every node it reaches, with par.ScopeOf and a
// concurrent visited set, and checks that it finds what a sequential
// search finds. It is the shape of a crawl: the work is discovered as it
// is done, so there is no loop to split, only tasks that spawn tasks.
//
//	go run ./examples/graphsearch                            # scope and sequential, once each
//	go run ./examples/graphsearch -strategy all -runs 7      # every strategy, alternated, medians
//	go run ./examples/graphsearch -n 100000 -seed 7 -work 1  # another graph, cheaper nodes
//
// # The graph and the search
//
// Node v has 1 to 5 edges (3 on average) to nodes chosen by a hash of the
// seed, v and the edge's index, stored in compressed sparse row form; from
// node 0 of the default graph about 94% of the nodes are reachable. At
// each node the search computes the node's key, -work rounds of SHA-256
// over its label, standing for the cost, fingerprint or match test of a
// real search, and counts the nodes reached, those marked (one key in
// 16), and the sum of their keys, which any node missed or visited twice
// would change.
//
// Strategies (-strategy, a comma-separated list, or all):
//
//	scope       par.ScopeOf: a task follows a path, and spawns a task for
//	            every other neighbour it reaches first (the default)
//	sequential  a worklist (a stack) and a plain bitset, on one goroutine
//	goroutines  a goroutine per node reached first and a WaitGroup
//
// The parallel strategies share a visited set of one bit per node: a node
// belongs to whoever sets its bit first (an atomic Or), so each node is
// visited once. A scope task keeps one of the neighbours it claims and
// spawns tasks for the others, so a path through the graph is one task;
// a task counts in its own variables and adds them, when it ends, to one
// of 64 shards of counters on their own cache lines, so the two workers
// rarely write the same line.
//
// With -runs N each strategy searches N times, the strategies in turn
// within each round (the first of a round changes from round to round),
// and the table shows each one's median time and range and, paired by
// round, its speedup over the sequential search.
//
// # Measuring
//
// go run ./examples/graphsearch -strategy all -runs 7 prints each
// strategy's median and its speedup over the sequential search, paired by
// round. go test -bench . -count 10 ./examples/graphsearch times the
// strategies for benchstat, and, beside them, the same work without the
// graph: a loop over the keys of 10^5 nodes, par.For over them, and a
// Scope spawning a task per node, which show what two workers give on
// this work on the machine at hand, and what a task costs over its body.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"

	"github.com/parloop/parloop/examples/internal/rounds"
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
	fs.IntVar(&o.rounds, "work", 8, "the `rounds` of SHA-256 at each node")
	fs.StringVar(&list, "strategy", "scope,sequential", "how to search: a comma-separated `list` of "+strings.Join(strategyNames(), ",")+", or all")
	fs.IntVar(&o.runs, "runs", 1, "search this many `times` with each strategy, the strategies in turn, and report the medians")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	var err error
	if o.names, err = rounds.Names(list, strategyNames()); err != nil {
		return nil, err
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

func strategyNames() []string {
	names := make([]string, len(strategies))
	for i, s := range strategies {
		names[i] = s.name
	}
	return names
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
	times, err := rounds.Run(len(o.names), o.runs, func(i int) error {
		s, _ := strategyNamed(o.names[i])
		if got := s.search(pool, g, src, o.rounds); got != want {
			return fmt.Errorf("%s found %+v; the sequential search %+v", s.name, got, want)
		}
		return nil
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%d nodes, %d edges, seed %d: from node %d, %d reached, %d marked (key sum %#x)\n",
		g.Len(), len(g.Targets), o.seed, o.src, want.Reached, want.Marked, want.KeySum)
	fmt.Fprintf(stdout, "%d workers (GOMAXPROCS=%d), %d rounds of SHA-256 a node, %d run(s) each\n", pool.Workers(), runtime.GOMAXPROCS(0), o.rounds, o.runs)
	rounds.Print(stdout, o.names, times, "sequential")
	return nil
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
