// Parloop-trace reads an execution trace of a program that uses parloop
// and reports how each parallel call, fork tree and iter pipeline spread
// over the workers.
//
// Usage:
//
//	parloop-trace [-svg out.svg] [-png out.png] [-width pixels] trace.out
//
// What par and iter write while runtime/trace records (with tracing off
// each costs a load per call):
//
//   - a loop call (par.For, ForRange, ForErr, Map, MapErr, Reduce,
//     ReduceRange; Fold runs as "par.ForRange") is a task "par.<verb>"
//     with a log of its item count n, and every piece of it a region on the
//     goroutine that ran it: "piece" on the caller's own seat, "stolen
//     piece" elsewhere, with a log of the range it began with;
//   - a fork from outside the pool (par.Join, Both, BothOf, Invoke) is a
//     task for its whole call tree, however many forks it makes, with n its
//     number of functions; each function of the tree that a thief ran is a
//     "stolen fork" region on the thief;
//   - a call nested in a traced call tree is a subtask of the tree's root,
//     and ForErr's and MapErr's task a subtask of their context's task (a
//     request's trace.NewTask holds the calls made with its context);
//   - an iter pipeline's run is a task "iter.<terminal>" (a subtask of its
//     Context's task) with a log "pipeline" naming its source, stages and
//     terminal ("Slice(1000) | Map | Filter | Sum"); the par calls it makes
//     are its own tasks, made on the terminal's goroutine (an indexed
//     source) or under the regions "iter.driver", "iter.source" and
//     "iter.rounds" of the goroutines a stream starts.
//
// The tool reads these back with golang.org/x/exp/trace, attaches each
// call to where it was made (the call whose piece or fork was running on
// its goroutine, the pipeline whose region or run was open there, or its
// parent task) and prints:
//
//   - per call: verb, n, where it belongs ("in": "#3" for a call made in a
//     body or fork of call #3, "#5 source" for one a pipeline made on its
//     source goroutine, "task request" for one under the program's own task
//     "request"), when it started (since the trace began), wall time (task
//     begin to end), pieces (for a fork tree: the caller's span and the
//     stolen forks; for a pipeline: those of the calls it made), stolen
//     pieces, goroutines that ran them (gs), the balance figures, and the
//     pieces' durations at the median, the 90th percentile and the
//     maximum. Then each participant's busy time and pieces, the caller
//     marked with *, or why a call ran no pieces ("inline: a nested call
//     run on its caller's goroutine", Blocking bodies, parallelism 1).
//   - per pipeline: its source, stages and terminal, and the par calls it
//     made, by the goroutine that made them.
//   - per goroutine that ran pieces (the pool's workers and the goroutines
//     that made calls): busy (time inside its outermost pieces), idle (the
//     rest of the traced span), pieces, stolen pieces, calls it began.
//   - a summary: calls per verb, pieces, the steal share, and the worst
//     imbalance and straggler, with the call they were seen in.
//
// The balance figures are those of par's Pool.Stats, over a call's
// participants (the goroutines that ran its pieces), a participant's busy
// time being the union of its pieces within the call's window:
//
//	imbalance   = max(busy) / mean(busy)    1 is perfect; the usual target is below 1.2
//	straggler   = max(busy) / median(busy)  how far the busiest lagged the typical one; below 2
//	utilization = sum(busy) / (participants × wall)
//
// A trace of many calls lists the 20 longest calls of their own (top-level
// calls, fork trees, pipelines), with the calls each pipeline made, and
// aggregates the others (their count per verb, wall times and pieces, and
// the quantiles of their balance figures). A plain nested call that ran
// inline and handed the rest of its range to a parallel call once a thief
// had emptied its worker's deque shows as two calls, the second's n what
// was left.
//
// The tool checks what the range logs say: each piece runs from the start
// of its logged range up to where the next piece of the call begins (a
// piece that splits hands off the upper part of what is left), so the
// ranges of a complete call tile its range; a call whose do not is
// reported. Calls cut by the start or end of the trace are marked ~.
//
// With -svg or -png it also draws a timeline: a band with the span of each
// call of its own (task begin to end, in up to four lanes where they
// overlap), then one row per goroutine that ran pieces, each piece a
// rectangle coloured by its call tree or pipeline (a fork tree's caller
// span and stolen forks, a pipeline's par calls, a loop's nested calls all
// in one colour), stolen pieces hatched and outlined, the pieces of calls
// nested in a body inset inside the piece that made them, a time axis
// (time since the trace began), and a legend naming the longest trees and
// pipelines ("#5 iter.Sum Slice(4000) | Map | Filter | Sum"). The SVG's
// rectangles name their call, where it was made, its range and duration on
// hover. Pieces narrower than a pixel are merged with their neighbours into
// runs of about a pixel (grey where the run mixes trees), so the picture
// stays small however long the trace.
//
// # Getting a trace
//
// From tests:
//
//	go test -run TestSomething -trace trace.out ./yourpkg
//
// From a program, around the part to look at:
//
//	f, _ := os.Create("trace.out")
//	trace.Start(f) // runtime/trace
//	... par calls ...
//	trace.Stop()
//	f.Close()
//
// or with the -trace flag of the tfidf example. Only calls that start
// while the trace is recording are tasks; tracing costs a region and a log
// per piece, so keep traces short.
//
// # Example
//
// A trace of a request's ForErr and a For in one of its regions, a For
// whose 64 bodies each make a nested For of 40, a recursion of 2^13 forks
// under one Both, an indexed pipeline and a streaming one, on a pool of two
// (the caller g7 and one worker, g8), abridged:
//
//	trace: 8.85ms traced, 73 par calls, 2 iter pipelines, 74 pieces on 3 goroutines
//
//	calls: the 6 calls of their own (top-level calls, fork trees, pipelines) and the calls each pipeline made; the 65 calls nested in them aggregated below
//	  call          verb     n            in   start    wall  pieces  stolen  gs  imbalance  straggler  util  piece p50     p90     max
//	    #1    par.ForErr  2000  task request  92.5µs   795µs      25      21   2       1.07       1.07   92%       15µs  78.1µs   760µs
//	    #3       par.For    64             -   996µs   200µs      11       4   2       1.07       1.07   86%       19µs  63.1µs    95µs
//	   #69      par.Both     2             -   1.2ms  4.94ms       3       2   2       1.00       1.00  100%     4.77ms  4.91ms  4.94ms
//	   #70      iter.Sum  4000             -  6.18ms   552µs       7       0   1       1.00       1.00   97%     33.3µs   188µs   277µs
//	   #71  par.ForRange  4000    #70 caller  6.18ms   542µs       7       0   1       1.00       1.00   99%     33.3µs   188µs   277µs
//	   #72  iter.ForEach     -             -  6.74ms  1.05ms       2       1   2       1.07       1.07   77%      808µs   853µs   864µs
//	   #73       par.For     1    #72 driver  6.82ms   963µs       0       0   0          -          -     -          -       -       -
//	   #75       par.For     2    #72 rounds  6.92ms   866µs       2       1   2       1.07       1.07   93%      808µs   853µs   864µs
//
//	busy per participant (goroutine: busy/pieces; * = the caller):
//	  #69   g7* 4.94ms/1  g8 4.92ms/2
//	  #73   its bodies ran on goroutines of their own (Blocking): the pipeline's driver
//
//	pipelines (source | stages | terminal; the par calls each made, by the goroutine that made them):
//	  #70   iter.Sum  Slice(4000) | Map | Filter | Sum, wall 552µs: #71 par.ForRange n=4000 (caller)
//	  #72   iter.ForEach  From | Map | ForEach, wall 1.05ms: #73 par.For n=1 (driver), #74 par.For n=2 (driver), #75 par.For n=2 (rounds)
//
// The fork tree #69 kept both participants busy for its whole span: the
// worker ran two stolen forks, each a subtree of about half the
// recursion. The indexed pipeline ran on the caller alone (the worker was
// busy elsewhere as it started), and 51 of the 65 calls nested in #3 (its
// 64 bodies' calls, one of which handed the rest of its range over) ran
// inline on the goroutine whose body made them.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
)

