package main

import (
	"bufio"
	"cmp"
	"encoding/xml"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"math"
	"slices"
	"strings"
	"time"

	xtrace "golang.org/x/exp/trace"
)

// The timeline: one row per goroutine that ran pieces, the pieces as
// rectangles coloured by call tree (a call, its nested calls and forks, or
// an iter pipeline and the par calls it made: the calls with no parent),
// stolen ones hatched and outlined, nested calls' pieces inset inside the
// piece that made them, and a time axis.
// Pieces narrower than a pixel are merged with their neighbours into runs
// about a pixel wide, so a picture has at most a few rectangles per pixel
// of width per row, however many pieces the trace has.

// Layout, in pixels.
const (
	labelW  = 64 // goroutine labels on the left
	marginR = 16
	marginT = 24  // title
	axisH   = 32  // time axis below the rows
	legendW = 220 // a legend entry
	legendH = 16
	laneH   = 6    // a lane of the calls band above the rows
	maxLane = 4    // lanes of the calls band at most
	maxRows = 2048 // rows drawn at most: par's MaxWorkers, and as many callers
)

// layout is the geometry of a timeline.
type layout struct {
	a         *analysis
	from, to  xtrace.Time // the window drawn: first call's begin to last call's end
	plotW     int
	rowH, gap int
	rows      []*worker
	rects     [][]rect // per row
	width     int
	height    int
	axisY     int
	truncated int      // rows not drawn
	legend    []*call  // the calls named under the axis: the longest ones
	callRects [][]rect // the calls' spans, task begin to end, per lane
	rowsTop   int      // the first goroutine row
	legendY   int
	perLine   int // legend entries per line
}

// rect is a piece, or a run of pieces narrower than a pixel, on one row.
type rect struct {
	x0, x1 float64 // in pixels from the plot's left edge
	depth  int
	call   *call // nil: pieces (or calls) of several calls
	stolen int   // pieces stolen
	pieces int   // pieces (or calls) in it
	isCall bool  // a call's span rather than pieces
	lo, hi int   // the range a single piece ran
	ranged bool  // lo and hi are known
	dur    time.Duration
}

// newLayout lays out a's pieces on a plot plotW pixels wide.
func newLayout(a *analysis, plotW int) *layout {
	l := &layout{a: a, plotW: max(plotW, 100), rows: a.workers}
	if len(l.rows) > maxRows {
		l.truncated = len(l.rows) - maxRows
		l.rows = l.rows[:maxRows]
	}
	switch {
	case len(l.rows) <= 32:
		l.rowH, l.gap = 18, 4
	case len(l.rows) <= 128:
		l.rowH, l.gap = 8, 2
	default:
		l.rowH, l.gap = 3, 1
	}
	first := true
	for _, c := range a.calls {
		if first || c.begin < l.from {
			l.from = c.begin
		}
		if first || c.end > l.to {
			l.to = c.end
		}
		first = false
	}
	if first || l.to <= l.from {
		l.from, l.to = a.start, max(a.end, a.start+1)
	}
	scale := float64(l.plotW) / float64(l.to-l.from)
	l.layoutCalls(scale)
	l.rowsTop = marginT + len(l.callRects)*laneH
	if len(l.callRects) > 0 {
		l.rowsTop += 6
	}
	l.width = labelW + l.plotW + marginR
	l.axisY = l.rowsTop + len(l.rows)*(l.rowH+l.gap)
	l.legend = a.longestRoots()
	l.legendY = l.axisY + axisH
	l.perLine = max(1, (l.plotW+labelW)/legendW)
	l.height = l.legendY + (len(l.legend)+l.perLine-1)/l.perLine*legendH + 4

	rowOf := map[xtrace.GoID]int{}
	for i, w := range l.rows {
		rowOf[w.g] = i
	}
	perRow := make([][]*piece, len(l.rows))
	for _, c := range a.calls {
		for _, p := range c.pieces {
			if i, ok := rowOf[p.g]; ok {
				perRow[i] = append(perRow[i], p)
			}
		}
	}
	l.rects = make([][]rect, len(l.rows))
	for i, ps := range perRow {
		slices.SortStableFunc(ps, func(p, q *piece) int { return cmp.Or(cmp.Compare(p.depth, q.depth), cmp.Compare(p.start, q.start)) })
		var out []rect
		for _, p := range ps {
			x0 := math.Max(0, float64(p.start-l.from)*scale)
			x1 := math.Min(float64(l.plotW), float64(p.end-l.from)*scale)
			r := rect{x0: x0, x1: max(x0, x1), depth: p.depth, call: p.call, pieces: 1, lo: p.lo, hi: p.ranTo, ranged: p.hasRange && p.call.tileErr == nil, dur: p.dur()}
			if p.stolen {
				r.stolen = 1
			}
			out = appendMerged(out, r)
		}
		l.rects[i] = out
	}
	return l
}

