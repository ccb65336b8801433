// Parloop-trace reads an execution trace of a program that uses parloop
// and reports how each parallel call spread over the workers.
//
// Usage:
//
//	parloop-trace [-svg out.svg] [-png out.png] [-width pixels] trace.out
//
// When runtime/trace is recording as a call of package par starts, the
// call is a trace task ("par.For", "par.ReduceRange", ...; Fold runs as
// "par.ForRange") with a log of its item count n, and every piece of it is
// a region on the goroutine that ran it: "piece" on the caller's own seat,
// "stolen piece" elsewhere, with a log of the range it began with. The
// tool reads these back with golang.org/x/exp/trace and prints:
//
//   - per call: verb, n, when it started (since the trace began), wall time
//     (task begin to end), pieces, stolen pieces, goroutines that ran
//     pieces (gs), and the balance figures: imbalance, the largest busy
//     time of a participant over the mean (1 is perfect, 2 means the
//     busiest did twice the average); straggler, the slowest piece over the
//     median piece; utilization, the participants' total busy time over
//     their number times the wall time; and the pieces' durations at the
//     median, the 90th percentile and the maximum. Then the busy time and
//     pieces of each participant, the caller marked with *. A participant's
//     busy time is the sum of its pieces of the call.
//   - per goroutine that ran pieces (the pool's workers and the
//     goroutines that made calls): busy (time inside its
//     outermost pieces), idle (the rest of the traced span), pieces,
//     stolen pieces, calls it began.
//   - a summary: calls per verb, pieces, the steal share, and the worst
//     imbalance and straggler, with the call they were seen in.
//
// A trace of many calls lists the 20 longest and aggregates the others
// (their count per verb, wall times and pieces, and the quantiles of their
// balance figures). Calls that ran no pieces are those run on the caller
// alone (a pool of parallelism 1, or no seat free) and those with the
// Blocking option, whose bodies run on goroutines of their own.
//
// The tool checks what the range logs say: each piece runs from the start
// of its logged range up to where the next piece of the call begins (a
// piece that splits hands off the upper part of what is left), so the
// ranges of a complete call tile [0, n); a call whose do not is reported.
// Calls cut by the start or end of the trace are marked ~.
//
// With -svg or -png it also draws a timeline of the calls: a band with each
// call's span (task begin to end, in up to four lanes where calls overlap),
// then one row per goroutine that ran pieces, each piece a rectangle
// coloured by its call, stolen pieces hatched and outlined, the pieces of
// calls nested in a body inset inside the piece that made them, and a time
// axis (time since the trace began), and a legend of the longest calls'
// colours. The SVG's rectangles name their call, range and duration on
// hover. Pieces narrower than a pixel are merged with their neighbours into
// runs of about a pixel (grey where the run mixes calls), so the picture
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
// A trace of six par.For and six par.ReduceRange calls over 3000 uneven
// items on a pool of two (the caller g19 and one worker, g20), abridged:
//
//	trace: 18.5ms traced, 12 par calls, 149 pieces on 2 goroutines
//
//	calls:
//	  call             verb     n   start    wall  pieces  stolen  gs  imbalance  straggler  util  piece p50    p90     max
//	    #1          par.For  3000  4.77ms   893µs      22       8   2       1.12      13.41   87%     27.6µs  239µs   369µs
//	    #3          par.For  3000   6.6ms  1.52ms       9       0   1       1.00       5.83   99%     82.3µs  410µs   480µs
//	    #9  par.ReduceRange  3000  14.8ms  1.36ms      12       6   2       1.83      58.28   54%     15.5µs  355µs   903µs
//	   #12  par.ReduceRange  3000  17.5ms   679µs      19      11   2       1.03      21.43   96%     22.3µs  191µs   479µs
//
//	busy per participant (goroutine: busy/pieces; * = the caller):
//	  #1    g19* 870µs/14  g20 680µs/8
//	  #3    g19* 1.51ms/9
//	  #9    g19* 1.35ms/6  g20 128µs/6
//	  #12   g19* 668µs/8  g20 635µs/11
//
//	workers (goroutines that ran pieces; idle is the traced span less busy):
//	  goroutine    busy    idle  busy%  pieces  stolen  calls begun
//	        g19  13.1ms  5.36ms    71%      83       0           12
//	        g20  4.44ms    14ms    24%      66      66            0
//
//	summary:
//	  calls        12 (6 par.For, 6 par.ReduceRange)
//	  pieces       149, 66 stolen (steal share 44%)
//	  imbalance    worst 1.83 in call #9 (par.ReduceRange, n=3000, wall 1.36ms)
//	  straggler    worst 58.28 in call #9 (par.ReduceRange, n=3000, slowest piece 903µs, median 15.5µs)
//
// The worker took no piece of call #3, which ran on the caller alone. In
// call #9 the worker was busy for a tenth of the call's wall time, and the
// slowest piece ran 58 times as long as the median one (in these calls the
// low indices are the expensive ones, and splitting hands off upper
// halves).
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
