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

	xtrace "golang.org/x/exp/trace"
)

// Task, region and log names written by package par (par/internal/tracing,
// and par/route.go for a plain call's piece) and package iter
// (iter/trace.go).
const (
	regionPiece  = "piece"
	regionStolen = "stolen piece"
	regionFork   = "stolen fork"
	logN         = "n"
	logRange     = "range"
	logPipeline  = "pipeline"
	verbPrefix   = "par."
	iterPrefix   = "iter."
)

// The kinds of call.
const (
	loopCall = iota // par.For, ForRange, ... : pieces of an index range
	forkCall        // par.Join, Both, BothOf, Invoke from outside the pool: a call tree of forks
	pipeCall        // an iter pipeline's run: the par calls it made are its children
)

// forkVerbs are the verbs whose tasks are call trees of forks.
var forkVerbs = map[string]bool{"par.Join": true, "par.Both": true, "par.BothOf": true, "par.Invoke": true}

// A piece is one piece region (a range of one call run by one goroutine),
// one function of a fork tree run by a thief ("stolen fork"), or the span of
// a fork tree on its caller.
type piece struct {
	call       *call
	g          xtrace.GoID
	start, end xtrace.Time
	lo, hi     int // the range logged when the piece began
	ranTo      int // where it stopped: hi less the upper parts split off (see tile)
	hasRange   bool
	stolen     bool
	fork       bool // a fork tree's: a stolen fork, or the caller's span
	depth      int  // piece regions open below it on its goroutine (nested calls)
	noBegin    bool // began before the trace did: start is the trace's start
	noEnd      bool // still running when the trace ended: end is the trace's end
}

func (p *piece) dur() time.Duration { return p.end.Sub(p.start) }

// A participant is a goroutine that ran pieces of a call.
type participant struct {
	g      xtrace.GoID
	busy   time.Duration // the union of its pieces of the call, within the call's window
	pieces int
	stolen int
}