// layoutCalls lays out the calls' spans (task begin to end) in up to
// maxLane lanes above the rows, a call in the first lane free at its
// begin (or, all being taken, the one free soonest).
func (l *layout) layoutCalls(scale float64) {
	calls := l.a.roots()
	slices.SortStableFunc(calls, func(p, q *call) int { return cmp.Compare(p.begin, q.begin) })
	var ends []xtrace.Time
	for _, c := range calls {
		lane := slices.IndexFunc(ends, func(e xtrace.Time) bool { return e <= c.begin })
		if lane < 0 && len(ends) < maxLane {
			lane = len(ends)
			ends = append(ends, 0)
			l.callRects = append(l.callRects, nil)
		}
		if lane < 0 {
			lane = slices.Index(ends, slices.Min(ends))
		}
		ends[lane] = max(ends[lane], c.end)
		x0 := math.Max(0, float64(c.begin-l.from)*scale)
		x1 := math.Min(float64(l.plotW), float64(c.end-l.from)*scale)
		l.callRects[lane] = appendMerged(l.callRects[lane], rect{x0: x0, x1: max(x0, x1), call: c, pieces: 1, isCall: true, dur: c.wall})
	}
}

// appendMerged appends r to out, merged into out's last rectangle if both
// are narrower than a pixel and less than a pixel apart.
func appendMerged(out []rect, r rect) []rect {
	if n := len(out); n > 0 {
		cur := &out[n-1]
		if cur.depth == r.depth && cur.x1-cur.x0 < 1 && r.x1-r.x0 < 1 && r.x0-cur.x1 < 1 {
			cur.x1 = math.Max(cur.x1, r.x1)
			if cur.call != r.call {
				cur.call = sameRoot(cur.call, r.call)
			}
			cur.stolen += r.stolen
			cur.pieces += r.pieces
			cur.dur += r.dur
			return out
		}
	}
	return append(out, r)
}

// title is the picture's caption.
func (l *layout) title() string {
	s := fmt.Sprintf("parloop-trace: %d calls in %d trees, %d pieces on %d goroutines; colour = call tree or pipeline, hatched = stolen; time since the trace began",
		len(l.a.calls), len(l.a.roots()), l.a.pieces, len(l.a.workers))
	if l.truncated > 0 {
		s += fmt.Sprintf(" (%d more goroutines not drawn)", l.truncated)
	}
	return s
}

// legendAt is where the legend entry i begins.
func (l *layout) legendAt(i int) (x, y int) {
	return labelW + i%l.perLine*legendW, l.legendY + i/l.perLine*legendH
}

// rowY is the top of row i.
func (l *layout) rowY(i int) int { return l.rowsTop + i*(l.rowH+l.gap) }

// inset is how far a rectangle at depth d is inset from its row's edges.
func (l *layout) inset(d int) int { return min(d*2, (l.rowH-1)/2) }

// ticks returns the axis ticks: times since the trace's start, at a round
// step, within the window drawn.
func (l *layout) ticks() []time.Duration {
	from, to := l.from.Sub(l.a.start), l.to.Sub(l.a.start)
	want := max(2, l.plotW/120)
	raw := float64(to-from) / float64(want)
	step := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if step*m >= raw {
			step *= m
			break
		}
	}
	st := time.Duration(max(1, step))
	var ts []time.Duration
	for t := (from + st - 1) / st * st; t <= to; t += st {
		ts = append(ts, t)
	}
	return ts
}

// tickX is the x of the tick at d since the trace's start, from the plot's
// left edge.
func (l *layout) tickX(d time.Duration) float64 {
	return float64(d-l.from.Sub(l.a.start)) * float64(l.plotW) / float64(l.to-l.from)
}

// callColor is a call's colour: hues spread by the golden ratio.
func callColor(c *call) color.RGBA {
	if c == nil {
		return color.RGBA{0x99, 0x99, 0x99, 0xff}
	}
	h := math.Mod(float64(c.tree+1)*0.618033988749895, 1)
	return hsv(h, 0.55, 0.92)
}

