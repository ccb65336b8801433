package main

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"golang.org/x/exp/stats"
)

// maxListed is how many calls the report lists one by one; the others are
// aggregated.
const maxListed = 20

// report writes the text report of a.
func report(w io.Writer, a *analysis) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	pf := func(format string, args ...any) { fmt.Fprintf(tw, format, args...) }

	fmt.Fprintf(w, "trace: %s traced, %d par calls%s, %d pieces on %d goroutines\n\n",
		fmtDur(a.span()), len(a.calls)-a.countKind(pipeCall), pipelinesNote(a), a.pieces, len(a.workers))

	// Calls: all of them, or the longest maxListed in trace order.
	listed, rest := a.longest()
	if len(rest) > 0 {
		if n := len(a.roots()); n <= maxListed {
			fmt.Fprintf(w, "calls: the %d calls of their own (top-level calls, fork trees, pipelines) and the calls each pipeline made; the %d calls nested in them aggregated below\n", n, len(rest))
		} else {
			fmt.Fprintf(w, "calls: the %d longest of %d calls of their own (top-level calls, fork trees, pipelines), with the calls each pipeline made; %d more aggregated below\n",
				maxListed, n, len(rest))
		}
	} else {
		fmt.Fprintf(w, "calls:\n")
	}
	pf("call\tverb\tn\tin\tstart\twall\tpieces\tstolen\tgs\timbalance\tstraggler\tutil\tpiece p50\tp90\tmax\t\n")
	for _, c := range listed {
		in := c.where()
		if in == "" {
			in = "-"
		}
		pf("#%d\t%s\t%s\t%s\t%s\t%s\t%d\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t\n",
			c.seq, c.verb, fmtN(c), in, fmtDur(c.begin.Sub(a.start)), fmtDur(c.wall)+cutMark(c),
			c.pieceCount(), c.stolen, len(c.participants),
			fmtRatio(c.imbalance), fmtRatio(c.straggler), fmtPct(c.utilization, len(c.participants) > 0),
			fmtQ(c, 1), fmtQ(c, 2), fmtQ(c, 3))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	// Busy per participant of each listed call.
	fmt.Fprintf(w, "\nbusy per participant (goroutine: busy/pieces; * = the caller):\n")
	for _, c := range listed {
		var b strings.Builder
		for i, pt := range c.participants {
			if i > 0 {
				b.WriteString("  ")
			}
			star := ""
			if pt.g == c.caller && c.hasBegin {
				star = "*"
			}
			fmt.Fprintf(&b, "g%d%s %s/%d", pt.g, star, fmtDur(pt.busy), pt.pieces)
		}
		if len(c.participants) == 0 {
			b.WriteString(c.noPieces())
		}
		fmt.Fprintf(w, "  #%-4d %s\n", c.seq, b.String())
	}
	if len(rest) > 0 {
		fmt.Fprintf(w, "\n")
		if err := reportRest(w, rest); err != nil {
			return err
		}
	}
	reportPipelines(w, a)

	// Workers.
	fmt.Fprintf(w, "\nworkers (goroutines that ran pieces; idle is the traced span less busy):\n")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	pf = func(format string, args ...any) { fmt.Fprintf(tw, format, args...) }
	pf("goroutine\tbusy\tidle\tbusy%%\tpieces\tstolen\tcalls begun\t\n")
	for _, wk := range a.workers {
		pf("g%d\t%s\t%s\t%s\t%d\t%d\t%d\t\n", wk.g, fmtDur(wk.busy), fmtDur(wk.idle),
			fmtPct(float64(wk.busy)/float64(a.span()), a.span() > 0), wk.pieces, wk.stolen, wk.calls)
	}
	if err := tw.Flush(); err != nil {
		return err
	}

	// Summary.
	fmt.Fprintf(w, "\nsummary:\n")
	fmt.Fprintf(w, "  calls        %d%s\n", len(a.calls), verbCounts(a.calls))
	fmt.Fprintf(w, "  pieces       %d, %d stolen (steal share %s)\n", a.pieces, a.stolen, fmtPct(float64(a.stolen)/float64(a.pieces), a.pieces > 0))
	if c := worst(a.calls, func(c *call) float64 { return c.imbalance }); c != nil {
		fmt.Fprintf(w, "  imbalance    worst %s in call #%d (%s, n=%s, wall %s)\n", fmtRatio(c.imbalance), c.seq, c.verb, fmtN(c), fmtDur(c.wall))
	}
	if c := worst(a.calls, func(c *call) float64 { return c.straggler }); c != nil {
		fmt.Fprintf(w, "  straggler    worst %s in call #%d (%s, n=%s, busiest participant %s, median %s)\n",
			fmtRatio(c.straggler), c.seq, c.verb, fmtN(c), fmtDur(maxBusy(c)), fmtDur(medianBusy(c)))
	}
	if a.incomplete > 0 {
		fmt.Fprintf(w, "  cut          %s by the trace's start or end (marked ~)\n", plural(a.incomplete, "call"))
	}
	if a.orphans > 0 {
		fmt.Fprintf(w, "  orphans      %s of no par call\n", plural(a.orphans, "piece region"))
	}
	if a.untiled > 0 {
		for _, c := range a.calls {
			if c.tileErr != nil && len(c.pieces) > 0 {
				fmt.Fprintf(w, "  untiled      call #%d: the pieces' ranges do not tile [0, n): %v\n", c.seq, c.tileErr)
				break
			}
		}
		fmt.Fprintf(w, "  untiled      %s in all\n", plural(a.untiled, "call"))
	}
	if a.unranged > 0 {
		fmt.Fprintf(w, "  unranged     %s with no range log\n", plural(a.unranged, "piece"))
	}
	return nil
}

