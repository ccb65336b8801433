package main

import (
	"bytes"
	"context"
	"runtime/trace"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/parloop/parloop/iter"
	"github.com/parloop/parloop/par"
)

// A program mixing loops, forks and pipelines, as the README's timeline is
// meant for: a request's ForErr under the request's own trace task, a For
// whose bodies make nested calls, a recursion of forks with Join, an
// indexed pipeline and a streaming one.

type tree struct {
	val         int
	left, right *tree
}

func buildTree(depth int) *tree {
	if depth == 0 {
		return nil
	}
	return &tree{val: depth, left: buildTree(depth - 1), right: buildTree(depth - 1)}
}

// sumTree forks at every node: a call tree of 2^depth forks.
func sumTree(t *tree) int {
	if t == nil {
		return 0
	}
	var l, r int
	par.Join(func() { l = sumTree(t.left) }, func() { r = sumTree(t.right) })
	return l + r + spin(200)&1 + t.val
}

const (
	treeDepth  = 13
	pipeN      = 4000
	nestOuter  = 64
	nestInner  = 40
	requestN   = 2000
	streamN    = 3000
	streamName = "From | Map | ForEach"
)

var mixedTrace = sync.OnceValues(func() ([]byte, error) {
	p := par.NewPool(par.Workers(2))
	defer p.Close()
	par.For(100, func(int) {}, par.On(p)) // start the workers before tracing
	root := buildTree(treeDepth)
	xs := make([]int, pipeN)
	for i := range xs {
		xs[i] = i
	}
	var buf bytes.Buffer
	if err := trace.Start(&buf); err != nil {
		return nil, err
	}
	// A request: its task holds ForErr's task, and a For made in one of
	// its regions.
	ctx, task := trace.NewTask(context.Background(), "request")
	_ = par.ForErr(ctx, requestN, func(context.Context, int) error {
		sinkAdd(spin(300))
		return nil
	}, par.On(p))
	trace.WithRegion(ctx, "phase", func() {
		par.For(requestN, func(i int) { sinkAdd(spin(100)) }, par.On(p))
	})
	task.End()
	// Nested calls in a loop's bodies.
	par.For(nestOuter, func(i int) {
		par.For(nestInner, func(j int) { sinkAdd(spin(50 + i)) })
	}, par.On(p))
	// A call tree of forks.
	l, r := par.Both(func() int { return sumTree(root.left) }, func() int { return sumTree(root.right) }, par.On(p))
	sinkAdd(l + r)
	// An indexed pipeline and a streaming one.
	sq := iter.Map(iter.Slice(xs, iter.On(p)), func(x int) int { return spin(100+x%50) & 0xff })
	s, err := iter.Sum(sq.Filter(func(v int) bool { return v%2 == 0 }))
	if err != nil {
		trace.Stop()
		return nil, err
	}
	sinkAdd(s)
	seq := func(yield func(int) bool) {
		for i := range streamN {
			if !yield(i) {
				return
			}
		}
	}
	err = iter.Map(iter.From(seq, iter.On(p)), func(x int) int { return spin(200 + x%100) }).ForEach(sinkAdd)
	trace.Stop()
	return buf.Bytes(), err
})

func mixedAnalysis(t *testing.T) *analysis { return analyzeRecorded(t, mixedTrace) }

