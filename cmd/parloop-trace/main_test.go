package main

import (
	"bytes"
	"encoding/xml"
	"errors"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/trace"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/parloop/parloop/par"
	"go.uber.org/goleak"
	xtrace "golang.org/x/exp/trace"
)

// The tests start goroutines through par (a pool's workers) and
// runtime/trace; each pool is closed, and nothing may be left.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// spin burns about n small steps of CPU.
func spin(n int) int {
	x := 1
	for i := range n {
		x = x*31 + i
	}
	return x
}

var sink struct {
	sync.Mutex
	v int
}

// sinkAdd keeps v alive, rarely taking the lock.
func sinkAdd(v int) {
	if v == 42 {
		sink.Lock()
		sink.v += v
		sink.Unlock()
	}
}

const (
	forCalls    = 6
	reduceCalls = 6
	callN       = 3000
)

// traced records a trace of forCalls par.For and reduceCalls
// par.ReduceRange calls on a pool of 2 workers, with bodies whose cost
// grows with the index so that the pieces are uneven and work is stolen.
var traced = sync.OnceValues(func() ([]byte, error) {
	p := par.NewPool(par.Workers(2))
	defer p.Close()
	par.For(100, func(int) {}, par.On(p)) // start the workers before tracing
	var buf bytes.Buffer
	if err := trace.Start(&buf); err != nil {
		return nil, err
	}
	for range forCalls {
		par.For(callN, func(i int) {
			sinkAdd(spin(20 + i/4))
		}, par.On(p))
	}
	for range reduceCalls {
		par.ReduceRange(callN, 0, func(lo, hi int) int {
			s := 0
			for i := lo; i < hi; i++ {
				s += spin(20+(callN-i)/4) & 1
			}
			return s
		}, func(a, b int) int { return a + b }, par.On(p))
	}
	trace.Stop()
	return buf.Bytes(), nil
})

func analyzed(t *testing.T) *analysis { return analyzeRecorded(t, traced) }

// analyzeRecorded analyzes the trace that record records.
func analyzeRecorded(t *testing.T, record func() ([]byte, error)) *analysis {
	t.Helper()
	b, err := record()
	if err != nil {
		t.Fatalf("recording the trace: %v", err)
	}
	a, err := analyze(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("analyze: %v", err)
	}
	return a
}