func main() {
	svgOut := flag.String("svg", "", "write the timeline as SVG to `file`")
	pngOut := flag.String("png", "", "write the timeline as PNG to `file`")
	width := flag.Int("width", 1200, "width of the timeline's time axis, in `pixels` (100 to 20000)")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: parloop-trace [-svg out.svg] [-png out.png] [-width pixels] trace.out\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 || *width < 100 || *width > 20000 {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(flag.Arg(0), *svgOut, *pngOut, *width, os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "parloop-trace: %v\n", err)
		os.Exit(1)
	}
}

// run analyses the trace in file tracePath, writes the report to out and
// the pictures asked for.
func run(tracePath, svgPath, pngPath string, width int, out io.Writer) error {
	f, err := os.Open(tracePath)
	if err != nil {
		return err
	}
	defer f.Close()
	a, err := analyze(bufio.NewReaderSize(f, 1<<20))
	if err != nil {
		return fmt.Errorf("%s: %w", tracePath, err)
	}
	if err := report(out, a); err != nil {
		return err
	}
	if svgPath == "" && pngPath == "" {
		return nil
	}
	l := newLayout(a, width)
	for _, pic := range []struct {
		path  string
		write func(io.Writer) error
	}{{svgPath, l.writeSVG}, {pngPath, l.writePNG}} {
		if pic.path == "" {
			continue
		}
		if err := writeFile(pic.path, pic.write); err != nil {
			return err
		}
	}
	return nil
}

// writeFile creates path and writes it with write.
func writeFile(path string, write func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return fmt.Errorf("%s: %w", path, err)
	}
	return f.Close()
}
