package main

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/exp/stats"
	xtrace "golang.org/x/exp/trace"
)

// Region and log names written by package par (par/observe.go).
const (
	regionPiece  = "piece"
	regionStolen = "stolen piece"
	logN         = "n"
	logRange     = "range"
	verbPrefix   = "par."
)

// A piece is one piece region: a range of one call run by one goroutine.
type piece struct {
	call       *call
	g          xtrace.GoID
	start, end xtrace.Time
	lo, hi     int // the range logged when the piece began
	ranTo      int // where it stopped: hi less the upper parts split off (see tile)
	hasRange   bool
	stolen     bool
	depth      int  // piece regions open below it on its goroutine (nested calls)
	noBegin    bool // began before the trace did: start is the trace's start
	noEnd      bool // still running when the trace ended: end is the trace's end
}

func (p *piece) dur() time.Duration { return p.end.Sub(p.start) }

// A participant is a goroutine that ran pieces of a call.
type participant struct {
	g      xtrace.GoID
	busy   time.Duration // its pieces of the call, within the call's window
	pieces int
	stolen int
}

// A call is one parloop call: a trace task of type "par.<verb>".
type call struct {
	id         xtrace.TaskID
	seq        int    // order of appearance in the trace, from 1
	verb       string // "par.For", ...; "?" if the task began before the trace
	n          int
	hasN       bool
	caller     xtrace.GoID
	begin, end xtrace.Time
	hasBegin   bool
	hasEnd     bool
	pieces     []*piece

	// Derived by finish.
	wall         time.Duration
	stolen       int
	participants []participant // by goroutine id
	imbalance    float64       // max busy / mean busy of the participants
	straggler    float64       // slowest piece / median piece
	utilization  float64       // total busy / (participants × wall)
	pieceQ       []float64     // piece durations (ns) at quantiles 0, .5, .9, 1
	tileErr      error         // why the pieces' ranges do not tile [0, n), if they do not
}

// A worker is a goroutine that ran pieces: a pool worker, or a caller
// running pieces of its own call.
type worker struct {
	g      xtrace.GoID
	busy   time.Duration // union of its outermost pieces
	idle   time.Duration // the traced span less busy
	pieces int
	stolen int
	calls  int // calls it began
}

// analysis is what the tool reports about one trace.
type analysis struct {
	start, end xtrace.Time // first and last event of the trace
	calls      []*call     // in order of first appearance
	workers    []*worker   // by goroutine id
	pieces     int
	stolen     int
	orphans    int // piece regions of no par call
	unranged   int // pieces with no range log
	untiled    int // calls whose pieces' ranges do not tile [0, n)
	incomplete int // calls cut by the trace's start or end
}

func (a *analysis) span() time.Duration { return a.end.Sub(a.start) }

// open is a region open on a goroutine while the trace is read.
type open struct {
	typ   string
	task  xtrace.TaskID
	piece *piece // nil for a region that is not a piece of a par call
}