func hsv(h, s, v float64) color.RGBA {
	i := math.Floor(h * 6)
	f := h*6 - i
	p, q, t := v*(1-s), v*(1-f*s), v*(1-(1-f)*s)
	var r, g, b float64
	switch int(i) % 6 {
	case 0:
		r, g, b = v, t, p
	case 1:
		r, g, b = q, v, p
	case 2:
		r, g, b = p, v, t
	case 3:
		r, g, b = p, q, v
	case 4:
		r, g, b = t, p, v
	default:
		r, g, b = v, p, q
	}
	return color.RGBA{uint8(r*255 + 0.5), uint8(g*255 + 0.5), uint8(b*255 + 0.5), 0xff}
}

func hex(c color.RGBA) string { return fmt.Sprintf("#%02x%02x%02x", c.R, c.G, c.B) }

// title is a rectangle's tooltip.
func (r *rect) title() string {
	var b strings.Builder
	switch {
	case r.isCall && r.pieces == 1:
		c := r.call
		fmt.Fprintf(&b, "call #%d %s: wall %s, %d pieces (%d stolen) on %d goroutines", c.seq, c.name(), fmtDur(c.wall), c.pieceCount(), c.stolen, len(c.participants))
		if len(c.children) > 0 {
			fmt.Fprintf(&b, ", %s", plural(len(c.children), "nested call"))
		}
	case r.isCall:
		fmt.Fprintf(&b, "%d calls, %s in all", r.pieces, fmtDur(r.dur))
	case r.pieces == 1:
		fmt.Fprintf(&b, "call #%d %s", r.call.seq, r.call.verb)
		if in := r.call.where(); in != "" {
			fmt.Fprintf(&b, " (in %s)", in)
		}
		if r.ranged {
			fmt.Fprintf(&b, " [%d, %d)", r.lo, r.hi)
		}
		fmt.Fprintf(&b, " %s", fmtDur(r.dur))
		if r.stolen > 0 {
			b.WriteString(" stolen")
		}
	case r.call != nil:
		fmt.Fprintf(&b, "%d pieces of call #%d %s, %s, %d stolen", r.pieces, r.call.seq, r.call.verb, fmtDur(r.dur), r.stolen)
	default:
		fmt.Fprintf(&b, "%d pieces of several calls, %s, %d stolen", r.pieces, fmtDur(r.dur), r.stolen)
	}
	return b.String()
}

func esc(s string) string {
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(s)) // a strings.Builder does not fail
	return b.String()
}