// longest splits the calls into those listed one by one, in trace order,
// and the rest: the maxListed longest calls of their own (top-level calls,
// fork trees, pipelines) with the calls each listed pipeline made, and
// every call if there are no more than maxListed in all.
func (a *analysis) longest() (listed, rest []*call) {
	if len(a.calls) <= maxListed {
		return a.calls, nil
	}
	in := map[*call]bool{}
	for _, r := range a.longestRoots() {
		in[r] = true
		if r.kind == pipeCall {
			for _, ch := range r.children {
				in[ch] = true
			}
		}
	}
	for _, c := range a.calls {
		if in[c] {
			listed = append(listed, c)
		} else {
			rest = append(rest, c)
		}
	}
	return listed, rest
}

// reportRest aggregates the calls not listed.
func reportRest(w io.Writer, rest []*call) error {
	walls := make([]float64, len(rest))
	var pieces, stolen int
	var total time.Duration
	for i, c := range rest {
		walls[i] = float64(c.wall)
		pieces += len(c.pieces)
		stolen += c.stolen
		total += c.wall
	}
	q := stats.Quantiles(walls, 0, 0.5, 0.9, 1)
	fmt.Fprintf(w, "the other %d calls:%s\n", len(rest), verbCounts(rest))
	fmt.Fprintf(w, "  wall   total %s, min %s, p50 %s, p90 %s, max %s\n", fmtDur(total),
		fmtDur(time.Duration(q[0])), fmtDur(time.Duration(q[1])), fmtDur(time.Duration(q[2])), fmtDur(time.Duration(q[3])))
	fmt.Fprintf(w, "  pieces %d, %d stolen; %.1f pieces per call\n", pieces, stolen, float64(pieces)/float64(len(rest)))
	var imb, strag, util []float64
	for _, c := range rest {
		if len(c.participants) > 0 {
			imb = append(imb, c.imbalance)
			strag = append(strag, c.straggler)
			util = append(util, c.utilization)
		}
	}
	if len(imb) > 0 {
		qi, qs, qu := stats.Quantiles(imb, 0.5, 0.9), stats.Quantiles(strag, 0.5, 0.9), stats.Quantiles(util, 0.5, 0.1)
		fmt.Fprintf(w, "  imbalance p50 %s p90 %s; straggler p50 %s p90 %s; utilization p50 %s p10 %s\n",
			fmtRatio(qi[0]), fmtRatio(qi[1]), fmtRatio(qs[0]), fmtRatio(qs[1]), fmtPct(qu[0], true), fmtPct(qu[1], true))
	}
	return nil
}

// worst returns the call with the largest figure f, or nil.
func worst(calls []*call, f func(*call) float64) *call {
	var w *call
	for _, c := range calls {
		if len(c.participants) > 0 && (w == nil || f(c) > f(w)) {
			w = c
		}
	}
	return w
}