// analyze reads an execution trace and accounts every piece region to its
// call and goroutine.
func analyze(r io.Reader) (*analysis, error) {
	rd, err := xtrace.NewReader(r)
	if err != nil {
		return nil, fmt.Errorf("reading the trace: %w", err)
	}
	a := &analysis{}
	calls := map[xtrace.TaskID]*call{}
	nonPar := map[xtrace.TaskID]bool{}
	stacks := map[xtrace.GoID][]open{}
	var pieces []*piece
	first := true
	getCall := func(id xtrace.TaskID) *call {
		if id == xtrace.NoTask || id == 0 || nonPar[id] {
			return nil
		}
		c := calls[id]
		if c == nil {
			c = &call{id: id, verb: "?", seq: len(calls) + 1}
			calls[id] = c
			a.calls = append(a.calls, c)
		}
		return c
	}
	for {
		ev, err := rd.ReadEvent()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("reading the trace: %w", err)
		}
		t := ev.Time()
		if first {
			a.start, first = t, false
		}
		a.end = max(a.end, t)
		switch ev.Kind() {
		case xtrace.EventTaskBegin:
			tk := ev.Task()
			if !strings.HasPrefix(tk.Type, verbPrefix) {
				nonPar[tk.ID] = true
				continue
			}
			c := getCall(tk.ID)
			c.verb, c.begin, c.hasBegin, c.caller = tk.Type, t, true, ev.Goroutine()
		case xtrace.EventTaskEnd:
			tk := ev.Task()
			if c := calls[tk.ID]; c != nil {
				c.end, c.hasEnd = t, true
				if c.verb == "?" && strings.HasPrefix(tk.Type, verbPrefix) {
					c.verb = tk.Type
				}
			}
		case xtrace.EventRegionBegin:
			rg, g := ev.Region(), ev.Goroutine()
			o := open{typ: rg.Type, task: rg.Task}
			if rg.Type == regionPiece || rg.Type == regionStolen {
				if c := getCall(rg.Task); c != nil {
					o.piece = &piece{call: c, g: g, start: t, stolen: rg.Type == regionStolen, depth: pieceDepth(stacks[g])}
				} else {
					a.orphans++
				}
			}
			stacks[g] = append(stacks[g], o)
		case xtrace.EventRegionEnd:
			rg, g := ev.Region(), ev.Goroutine()
			st := stacks[g]
			i := len(st) - 1
			for i >= 0 && (st[i].typ != rg.Type || st[i].task != rg.Task) {
				i--
			}
			if i < 0 {
				// Began before the trace started.
				if rg.Type == regionPiece || rg.Type == regionStolen {
					if c := getCall(rg.Task); c != nil {
						p := &piece{call: c, g: g, start: a.start, end: t, stolen: rg.Type == regionStolen, noBegin: true}
						pieces = append(pieces, p)
					} else {
						a.orphans++
					}
				}
				continue
			}
			if p := st[i].piece; p != nil {
				p.end = t
				pieces = append(pieces, p)
			}
			stacks[g] = slices.Delete(st, i, len(st))
		case xtrace.EventLog:
			lg, g := ev.Log(), ev.Goroutine()
			switch lg.Category {
			case logN:
				if c := calls[lg.Task]; c != nil && !c.hasN {
					if n, err := strconv.Atoi(lg.Message); err == nil {
						c.n, c.hasN = n, true
					}
				}
			case logRange:
				st := stacks[g]
				for i := len(st) - 1; i >= 0; i-- {
					if p := st[i].piece; p != nil && st[i].task == lg.Task {
						if !p.hasRange {
							p.lo, p.hi, p.hasRange = parseRange(lg.Message)
						}
						break
					}
				}
			}
		}
	}
	if first {
		return nil, errors.New("the trace has no events")
	}
	// Pieces still open when the trace ended.
	for _, st := range stacks {
		for _, o := range st {
			if o.piece != nil {
				o.piece.end, o.piece.noEnd = a.end, true
				pieces = append(pieces, o.piece)
			}
		}
	}
	// A task seen only through piece regions (its begin and end fell
	// outside the trace, so its type is unknown) is not reported; its
	// pieces count as orphans. par makes a call a task only if a trace is
	// recording when it starts, so this takes a trace whose start was cut
	// off (a flight recorder's window).
	a.calls = slices.DeleteFunc(a.calls, func(c *call) bool { return c.verb == "?" && !c.hasBegin && !c.hasEnd })
	slices.SortStableFunc(pieces, func(p, q *piece) int { return cmp.Compare(p.start, q.start) })
	for _, p := range pieces {
		if p.call.verb == "?" && !p.call.hasBegin && !p.call.hasEnd {
			a.orphans++
			continue
		}
		p.call.pieces = append(p.call.pieces, p)
	}
	for i, c := range a.calls {
		c.seq = i + 1
		c.finish(a)
	}
	a.finishWorkers()
	return a, nil
}

// pieceDepth is the number of piece regions open on a goroutine.
func pieceDepth(st []open) int {
	d := 0
	for _, o := range st {
		if o.piece != nil {
			d++
		}
	}
	return d
}

// parseRange parses a "lo-hi" range log.
func parseRange(s string) (lo, hi int, ok bool) {
	l, h, found := strings.Cut(s, "-")
	if !found {
		return 0, 0, false
	}
	lo, err1 := strconv.Atoi(l)
	hi, err2 := strconv.Atoi(h)
	return lo, hi, err1 == nil && err2 == nil
}