// writeSVG draws the timeline as SVG.
func (l *layout) writeSVG(w io.Writer) error {
	bw := bufio.NewWriter(w)
	pf := func(format string, args ...any) { fmt.Fprintf(bw, format, args...) }
	pf(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	pf(`<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d">`+"\n", l.width, l.height, l.width, l.height)
	pf(`<defs><pattern id="hatch" patternUnits="userSpaceOnUse" width="5" height="5" patternTransform="rotate(45)">` +
		`<line x1="0" y1="0" x2="0" y2="5" stroke="#000" stroke-width="1.5" stroke-opacity="0.45"/></pattern></defs>` + "\n")
	pf(`<style>text{font:11px sans-serif;fill:#333}</style>` + "\n")
	pf(`<rect width="100%%" height="100%%" fill="#fff"/>` + "\n")
	pf(`<text x="%d" y="16">%s</text>`+"\n", labelW, esc(l.title()))
	if len(l.callRects) > 0 {
		pf(`<g class="calls">` + "\n")
		pf(`<text x="%d" y="%d" text-anchor="end">calls</text>`+"\n", labelW-6, marginT+len(l.callRects)*laneH/2+4)
		for lane, rs := range l.callRects {
			for _, r := range rs {
				pf(`<rect x="%.2f" y="%d" width="%.2f" height="%d" fill="%s"><title>%s</title></rect>`+"\n",
					float64(labelW)+r.x0, marginT+lane*laneH, math.Max(r.x1-r.x0, 1), laneH-1, hex(callColor(r.call)), esc(r.title()))
			}
		}
		pf("</g>\n")
	}
	for i, wk := range l.rows {
		y := l.rowY(i)
		pf(`<g class="row" data-goroutine="%d">`+"\n", wk.g)
		pf(`<text x="%d" y="%d" text-anchor="end">g%d</text>`+"\n", labelW-6, y+l.rowH/2+4, wk.g)
		pf(`<rect class="lane" x="%d" y="%d" width="%d" height="%d" fill="#f2f2f2"/>`+"\n", labelW, y, l.plotW, l.rowH)
		for _, r := range l.rects[i] {
			in := l.inset(r.depth)
			x, wd := float64(labelW)+r.x0, math.Max(r.x1-r.x0, 1)
			ry, h := y+in, l.rowH-2*in
			pf(`<rect x="%.2f" y="%d" width="%.2f" height="%d" fill="%s"`, x, ry, wd, h, hex(callColor(r.call)))
			if r.stolen > 0 {
				pf(` stroke="#000" stroke-width="0.8"`)
			} else {
				pf(` stroke="#fff" stroke-width="0.5"`)
			}
			pf(`><title>%s</title></rect>`+"\n", esc(r.title()))
			if r.stolen > 0 {
				pf(`<rect x="%.2f" y="%d" width="%.2f" height="%d" fill="url(#hatch)" pointer-events="none"/>`+"\n", x, ry, wd, h)
			}
		}
		pf("</g>\n")
	}
	pf(`<g class="axis">` + "\n")
	pf(`<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#333"/>`+"\n", labelW, l.axisY, labelW+l.plotW, l.axisY)
	for _, t := range l.ticks() {
		x := float64(labelW) + l.tickX(t)
		pf(`<line x1="%.2f" y1="%d" x2="%.2f" y2="%d" stroke="#333"/>`+"\n", x, l.axisY, x, l.axisY+5)
		pf(`<text x="%.2f" y="%d" text-anchor="middle">%s</text>`+"\n", x, l.axisY+18, esc(fmtDur(t)))
	}
	pf("</g>\n")
	pf(`<g class="legend">` + "\n")
	for i, c := range l.legend {
		x, y := l.legendAt(i)
		pf(`<rect x="%d" y="%d" width="10" height="10" fill="%s"/>`, x, y, hex(callColor(c)))
		pf(`<text x="%d" y="%d">%s</text>`+"\n", x+14, y+9, esc(fmt.Sprintf("#%d %s %s", c.seq, c.name(), fmtDur(c.wall))))
	}
	pf("</g>\n</svg>\n")
	return bw.Flush()
}

// writePNG draws the timeline as a PNG image.
func (l *layout) writePNG(w io.Writer) error {
	img := image.NewRGBA(image.Rect(0, 0, l.width, l.height))
	fill(img, img.Bounds(), color.RGBA{0xff, 0xff, 0xff, 0xff})
	ink := color.RGBA{0x33, 0x33, 0x33, 0xff}
	if len(l.callRects) > 0 {
		drawText(img, labelW-6-textWidth("calls"), marginT+len(l.callRects)*laneH/2-5, "calls", ink)
	}
	for lane, rs := range l.callRects {
		y := marginT + lane*laneH
		for _, r := range rs {
			x0 := labelW + int(math.Floor(r.x0))
			x1 := max(labelW+int(math.Ceil(r.x1)), x0+1)
			fill(img, image.Rect(x0, y, x1, y+laneH-1), callColor(r.call))
		}
	}
	for i, wk := range l.rows {
		y := l.rowY(i)
		fill(img, image.Rect(labelW, y, labelW+l.plotW, y+l.rowH), color.RGBA{0xf2, 0xf2, 0xf2, 0xff})
		if l.rowH >= 8 {
			s := fmt.Sprintf("g%d", wk.g)
			drawText(img, labelW-6-textWidth(s), y+(l.rowH-10)/2, s, ink)
		}
		for _, r := range l.rects[i] {
			in := l.inset(r.depth)
			x0 := labelW + int(math.Floor(r.x0))
			x1 := max(labelW+int(math.Ceil(r.x1)), x0+1)
			if x1-x0 >= 4 {
				x1-- // a gap between adjacent pieces
			}
			box := image.Rect(x0, y+in, x1, y+l.rowH-in)
			col := callColor(r.call)
			fill(img, box, col)
			if r.stolen > 0 {
				dark := color.RGBA{col.R / 2, col.G / 2, col.B / 2, 0xff}
				for py := box.Min.Y; py < box.Max.Y; py++ {
					for px := box.Min.X; px < box.Max.X; px++ {
						if (px+py)%5 == 0 || px == box.Min.X || px == box.Max.X-1 || py == box.Min.Y || py == box.Max.Y-1 {
							img.SetRGBA(px, py, dark)
						}
					}
				}
			}
		}
	}
	fill(img, image.Rect(labelW, l.axisY, labelW+l.plotW, l.axisY+1), ink)
	for _, t := range l.ticks() {
		x := labelW + int(math.Round(l.tickX(t)))
		fill(img, image.Rect(x, l.axisY, x+1, l.axisY+5), ink)
		s := fmtDur(t)
		drawText(img, x-textWidth(s)/2, l.axisY+9, s, ink)
	}
	for i, c := range l.legend {
		x, y := l.legendAt(i)
		fill(img, image.Rect(x, y, x+10, y+10), callColor(c))
		drawText(img, x+14, y, fmt.Sprintf("#%d", c.seq), ink)
	}
	return png.Encode(w, img)
}

func fill(img *image.RGBA, r image.Rectangle, c color.RGBA) {
	r = r.Intersect(img.Bounds())
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			img.SetRGBA(x, y, c)
		}
	}
}