// Catches: forks not traced or traced per fork rather than per call tree,
// pipelines or their stages not named, their par calls not found from
// them, nested calls not attached to the call that made them, calls not
// found under the request's own task, and the balance figures off
// Pool.Stats' definitions.
func TestMixedAnalysis(t *testing.T) {
	a := mixedAnalysis(t)
	byVerb := map[string][]*call{}
	for _, c := range a.calls {
		byVerb[c.verb] = append(byVerb[c.verb], c)
	}
	// One task for the whole recursion of 2^13 forks.
	if n := len(byVerb["par.Both"]) + len(byVerb["par.Join"]); n != 1 || len(byVerb["par.Both"]) != 1 {
		t.Fatalf("fork tasks: %d par.Both, %d par.Join; want the one par.Both whose tree holds every Join", len(byVerb["par.Both"]), len(byVerb["par.Join"]))
	}
	fork := byVerb["par.Both"][0]
	if fork.kind != forkCall || fork.n != 2 || fork.parent != nil || len(fork.participants) == 0 {
		t.Errorf("the fork tree: kind %d, n %d, parent %v, %d participants", fork.kind, fork.n, fork.parent, len(fork.participants))
	}
	callerSeen := false
	for _, pc := range fork.pieces {
		if !pc.fork {
			t.Errorf("the fork tree has a piece that is not a fork's")
		}
		if pc.g == fork.caller && !pc.stolen {
			callerSeen = true
		}
		if pc.stolen && pc.g == fork.caller && pc.depth == 0 {
			t.Errorf("a stolen fork on the caller outside its span")
		}
	}
	if !callerSeen {
		t.Errorf("the fork tree has no span on its caller")
	}
	if fork.stolen == 0 {
		t.Logf("no fork was stolen (the machine may have had one free CPU)")
	}

	// Pipelines: named, their par calls found.
	sums, each := byVerb["iter.Sum"], byVerb["iter.ForEach"]
	if len(sums) != 1 || len(each) != 1 {
		t.Fatalf("pipelines: %d iter.Sum, %d iter.ForEach; want one each (verbs %v)", len(sums), len(each), verbCounts(a.calls))
	}
	if want := "Slice(4000) | Map | Filter | Sum"; sums[0].pipeline != want || sums[0].n != pipeN {
		t.Errorf("the indexed pipeline: %q n=%d; want %q n=%d", sums[0].pipeline, sums[0].n, want, pipeN)
	}
	if each[0].pipeline != streamName {
		t.Errorf("the streaming pipeline: %q; want %q", each[0].pipeline, streamName)
	}
	if len(sums[0].children) != 1 || sums[0].children[0].role != "caller" || sums[0].pieceCount() == 0 {
		t.Errorf("the indexed pipeline's par calls: %v", describe(sums[0].children))
	}
	roles := map[string]int{}
	for _, ch := range each[0].children {
		roles[ch.role]++
	}
	if roles["iter.driver"] == 0 || roles["iter.rounds"] == 0 || each[0].pieceCount() == 0 {
		t.Errorf("the streaming pipeline's par calls: %v; want the driver's and the rounds' (the runners' pieces)", describe(each[0].children))
	}

	// The request's calls.
	var inRequest []string
	for _, c := range a.calls {
		if c.userTask == "request" {
			inRequest = append(inRequest, c.verb)
		}
	}
	slices.Sort(inRequest)
	if !slices.Equal(inRequest, []string{"par.For", "par.ForErr"}) {
		t.Errorf("calls under the request's task: %v; want par.For (in its region) and par.ForErr (with its context)", inRequest)
	}

	// Nested calls: each attached to the loop whose body made it.
	var outer *call
	for _, c := range byVerb["par.For"] {
		if c.n == nestOuter {
			outer = c
		}
	}
	if outer == nil {
		t.Fatalf("no par.For n=%d", nestOuter)
	}
	// A nested call that ran inline and handed the rest of its range to a
	// parallel call once a thief had emptied the deque is two tasks: the
	// inline one (n=40) and the rest (its n what was left).
	nested, inline := 0, 0
	for _, c := range byVerb["par.For"] {
		if c.n > nestInner || c.root().kind == pipeCall {
			continue
		}
		nested++
		if c.parent != outer || !c.inPiece {
			t.Errorf("a nested call #%d: parent %v, in a piece %v; want #%d", c.seq, c.parent, c.inPiece, outer.seq)
		}
		if len(c.pieces) == 0 {
			inline++
			if !strings.HasPrefix(c.noPieces(), "inline") {
				t.Errorf("an inline nested call is labelled %q", c.noPieces())
			}
		}
	}
	if nested < nestOuter || nested > 2*nestOuter {
		t.Errorf("%d nested calls; want %d, and one more for each hand-over", nested, nestOuter)
	}
	t.Logf("%d of %d nested calls ran inline", inline, nested)

	// Every call's figures are Pool.Stats' figures over its participants.
	for _, c := range a.calls {
		if len(c.participants) == 0 {
			continue
		}
		busy := make([]float64, len(c.participants))
		for i, p := range c.participants {
			busy[i] = float64(p.busy)
			if p.busy > c.wall {
				t.Errorf("call #%d: g%d busy %v > wall %v", c.seq, p.g, p.busy, c.wall)
			}
		}
		mx := slices.Max(busy)
		med := medianBusy(c)
		if c.straggler < 1 || (med > 0 && !near(c.straggler, mx/float64(med))) {
			t.Errorf("call #%d: straggler %v; want max/median busy = %v", c.seq, c.straggler, mx/float64(med))
		}
		if c.imbalance < 1 || c.imbalance > float64(len(busy))+1e-9 {
			t.Errorf("call #%d: imbalance %v outside [1, %d]", c.seq, c.imbalance, len(busy))
		}
	}
	if a.orphans != 0 || a.unranged != 0 || a.untiled != 0 || a.incomplete != 0 {
		t.Errorf("orphans %d, unranged %d, untiled %d, cut %d; want none", a.orphans, a.unranged, a.untiled, a.incomplete)
	}
}