// finish derives the call's figures from its pieces.
func (c *call) finish(a *analysis) {
	if !c.hasBegin {
		c.begin = a.start
		if len(c.pieces) > 0 {
			c.begin = c.pieces[0].start
		}
	}
	if !c.hasEnd {
		c.end = a.end
	}
	if !c.hasBegin || !c.hasEnd {
		a.incomplete++
	}
	c.wall = c.end.Sub(c.begin)
	byG := map[xtrace.GoID]*participant{}
	durs := make([]float64, 0, len(c.pieces))
	for _, p := range c.pieces {
		a.pieces++
		if !p.hasRange {
			a.unranged++
		}
		pt := byG[p.g]
		if pt == nil {
			pt = &participant{g: p.g}
			byG[p.g] = pt
		}
		pt.pieces++
		// Busy within the call's window: clocks of different threads may
		// put a piece's end a little after the task's.
		s, e := max(p.start, c.begin), min(p.end, c.end)
		if e > s {
			pt.busy += e.Sub(s)
		}
		if p.stolen {
			pt.stolen++
			c.stolen++
			a.stolen++
		}
		durs = append(durs, float64(p.dur()))
	}
	if c.tileErr = c.tile(); c.tileErr != nil && len(c.pieces) > 0 {
		a.untiled++
	}
	for _, pt := range byG {
		c.participants = append(c.participants, *pt)
	}
	slices.SortFunc(c.participants, func(p, q participant) int { return cmp.Compare(p.g, q.g) })
	if len(c.participants) == 0 {
		return
	}
	busy := make([]float64, len(c.participants))
	total := 0.0
	for i, pt := range c.participants {
		busy[i] = float64(pt.busy)
		total += busy[i]
	}
	if mean := stats.Mean(busy); mean > 0 {
		c.imbalance = slices.Max(busy) / mean
	}
	c.pieceQ = stats.Quantiles(durs, 0, 0.5, 0.9, 1)
	if med := stats.Median(durs); med > 0 {
		c.straggler = c.pieceQ[3] / med
	}
	if c.wall > 0 {
		c.utilization = total / (float64(len(c.participants)) * float64(c.wall))
	}
}

// finishWorkers derives the per-goroutine figures.
func (a *analysis) finishWorkers() {
	byG := map[xtrace.GoID]*worker{}
	var outer []*piece
	for _, c := range a.calls {
		for _, p := range c.pieces {
			w := byG[p.g]
			if w == nil {
				w = &worker{g: p.g}
				byG[p.g] = w
			}
			w.pieces++
			if p.stolen {
				w.stolen++
			}
			if p.depth == 0 {
				outer = append(outer, p)
			}
		}
	}
	for _, c := range a.calls {
		if w := byG[c.caller]; w != nil && c.hasBegin {
			w.calls++
		}
	}
	// Outermost pieces of one goroutine do not overlap; sum them, merging
	// any that do (a region that began before the trace).
	slices.SortFunc(outer, func(p, q *piece) int { return cmp.Or(cmp.Compare(p.g, q.g), cmp.Compare(p.start, q.start)) })
	var last xtrace.Time
	var lastG xtrace.GoID = xtrace.NoGoroutine
	for _, p := range outer {
		w := byG[p.g]
		s := p.start
		if p.g == lastG {
			s = max(s, last)
		} else {
			lastG, last = p.g, s
		}
		if p.end > s {
			w.busy += p.end.Sub(s)
			last = p.end
		}
	}
	for _, w := range byG {
		w.idle = max(0, a.span()-w.busy)
		a.workers = append(a.workers, w)
	}
	slices.SortFunc(a.workers, func(p, q *worker) int { return cmp.Compare(p.g, q.g) })
}

// tile works out the range each piece ran and checks that these ranges
// tile [0, n). A piece logs its range [lo, hi) when it begins; while it
// runs it may split, pushing the upper half of what is left as a new piece
// and going on with the lower half (par/offer.go). So a piece runs from its
// lo up to the lo of the next piece in index order, and the logged ranges
// of one call satisfy: the los are distinct and start at 0, no two
// consecutive ones leave a gap (the next lo is at most this hi), and every
// hi is n or the lo of another piece (a split-off piece ends where the
// piece split off before it began, or where its parent ended).
func (c *call) tile() error {
	if len(c.pieces) == 0 {
		return nil
	}
	if !c.hasN {
		return errors.New("no n logged")
	}
	ps := slices.Clone(c.pieces)
	los := map[int]bool{}
	for _, p := range ps {
		if !p.hasRange {
			return errors.New("a piece has no range")
		}
		if p.lo < 0 || p.hi > c.n || p.lo >= p.hi {
			return fmt.Errorf("piece [%d, %d) outside [0, %d)", p.lo, p.hi, c.n)
		}
		if los[p.lo] {
			return fmt.Errorf("two pieces begin at %d", p.lo)
		}
		los[p.lo] = true
	}
	slices.SortFunc(ps, func(p, q *piece) int { return cmp.Compare(p.lo, q.lo) })
	if ps[0].lo != 0 {
		return fmt.Errorf("no piece begins at 0 (the first at %d)", ps[0].lo)
	}
	for i, p := range ps {
		next := c.n
		if i+1 < len(ps) {
			next = ps[i+1].lo
		}
		if next > p.hi {
			return fmt.Errorf("nothing ran [%d, %d)", p.hi, next)
		}
		if p.hi != c.n && !los[p.hi] {
			return fmt.Errorf("piece [%d, %d) ends where no piece begins", p.lo, p.hi)
		}
		p.ranTo = next
	}
	return nil
}