// Catches: calls missed or misnamed, pieces not accounted to their call or
// goroutine, "range" logs attached to the wrong piece (the ranges would not
// tile [0, n)), and balance figures outside their bounds.
func TestAnalysis(t *testing.T) {
	a := analyzed(t)
	verbs := map[string]int{}
	for _, c := range a.calls {
		verbs[c.verb]++
	}
	if len(a.calls) != forCalls+reduceCalls || verbs["par.For"] != forCalls || verbs["par.ReduceRange"] != reduceCalls {
		t.Fatalf("calls: %d, verbs %v; want %d par.For and %d par.ReduceRange", len(a.calls), verbs, forCalls, reduceCalls)
	}
	// Every piece region in the trace is accounted to a call.
	b, _ := traced()
	r, err := xtrace.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	regions := 0
	for {
		ev, err := r.ReadEvent()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if ev.Kind() == xtrace.EventRegionBegin && strings.HasSuffix(ev.Region().Type, "piece") {
			regions++
		}
	}
	if regions == 0 || a.pieces != regions {
		t.Errorf("%d pieces accounted to calls; the trace has %d piece regions", a.pieces, regions)
	}
	if a.orphans != 0 || a.unranged != 0 || a.incomplete != 0 || a.untiled != 0 {
		t.Errorf("orphan pieces %d, pieces without a range %d, cut calls %d, untiled calls %d; want none", a.orphans, a.unranged, a.incomplete, a.untiled)
	}
	pieces, stolen := 0, 0
	for _, c := range a.calls {
		if !c.hasN || c.n != callN {
			t.Errorf("call #%d: n = %d (logged %v); want %d", c.seq, c.n, c.hasN, callN)
		}
		if len(c.pieces) == 0 {
			t.Errorf("call #%d %s: no pieces", c.seq, c.verb)
			continue
		}
		// The pieces' ranges tile [0, n) exactly: each index ran once.
		if c.tileErr != nil {
			t.Errorf("call #%d: %v", c.seq, c.tileErr)
		}
		ran := make([]int, c.n)
		for _, p := range c.pieces {
			if p.call != c {
				t.Errorf("call #%d holds a piece of call #%d", c.seq, p.call.seq)
			}
			if p.lo >= p.ranTo || p.ranTo > p.hi || p.hi > c.n {
				t.Errorf("call #%d: piece logged [%d, %d) ran to %d", c.seq, p.lo, p.hi, p.ranTo)
				continue
			}
			for i := p.lo; i < p.ranTo; i++ {
				ran[i]++
			}
		}
		if i := slices.IndexFunc(ran, func(k int) bool { return k != 1 }); i >= 0 {
			t.Errorf("call #%d: index %d ran %d times", c.seq, i, ran[i])
		}
		// Figures.
		sum := 0
		for _, pt := range c.participants {
			if pt.busy < 0 || pt.busy > c.wall {
				t.Errorf("call #%d: g%d busy %v, wall %v; want 0 <= busy <= wall", c.seq, pt.g, pt.busy, c.wall)
			}
			sum += pt.pieces
		}
		if sum != len(c.pieces) {
			t.Errorf("call #%d: participants ran %d pieces; the call has %d", c.seq, sum, len(c.pieces))
		}
		if len(c.participants) > 3 {
			t.Errorf("call #%d: %d participants on a pool of 2 and one caller", c.seq, len(c.participants))
		}
		if c.imbalance < 1 || c.imbalance > float64(len(c.participants))+1e-9 {
			t.Errorf("call #%d: imbalance %v; want in [1, %d]", c.seq, c.imbalance, len(c.participants))
		}
		if c.straggler < 1 {
			t.Errorf("call #%d: straggler %v; want >= 1", c.seq, c.straggler)
		}
		if c.utilization <= 0 || c.utilization > 1 {
			t.Errorf("call #%d: utilization %v; want in (0, 1]", c.seq, c.utilization)
		}
		pieces += len(c.pieces)
		stolen += c.stolen
	}
	// Every piece is on a worker row, and the workers' counts add up.
	wp, ws := 0, 0
	for _, w := range a.workers {
		if w.busy > a.span() || w.busy+w.idle != a.span() {
			t.Errorf("g%d: busy %v + idle %v != span %v", w.g, w.busy, w.idle, a.span())
		}
		wp += w.pieces
		ws += w.stolen
	}
	if wp != pieces || ws != stolen || a.pieces != pieces || a.stolen != stolen {
		t.Errorf("pieces: workers %d (%d stolen), calls %d (%d stolen), total %d (%d stolen)", wp, ws, pieces, stolen, a.pieces, a.stolen)
	}
	if stolen == 0 {
		t.Logf("no piece was stolen (the machine may have had one free CPU)")
	}
}

// Catches: a report that fails, leaves out a section, or lists more calls
// than maxListed.
func TestReport(t *testing.T) {
	a := analyzed(t)
	var out bytes.Buffer
	if err := report(&out, a); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	for _, want := range []string{"calls:", "busy per participant", "workers", "summary:", "steal share", "imbalance    worst", "straggler    worst"} {
		if !strings.Contains(s, want) {
			t.Errorf("report has no %q:\n%s", want, s)
		}
	}
	// Many calls: maxListed listed, the rest aggregated.
	many := *a
	many.calls = nil
	for i := range 3 {
		for _, c := range a.calls {
			cc := *c
			cc.seq = i*len(a.calls) + c.seq
			many.calls = append(many.calls, &cc)
		}
	}
	out.Reset()
	if err := report(&out, &many); err != nil {
		t.Fatal(err)
	}
	s = out.String()
	if !strings.Contains(s, "the 20 longest of 36") || !strings.Contains(s, "the other 16 calls") {
		t.Errorf("a report of 36 calls does not aggregate all but 20:\n%s", s)
	}
	listed := 0
	for _, line := range strings.Split(s, "\n") {
		if f := strings.Fields(line); len(f) > 1 && strings.HasPrefix(f[0], "#") && strings.HasPrefix(f[1], "par.") {
			listed++
		}
	}
	if listed != maxListed {
		t.Errorf("%d calls listed; want %d", listed, maxListed)
	}
}