func near(a, b float64) bool { return a-b < 1e-4*b && b-a < 1e-4*b }

func describe(cs []*call) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.verb+" n="+fmtN(c)+" role="+c.role)
	}
	return out
}

// Catches: a report that does not name the pipelines and their stages,
// labels an inline call as an error, or leaves out the fork tree; a
// timeline that draws calls nested in a tree as trees of their own, leaves
// a goroutine's row or the fork tree out, or does not name the pipelines
// in its legend.
func TestMixedTimeline(t *testing.T) {
	a := mixedAnalysis(t)
	var out bytes.Buffer
	if err := report(&out, a); err != nil {
		t.Fatal(err)
	}
	rep := out.String()
	for _, want := range []string{
		"pipelines (", "iter.Sum  Slice(4000) | Map | Filter | Sum", "iter.ForEach  " + streamName,
		"par.Both", "task request", "straggler    worst",
	} {
		if !strings.Contains(rep, want) {
			t.Errorf("the report has no %q:\n%s", want, rep)
		}
	}
	if strings.Contains(rep, "no pieces (run on the caller alone") {
		t.Errorf("the report labels calls with the old error-like text:\n%s", rep)
	}
	t.Logf("report:\n%s", rep)

	l := newLayout(a, 1000)
	var svg bytes.Buffer
	if err := l.writeSVG(&svg); err != nil {
		t.Fatal(err)
	}
	sv := parseSVG(t, svg.Bytes())
	rows, callRects, legend, titles := sv.rows, sv.callRects, sv.legend, sv.titles
	roots := a.roots()
	if callRects != len(roots) {
		t.Errorf("the calls band has %d rectangles; want one per call tree or pipeline, %d (of %d calls)", callRects, len(roots), len(a.calls))
	}
	if len(rows) != len(a.workers) || len(rows) < 2 {
		t.Errorf("%d rows; want one per goroutine that ran pieces, %d", len(rows), len(a.workers))
	}
	legendText := strings.Join(legend, "\n")
	for _, want := range []string{"iter.Sum Slice(4000) | Map | Filter | Sum", "iter.ForEach " + streamName, "par.Both n=2", "par.ForErr n=2000"} {
		if !strings.Contains(legendText, want) {
			t.Errorf("the legend has no %q:\n%s", want, legendText)
		}
	}
	rowText := strings.Join(titles, "\n")
	for _, want := range []string{"par.Both", "(in #"} {
		if !strings.Contains(rowText, want) {
			t.Errorf("no piece's tooltip has %q", want)
		}
	}
}