// A call is one parloop call (a trace task of type "par.<verb>") or one run
// of an iter pipeline ("iter.<terminal>").
type call struct {
	id         xtrace.TaskID
	seq        int    // order of appearance in the trace, from 1
	verb       string // "par.For", "par.Join", "iter.ForEach", ...; "?" if the task began before the trace
	kind       int    // loopCall, forkCall or pipeCall
	n          int
	hasN       bool
	caller     xtrace.GoID
	begin, end xtrace.Time
	hasBegin   bool
	hasEnd     bool
	pieces     []*piece
	pipeline   string // pipeCall: the source, stages and terminal, as iter logs them
	tree       int    // the index of its root among the roots: its colour

	// Nesting, found when the task began (see nest).
	parentTask xtrace.TaskID // the task's parent, as runtime/trace has it
	parent     *call         // the par call or pipeline it is part of, or nil
	role       string        // in a pipeline: the region it began in ("iter.source", ...), or "caller"
	inPiece    bool          // it began inside a piece of parent: a call nested in a body
	userTask   string        // the type of the caller's own (non-par) task it belongs to, if any
	children   []*call

	// Derived by finish.
	wall         time.Duration
	stolen       int
	participants []participant // by goroutine id
	imbalance    float64       // max busy / mean busy of the participants
	straggler    float64       // max busy / median busy of the participants
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
	unranged   int // loop pieces with no range log
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

// isPieceRegion reports whether a region type is one of par's pieces.
func isPieceRegion(typ string) bool {
	return typ == regionPiece || typ == regionStolen || typ == regionFork
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
	userTasks := map[xtrace.TaskID]string{} // tasks of the program's own, by type
	stacks := map[xtrace.GoID][]open{}
	pipes := map[xtrace.GoID][]*call{} // pipelines begun on a goroutine and not ended
	var pieces []*piece
	first := true
	getCall := func(id xtrace.TaskID) *call {
		if id == xtrace.NoTask || id == 0 {
			return nil
		}
		if _, ok := userTasks[id]; ok {
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
	newPiece := func(c *call, g xtrace.GoID, typ string, t xtrace.Time, st []open) *piece {
		return &piece{call: c, g: g, start: t, stolen: typ != regionPiece, fork: typ == regionFork, depth: pieceDepth(st)}
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
			tk, g := ev.Task(), ev.Goroutine()
			if !strings.HasPrefix(tk.Type, verbPrefix) && !strings.HasPrefix(tk.Type, iterPrefix) {
				userTasks[tk.ID] = tk.Type
				continue
			}
			c := getCall(tk.ID)
			c.verb, c.begin, c.hasBegin, c.caller, c.parentTask = tk.Type, t, true, g, tk.Parent
			c.kind = kindOf(tk.Type)
			nest(c, calls, userTasks, stacks[g], pipes[g])
			switch c.kind {
			case forkCall:
				// The caller works on the tree for its whole span: running
				// the first function and helping while it waits.
				p := newPiece(c, g, regionPiece, t, stacks[g])
				p.fork = true
				stacks[g] = append(stacks[g], open{typ: "fork tree", task: tk.ID, piece: p})
			case pipeCall:
				pipes[g] = append(pipes[g], c)
			}
		case xtrace.EventTaskEnd:
			tk, g := ev.Task(), ev.Goroutine()
			c := calls[tk.ID]
			if c == nil {
				continue
			}
			c.end, c.hasEnd = t, true
			if c.verb == "?" && (strings.HasPrefix(tk.Type, verbPrefix) || strings.HasPrefix(tk.Type, iterPrefix)) {
				c.verb, c.kind = tk.Type, kindOf(tk.Type)
			}
			if c.kind == forkCall {
				st := stacks[g]
				for i := len(st) - 1; i >= 0; i-- {
					if st[i].typ == "fork tree" && st[i].task == tk.ID {
						st[i].piece.end = t
						pieces = append(pieces, st[i].piece)
						stacks[g] = slices.Delete(st, i, i+1)
						break
					}
				}
			}
			if ps := pipes[g]; len(ps) > 0 {
				pipes[g] = slices.DeleteFunc(ps, func(p *call) bool { return p == c })
			}
		case xtrace.EventRegionBegin:
			rg, g := ev.Region(), ev.Goroutine()
			o := open{typ: rg.Type, task: rg.Task}
			if isPieceRegion(rg.Type) {
				if c := getCall(rg.Task); c != nil {
					o.piece = newPiece(c, g, rg.Type, t, stacks[g])
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
				if isPieceRegion(rg.Type) {
					if c := getCall(rg.Task); c != nil {
						p := newPiece(c, g, rg.Type, a.start, nil)
						p.end, p.noBegin = t, true
						pieces = append(pieces, p)
					} else {
						a.orphans++
					}
				}
				continue
			}
			if p := st[i].piece; p != nil && st[i].typ != "fork tree" {
				p.end = t
				pieces = append(pieces, p)
			}
			// Regions end in order on a goroutine; the fork tree's span,
			// which ends with its task, stays.
			kept := st[:i]
			for _, o := range st[i+1:] {
				if o.typ == "fork tree" {
					kept = append(kept, o)
				}
			}
			if st[i].typ == "fork tree" {
				kept = append(kept, st[i])
			}
			stacks[g] = kept
		case xtrace.EventLog:
			lg, g := ev.Log(), ev.Goroutine()
			switch lg.Category {
			case logN:
				if c := calls[lg.Task]; c != nil && !c.hasN {
					if n, err := strconv.Atoi(lg.Message); err == nil {
						c.n, c.hasN = n, true
					}
				}
			case logPipeline:
				if c := calls[lg.Task]; c != nil {
					c.pipeline = lg.Message
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
		if c.parent != nil {
			c.parent.children = append(c.parent.children, c)
		}
	}
	for i, r := range a.roots() {
		r.tree = i
	}
	for _, c := range a.calls {
		c.tree = c.root().tree
		c.finish(a)
	}
	for _, c := range a.calls {
		if c.kind == pipeCall {
			c.finishPipeline()
		}
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
// tile [base, base+n), base being the lowest logged lo: 0, or where a
// plain nested call handed the rest of its range to a parallel call
// (par/solo.go), which logs n as what is left. A piece logs its range
// [lo, hi) when it begins; while it runs it may split, pushing the upper
// half of what is left as a new piece and going on with the lower half
// (par/offer.go). So a piece runs from its lo up to the lo of the next
// piece in index order, and the logged ranges of one call satisfy: the
// los are distinct, no two consecutive ones leave a gap (the next lo is
// at most this hi), and every hi is base+n or the lo of another piece (a
// split-off piece ends where the piece split off before it began, or where
// its parent ended).
func (c *call) tile() error {
	if len(c.pieces) == 0 {
		return nil
	}
	if !c.hasN {
		return errors.New("no n logged")
	}
	ps := slices.Clone(c.pieces)
	los := map[int]bool{}
	base := -1
	for _, p := range ps {
		if !p.hasRange {
			return errors.New("a piece has no range")
		}
		if base < 0 || p.lo < base {
			base = p.lo
		}
	}
	end := base + c.n
	for _, p := range ps {
		if p.lo < base || p.hi > end || p.lo >= p.hi {
			return fmt.Errorf("piece [%d, %d) outside [%d, %d)", p.lo, p.hi, base, end)
		}
		if los[p.lo] {
			return fmt.Errorf("two pieces begin at %d", p.lo)
		}
		los[p.lo] = true
	}
	slices.SortFunc(ps, func(p, q *piece) int { return cmp.Compare(p.lo, q.lo) })
	for i, p := range ps {
		next := end
		if i+1 < len(ps) {
			next = ps[i+1].lo
		}
		if next > p.hi {
			return fmt.Errorf("nothing ran [%d, %d)", p.hi, next)
		}
		if p.hi != end && !los[p.hi] {
			return fmt.Errorf("piece [%d, %d) ends where no piece begins", p.lo, p.hi)
		}
		p.ranTo = next
	}
	return nil
}