// Catches: SVG that is not well-formed XML, a row missing or extra, and a
// PNG that does not decode or has the wrong size.
func TestPictures(t *testing.T) {
	a := analyzed(t)
	l := newLayout(a, 800)
	var svg bytes.Buffer
	if err := l.writeSVG(&svg); err != nil {
		t.Fatal(err)
	}
	sv := parseSVG(t, svg.Bytes())
	rows, rects, callRects := sv.rows, sv.rects, sv.callRects
	if len(rows) != len(a.workers) {
		t.Errorf("the SVG has %d rows; want one per goroutine that ran pieces, %d", len(rows), len(a.workers))
	}
	if rects < len(a.workers)+a.pieces/10 {
		t.Errorf("the SVG has %d rectangles for %d pieces", rects, a.pieces)
	}
	if callRects != len(a.roots()) || len(a.roots()) != len(a.calls) {
		t.Errorf("the SVG's calls band has %d rectangles; want one per call, %d", callRects, len(a.calls))
	}
	var pic bytes.Buffer
	if err := l.writePNG(&pic); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&pic)
	if err != nil {
		t.Fatalf("the PNG does not decode: %v", err)
	}
	if b := img.Bounds(); b.Dx() != l.width || b.Dy() != l.height {
		t.Errorf("PNG %v; want %dx%d", b, l.width, l.height)
	}
}

// Catches: sub-pixel pieces drawn one by one (a picture as large as the
// trace) or merged across calls without saying so.
func TestMergeNarrowPieces(t *testing.T) {
	c1 := &call{seq: 1, verb: "par.For", hasBegin: true, hasEnd: true, begin: 0, end: 1_000_000}
	c2 := &call{seq: 2, verb: "par.For", hasBegin: true, hasEnd: true, begin: 1_000_000, end: 2_000_000}
	a := &analysis{start: 0, end: 2_000_000, calls: []*call{c1, c2}, workers: []*worker{{g: 7}}}
	for i := range 14000 { // 100 ns pieces: 1000 a pixel at 200 px
		c := c1
		if i >= 10000 {
			c = c2
		}
		p := &piece{call: c, g: 7, start: 100 * xtrace.Time(i), end: 100*xtrace.Time(i) + 100, stolen: i%2 == 0}
		c.pieces = append(c.pieces, p)
	}
	c2.pieces = append(c2.pieces, &piece{call: c2, g: 7, start: 1_500_000, end: 1_900_000})
	l := newLayout(a, 200)
	rs := l.rects[0]
	if len(rs) > 2*200+2 {
		t.Errorf("%d rectangles for 200 pixels", len(rs))
	}
	n := 0
	for _, r := range rs {
		n += r.pieces
	}
	if n != 14001 {
		t.Errorf("rectangles hold %d pieces; want 14001", n)
	}
	last := rs[len(rs)-1]
	if last.pieces != 1 || last.call != c2 || last.x1-last.x0 < 30 {
		t.Errorf("the wide piece was merged: %+v", last)
	}
}

// Catches: the command line not writing its pictures or its report.
func TestRun(t *testing.T) {
	b, err := traced()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	in := filepath.Join(dir, "trace.out")
	if err := os.WriteFile(in, b, 0o666); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	svg, pic := filepath.Join(dir, "t.svg"), filepath.Join(dir, "t.png")
	start := time.Now()
	if err := run(in, svg, pic, 1000, &out); err != nil {
		t.Fatal(err)
	}
	t.Logf("run took %v; report:\n%s", time.Since(start), out.String())
	for _, f := range []string{svg, pic} {
		if st, err := os.Stat(f); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	if err := run(filepath.Join(dir, "missing"), "", "", 1000, io.Discard); err == nil {
		t.Errorf("run on a missing file succeeded")
	}
	if err := os.WriteFile(in, []byte("not a trace"), 0o666); err != nil {
		t.Fatal(err)
	}
	if err := run(in, "", "", 1000, io.Discard); err == nil {
		t.Errorf("run on a file that is not a trace succeeded")
	}
}

// Catches: a call still running when the trace stops lost, not marked, or
// its open pieces dropped; a call begun before the trace (par makes it no
// task, so it must not appear) reported.
func TestCallsCutByTheTrace(t *testing.T) {
	p := par.NewPool(par.Workers(2))
	defer p.Close()
	before, after := make(chan struct{}), make(chan struct{})
	var startedBefore, startedAfter atomic.Int32
	var wg sync.WaitGroup
	wg.Go(func() { par.For(4, func(int) { startedBefore.Add(1); <-before }, par.On(p)) })
	for startedBefore.Load() == 0 {
		runtime.Gosched()
	}
	var buf bytes.Buffer
	if err := trace.Start(&buf); err != nil {
		close(before)
		wg.Wait()
		t.Fatal(err)
	}
	close(before)
	wg.Wait()
	par.For(1000, func(i int) { sinkAdd(spin(100)) }, par.On(p))
	wg.Go(func() { par.For(4, func(int) { startedAfter.Add(1); <-after }, par.On(p)) })
	for startedAfter.Load() == 0 {
		runtime.Gosched()
	}
	trace.Stop()
	close(after)
	wg.Wait()

	a, err := analyze(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.calls) != 2 {
		t.Fatalf("%d calls; want 2 (the one begun before the trace is no task)", len(a.calls))
	}
	done, cut := a.calls[0], a.calls[1]
	if done.n != 1000 || !done.hasEnd || done.tileErr != nil {
		t.Errorf("the whole call: n %d, ended %v, tiling %v", done.n, done.hasEnd, done.tileErr)
	}
	if cut.n != 4 || cut.hasEnd || cut.verb != "par.For" || a.incomplete != 1 {
		t.Errorf("the cut call: n %d, ended %v, verb %q; %d cut calls; want 4, false, par.For, 1", cut.n, cut.hasEnd, cut.verb, a.incomplete)
	}
	open := 0
	for _, p := range cut.pieces {
		if p.noEnd {
			open++
			if p.end != a.end {
				t.Errorf("an open piece ends at %v; want the trace's end %v", p.end, a.end)
			}
		}
	}
	if open == 0 {
		t.Errorf("the cut call has no open piece: %d pieces", len(cut.pieces))
	}
	var out bytes.Buffer
	if err := report(&out, a); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "~") || !strings.Contains(out.String(), "cut          1 call by") {
		t.Errorf("the report does not mark the cut call:\n%s", out.String())
	}
}