// A 3×5 pixel font, drawn at twice the size, for the labels of the PNG:
// digits and the letters of goroutine names, durations and "calls".
var glyphs = map[rune][5]string{
	'0': {"111", "101", "101", "101", "111"},
	'1': {"010", "110", "010", "010", "111"},
	'2': {"111", "001", "111", "100", "111"},
	'3': {"111", "001", "111", "001", "111"},
	'4': {"101", "101", "111", "001", "001"},
	'5': {"111", "100", "111", "001", "111"},
	'6': {"111", "100", "111", "101", "111"},
	'7': {"111", "001", "001", "001", "001"},
	'8': {"111", "101", "111", "101", "111"},
	'9': {"111", "101", "111", "001", "111"},
	'.': {"000", "000", "000", "000", "010"},
	'#': {"101", "111", "101", "111", "101"},
	'a': {"000", "110", "011", "101", "011"},
	'c': {"000", "011", "100", "100", "011"},
	'l': {"110", "010", "010", "010", "111"},
	'g': {"000", "011", "101", "011", "110"},
	'm': {"000", "000", "111", "111", "101"},
	's': {"011", "100", "010", "001", "110"},
	'µ': {"000", "101", "101", "111", "100"},
	'n': {"000", "000", "110", "101", "101"},
}

const glyphScale = 2

func textWidth(s string) int { return len([]rune(s)) * 4 * glyphScale }

func drawText(img *image.RGBA, x, y int, s string, c color.RGBA) {
	for _, ch := range s {
		g, ok := glyphs[ch]
		if ok {
			for gy, row := range g {
				for gx, bit := range row {
					if bit == '1' {
						fill(img, image.Rect(x+gx*glyphScale, y+gy*glyphScale, x+(gx+1)*glyphScale, y+(gy+1)*glyphScale), c)
					}
				}
			}
		}
		x += 4 * glyphScale
	}
}

// sameRoot is the root of a and b if they share one, else nil (a rectangle
// of several call trees, drawn grey).
func sameRoot(a, b *call) *call {
	if a == nil || b == nil || a.root() != b.root() {
		return nil
	}
	return a.root()
}

// name is how the picture names a call: its verb and n, or a pipeline's
// source, stages and terminal.
func (c *call) name() string {
	if c.kind == pipeCall && c.pipeline != "" {
		return c.verb + " " + c.pipeline
	}
	return c.verb + " n=" + fmtN(c)
}

// roots are the calls that belong to no other: top-level calls, fork
// trees and pipelines, in trace order.
func (a *analysis) roots() []*call {
	var out []*call
	for _, c := range a.calls {
		if c.parent == nil {
			out = append(out, c)
		}
	}
	return out
}

// longestRoots are the maxListed longest roots, in trace order: the
// legend.
func (a *analysis) longestRoots() []*call {
	rs := a.roots()
	if len(rs) <= maxListed {
		return rs
	}
	byWall := slices.Clone(rs)
	slices.SortStableFunc(byWall, func(p, q *call) int { return cmp.Compare(q.wall, p.wall) })
	out := byWall[:maxListed]
	slices.SortFunc(out, func(p, q *call) int { return cmp.Compare(p.seq, q.seq) })
	return out
}
