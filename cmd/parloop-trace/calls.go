package main

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/exp/stats"
	xtrace "golang.org/x/exp/trace"
)

// Calls: their kind, where each one belongs (nesting), and the figures
// derived from their pieces.

// kindOf is the kind of call a task type names.
func kindOf(typ string) int {
	switch {
	case strings.HasPrefix(typ, iterPrefix):
		return pipeCall
	case forkVerbs[typ]:
		return forkCall
	}
	return loopCall
}

// nest finds where call c, whose task just began on a goroutine whose open
// regions are st and open pipelines pipes, belongs:
//
//   - the goroutine's innermost open region that tells: a piece of a par
//     call (a call made in a body, or in a function of a fork tree), or an
//     iter region of a pipeline (a call the pipeline made on one of its
//     goroutines: the source, the runners);
//   - else the task's parent, if it is a par call or a pipeline (par makes
//     a call nested in a traced call tree a subtask of the tree's root);
//   - else the innermost pipeline begun on the same goroutine and not yet
//     ended (the par call an indexed pipeline makes on its caller).
//
// It also notes the program's own task the call is under: its task's
// parent (ForErr and MapErr make their task a subtask of their context's),
// or the task of a region of the program's open on the goroutine.
func nest(c *call, calls map[xtrace.TaskID]*call, userTasks map[xtrace.TaskID]string, st []open, pipes []*call) {
	if typ, ok := userTasks[c.parentTask]; ok {
		c.userTask = typ
	}
	for i := len(st) - 1; i >= 0; i-- {
		o := st[i]
		if o.piece != nil {
			c.parent, c.inPiece = o.piece.call, true
			return
		}
		if p := calls[o.task]; p != nil && strings.HasPrefix(o.typ, iterPrefix) {
			c.parent, c.role = p, o.typ
			return
		}
		if typ, ok := userTasks[o.task]; ok && c.userTask == "" {
			c.userTask = typ
		}
	}
	if p := calls[c.parentTask]; p != nil && c.parentTask != 0 {
		c.parent = p
		return
	}
	if len(pipes) > 0 {
		c.parent, c.role = pipes[len(pipes)-1], "caller"
	}
}

// root is the outermost call c belongs to.
func (c *call) root() *call {
	for c.parent != nil {
		c = c.parent
	}
	return c
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
	durs := make([]float64, 0, len(c.pieces))
	for _, p := range c.pieces {
		a.pieces++
		if !p.hasRange && !p.fork {
			a.unranged++
		}
		if p.stolen {
			c.stolen++
			a.stolen++
		}
		durs = append(durs, float64(p.dur()))
	}
	if c.kind == loopCall {
		if c.tileErr = c.tile(); c.tileErr != nil && len(c.pieces) > 0 {
			a.untiled++
		}
	}
	c.figures(c.pieces)
	if len(durs) > 0 {
		c.pieceQ = stats.Quantiles(durs, 0, 0.5, 0.9, 1)
	}
}

// figures sets the participants and the balance figures from pieces: a
// participant's busy time is the union of its pieces within the call's
// window (a stolen fork runs inside another on a thief that waits for its
// own), and the figures are Pool.Stats' over the participants:
// imbalance = max(busy) / mean(busy), straggler = max(busy) / median(busy).
func (c *call) figures(pieces []*piece) {
	byG := map[xtrace.GoID][]*piece{}
	for _, p := range pieces {
		byG[p.g] = append(byG[p.g], p)
	}
	c.participants = c.participants[:0]
	for g, ps := range byG {
		pt := participant{g: g, pieces: len(ps)}
		slices.SortFunc(ps, func(p, q *piece) int { return cmp.Compare(p.start, q.start) })
		var last xtrace.Time
		for _, p := range ps {
			if p.stolen {
				pt.stolen++
			}
			// Clocks of different threads may put a piece's end a little
			// after the task's.
			s, e := max(p.start, c.begin, last), min(p.end, c.end)
			if e > s {
				pt.busy += e.Sub(s)
				last = e
			}
		}
		c.participants = append(c.participants, pt)
	}
	slices.SortFunc(c.participants, func(p, q participant) int { return cmp.Compare(p.g, q.g) })
	c.imbalance, c.straggler, c.utilization = 0, 0, 0
	if len(c.participants) == 0 {
		return
	}
	busy := make([]float64, len(c.participants))
	total := 0.0
	for i, pt := range c.participants {
		busy[i] = float64(pt.busy)
		total += busy[i]
	}
	longest := slices.Max(busy)
	if mean := stats.Mean(busy); mean > 0 {
		c.imbalance = longest / mean
	}
	if med := stats.Median(busy); med > 0 {
		c.straggler = longest / med
	}
	if c.wall > 0 {
		c.utilization = total / (float64(len(c.participants)) * float64(c.wall))
	}
}

// finishPipeline derives a pipeline's figures from the pieces of the calls
// it made, and its n from its source ("Slice(1000) | Map | ForEach").
func (c *call) finishPipeline() {
	var ps []*piece
	var walk func(*call)
	walk = func(k *call) {
		for _, ch := range k.children {
			ps = append(ps, ch.pieces...)
			walk(ch)
		}
	}
	walk(c)
	c.figures(ps)
	c.stolen = 0
	durs := make([]float64, 0, len(ps))
	for _, p := range ps {
		if p.stolen {
			c.stolen++
		}
		durs = append(durs, float64(p.dur()))
	}
	if len(durs) > 0 {
		c.pieceQ = stats.Quantiles(durs, 0, 0.5, 0.9, 1)
	}
	if src, _, _ := strings.Cut(c.pipeline, " | "); strings.HasSuffix(src, ")") {
		if i := strings.IndexByte(src, '('); i > 0 {
			if n, err := strconv.Atoi(src[i+1 : len(src)-1]); err == nil {
				c.n, c.hasN = n, true
			}
		}
	}
}

// pieceCount is how many pieces the report counts for c: its own, or for a
// pipeline those of the calls it made.
func (c *call) pieceCount() int {
	if c.kind != pipeCall {
		return len(c.pieces)
	}
	n := 0
	var walk func(*call)
	walk = func(k *call) {
		for _, ch := range k.children {
			n += len(ch.pieces)
			walk(ch)
		}
	}
	walk(c)
	return n
}

// where says where the call belongs, for the report's "in" column: "#3"
// (made in a body of call #3, or by its call tree), "#3 source" (by
// pipeline #3's source goroutine), `task "request"` (under the program's
// own task), or "" for a call of its own.
func (c *call) where() string {
	switch {
	case c.parent != nil && c.role != "":
		return "#" + strconv.Itoa(c.parent.seq) + " " + strings.TrimPrefix(c.role, iterPrefix)
	case c.parent != nil:
		return "#" + strconv.Itoa(c.parent.seq)
	case c.userTask != "":
		return "task " + c.userTask
	}
	return ""
}

// noPieces says why a call ran no pieces of its own.
func (c *call) noPieces() string {
	switch {
	case c.kind == pipeCall:
		return "no par calls traced"
	case c.parent != nil && c.inPiece:
		return "inline: a nested call run on its caller's goroutine, inside a piece of #" + strconv.Itoa(c.parent.seq)
	case c.parent != nil && c.role != "":
		return "its bodies ran on goroutines of their own (Blocking): the pipeline's " + strings.TrimPrefix(c.role, iterPrefix)
	case c.parent != nil:
		return "inline: run on its caller within #" + strconv.Itoa(c.parent.seq)
	}
	return "run on the caller alone (a pool of parallelism 1, or no seat free), or on goroutines of its own (Blocking)"
}