// Catches: a trace with no par call making the report or the pictures
// fail (a division by zero, an empty axis).
func TestNoCalls(t *testing.T) {
	var buf bytes.Buffer
	if err := trace.Start(&buf); err != nil {
		t.Fatal(err)
	}
	sinkAdd(spin(1000))
	trace.Stop()
	a, err := analyze(&buf)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := report(&out, a); err != nil {
		t.Fatal(err)
	}
	if len(a.calls) != 0 || !strings.Contains(out.String(), "0 par calls") {
		t.Errorf("%d calls; report:\n%s", len(a.calls), out.String())
	}
	l := newLayout(a, 300)
	var svg, pic bytes.Buffer
	if err := l.writeSVG(&svg); err != nil {
		t.Fatal(err)
	}
	if err := xml.Unmarshal(svg.Bytes(), new(struct{})); err != nil {
		t.Errorf("the SVG is not XML: %v", err)
	}
	if err := l.writePNG(&pic); err != nil {
		t.Fatal(err)
	}
	if _, err := png.Decode(&pic); err != nil {
		t.Errorf("the PNG does not decode: %v", err)
	}
}

// svgParts is what the tests read of a timeline's SVG.
type svgParts struct {
	rows      map[string]bool // data-goroutine of each row
	rects     int
	callRects int      // rectangles in the calls band
	legend    []string // the legend's texts
	titles    []string // the rows' rectangles' tooltips
}

// parseSVG reads an SVG timeline, failing t if it is not XML.
func parseSVG(t *testing.T, svg []byte) svgParts {
	t.Helper()
	sv := svgParts{rows: map[string]bool{}}
	d := xml.NewDecoder(bytes.NewReader(svg))
	var groups []string // the classes of the open g elements
	inText := false
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("the SVG is not XML: %v", err)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			switch tok.Name.Local {
			case "g":
				class := ""
				for _, at := range tok.Attr {
					switch at.Name.Local {
					case "data-goroutine":
						sv.rows[at.Value] = true
					case "class":
						class = at.Value
					}
				}
				groups = append(groups, class)
			case "rect":
				sv.rects++
				if len(groups) > 0 && groups[len(groups)-1] == "calls" {
					sv.callRects++
				}
			case "text", "title":
				inText = true
			}
		case xml.CharData:
			if inText && len(groups) > 0 {
				switch groups[len(groups)-1] {
				case "legend":
					sv.legend = append(sv.legend, string(tok))
				case "row":
					sv.titles = append(sv.titles, string(tok))
				}
			}
		case xml.EndElement:
			switch tok.Name.Local {
			case "g":
				groups = groups[:len(groups)-1]
			case "text", "title":
				inText = false
			}
		}
	}
	return sv
}