// verbCounts is " (12 par.For, 3 par.Map)" in decreasing count.
func verbCounts(calls []*call) string {
	counts := map[string]int{}
	for _, c := range calls {
		counts[c.verb]++
	}
	verbs := make([]string, 0, len(counts))
	for v := range counts {
		verbs = append(verbs, v)
	}
	slices.SortFunc(verbs, func(a, b string) int { return cmp.Or(cmp.Compare(counts[b], counts[a]), cmp.Compare(a, b)) })
	parts := make([]string, len(verbs))
	for i, v := range verbs {
		parts[i] = fmt.Sprintf("%d %s", counts[v], v)
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

func fmtN(c *call) string {
	if !c.hasN && c.kind == pipeCall {
		return "-" // a stream
	}
	if !c.hasN {
		return "?"
	}
	return fmt.Sprint(c.n)
}

func cutMark(c *call) string {
	if !c.hasBegin || !c.hasEnd {
		return "~"
	}
	return ""
}

// fmtQ formats the piece duration at quantile index i of pieceQ.
func fmtQ(c *call, i int) string {
	if len(c.pieceQ) == 0 {
		return "-"
	}
	return fmtDur(time.Duration(c.pieceQ[i]))
}

func fmtRatio(x float64) string {
	if x == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", x)
}

func fmtPct(x float64, ok bool) string {
	if !ok {
		return "-"
	}
	return fmt.Sprintf("%.0f%%", 100*x)
}

// fmtDur formats d with three significant digits.
func fmtDur(d time.Duration) string {
	switch a := d.Abs(); {
	case a >= time.Second:
		return trim(fmt.Sprintf("%.3g", d.Seconds())) + "s"
	case a >= time.Millisecond:
		return trim(fmt.Sprintf("%.3g", float64(d)/1e6)) + "ms"
	case a >= time.Microsecond:
		return trim(fmt.Sprintf("%.3g", float64(d)/1e3)) + "µs"
	default:
		return fmt.Sprintf("%dns", d)
	}
}

// trim turns the exponent form that %.3g gives from 999.5 up ("1e+03")
// into a plain number.
func trim(s string) string {
	if strings.ContainsRune(s, 'e') {
		var f float64
		fmt.Sscan(s, &f)
		return fmt.Sprintf("%.0f", f)
	}
	return s
}

// plural is "1 call" or "2 calls".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// countKind is the number of calls of kind k.
func (a *analysis) countKind(k int) int {
	n := 0
	for _, c := range a.calls {
		if c.kind == k {
			n++
		}
	}
	return n
}

// pipelinesNote is ", 2 iter pipelines" or "".
func pipelinesNote(a *analysis) string {
	if n := a.countKind(pipeCall); n > 0 {
		return ", " + plural(n, "iter pipeline")
	}
	return ""
}

// reportPipelines lists each pipeline with its source, stages and
// terminal, and the par calls it made, by the goroutine that made them.
func reportPipelines(w io.Writer, a *analysis) {
	first := true
	for _, c := range a.calls {
		if c.kind != pipeCall {
			continue
		}
		if first {
			fmt.Fprintf(w, "\npipelines (source | stages | terminal; the par calls each made, by the goroutine that made them):\n")
			first = false
		}
		desc := c.pipeline
		if desc == "" {
			desc = "?"
		}
		fmt.Fprintf(w, "  #%-4d %s  %s, wall %s", c.seq, c.verb, desc, fmtDur(c.wall))
		var parts []string
		for _, ch := range c.children {
			role := strings.TrimPrefix(ch.role, iterPrefix)
			if role == "" {
				role = "nested"
			}
			parts = append(parts, fmt.Sprintf("#%d %s n=%s (%s)", ch.seq, ch.verb, fmtN(ch), role))
		}
		if len(parts) > 0 {
			fmt.Fprintf(w, ": %s", strings.Join(parts, ", "))
		}
		fmt.Fprintln(w)
	}
}

// maxBusy and medianBusy are the busiest participant's busy time and the
// median's, the straggler ratio's terms.
func maxBusy(c *call) time.Duration {
	var m time.Duration
	for _, p := range c.participants {
		m = max(m, p.busy)
	}
	return m
}

func medianBusy(c *call) time.Duration {
	b := make([]float64, len(c.participants))
	for i, p := range c.participants {
		b[i] = float64(p.busy)
	}
	if len(b) == 0 {
		return 0
	}
	return time.Duration(stats.Median(b))
}
