// Package cut implements the cut points of the parloop scheduler: a slot's
// offers of the rests of the pieces it runs, each open while a grain of its
// piece runs, from which an idle thief may cut part of the rest.
//
// Around every grain that leaves a rest of its piece the owner opens a cut
// point, and a thief that found every deque empty may cut the upper half of
// the rest (par's cutFrom, offer.go) once the grain has run cutAgeNs. Every
// grain, whatever its estimate: a recursion's children, most of them leaves
// and one a deep subtree, are mispriced by the grains so far, and what a
// nested call's rest holds is offered nowhere else while the outer grain
// runs. A grain is timed from after its point opens to before it closes, so
// that the pacer sizes grains by their work alone (where atomics are slow,
// as under the race detector, the point's cost would otherwise shrink
// grains to one index). A slot's points are a [Stack]: a nested call's
// grain opens the next (up to [Max] deep), and closes it before the outer
// grain ends. The first [Segment] points are the stack's own; deeper ones
// are in segments of as many, allocated by the owner the first time its
// recursion goes that deep and kept, so that a slot pays memory for the
// depth its calls reach, and a deep recursion (thousands of levels, each a
// call over a node's children) offers every level's rest. A thief tries
// them oldest first, as Cilk steals the oldest continuation: the outermost
// rest is the largest, and once thieves have cut it away, a deeper one is
// what is left to take (a deep recursion's inner calls, while its outer
// grains run for long). The protocol, for each point, whose piece is t and
// whose grain ends before index next (the grain starting at lo):
//
//	owner, open:  write t, lo, next, opened; state.Store(Open) (Stack.Open).
//	owner, grain: run [cur, next), touching nothing of t.
//	owner, close: CAS(Open, Closed), spinning while the state is Cutting
//	              (after 64 tries it yields, for a thief descheduled
//	              mid-cut) (Stack.Close). Afterwards t.hi, t.parent and
//	              t.side are the owner's again, and may have changed.
//	thief:        CAS(Open, Cutting) (Stack.Claim); then par's cutAt: if
//	              the grain has run cutAgeNs, the call is of the pool and
//	              of the thief's tree (the frame's: a recycled first piece
//	              may carry another's), and the rest is worth a split,
//	              detach its upper half under a new join; state.Store(Spent)
//	              if no rest is left after the grain, else
//	              state.Store(Open) (Point.Release).
//
// A Spent point stays open to the owner (closing takes Open or Spent to
// Closed) but thieves pass it: nothing can be added to a rest while its
// grain runs, so the point has nothing more to give. Without it, every
// thief would write every exhausted point of every slot on each look, and
// a deep recursion's slots hold dozens of them, their rests cut away while
// the grains below run.
//
// Thieves also skip the Spent points at the bottom of a stack without
// loading them: the stack's live word holds an index below which every
// point is Spent, and an epoch. In a recursion hundreds of levels deep,
// where thieves have cut away every level's rest but the deepest few,
// scanning from the bottom cost each look hundreds of loads of points the
// owner writes. The protocol, with w = live.Load() at a scan's start:
//
//	thief: scanning from w's index, on meeting the first point that is not
//	       Spent at index i > w's: CAS(w, w with index i) (Stack.Claim).
//	owner: on closing a Spent point at index i: store live with index
//	       min(w's, i) and the epoch plus one (Stack.Close).
//
// Invariant: every point below live's index is Spent. Only the owner ends
// a point's Spent state, by closing it, and closing one stores a new
// epoch, so that a thief whose scan saw that point Spent before the close
// fails its CAS, whenever the owner reopens the point; an Open point is
// never below live, so a scan from live's index claims what a scan from
// the bottom would. Closing an Open point leaves live alone: no thief
// passed it. The epoch has 48 bits; a thief would have to stall between
// its load and its CAS across 2^48 closes of Spent points for its CAS to
// succeed on a stale word.
//
// Only the thief that moved the state from Open to Cutting writes t, and
// the owner reads t only after its CAS from Open or Spent to Closed, which
// cannot succeed while the state is Cutting; the thief's writes happen
// before its Store(Open) or Store(Spent), which the owner's CAS observes
// (sync/atomic is sequentially consistent), and likewise the owner's writes
// of the point before the thief's CAS. t is not freed while the point is
// open: the owner frees a piece only after closing it, and a grain that
// panics closes it first (par's iterate). The cut join is an ordinary
// split's, so reductions still combine in index order. The owner opens and
// closes its points in stack order (a grain nests inside the grain that
// opened the point below), so the open points are a prefix of the stack,
// which thieves scan up to the first Closed one (one that closes meanwhile
// only hides the rest a while).
package cut

import (
	"runtime"
	"sync/atomic"

	"github.com/parloop/parloop/par/internal/platform"
)

// State is the state of a cut point.
type State int32

// The states of a cut point.
const (
	Closed State = iota
	Open
	Cutting
	Spent // open, with no rest left to cut
)

// Max is how deep a slot's points go: deeper grains open none. Segment is
// how many are allocated at once: the stack's own, then each segment.
const (
	Segment = 64
	Max     = 32 * Segment
)

// A Point is an offer of the rest of a piece *T after its running grain.
// Its fields are the owner's to write, in [Stack.Open], and a thief's to
// read once it has claimed the point.
type Point[T any] struct {
	state  atomic.Int32
	t      *T    // the piece, while open; owner-written while closed
	lo     int64 // the running grain's first index
	next   int64 // the first index after the running grain
	opened int64 // ticks at the grain's start
}

// Piece returns the piece whose rest p offers; a thief calls it only while
// it holds p.
func (p *Point[T]) Piece() *T { return p.t }

// Lo returns the first index of the grain running while p is open.
func (p *Point[T]) Lo() int64 { return p.lo }

// Next returns the first index after the grain running while p is open.
func (p *Point[T]) Next() int64 { return p.next }

// Opened returns the tick at which the grain running while p is open
// started.
func (p *Point[T]) Opened() int64 { return p.opened }

// State returns p's state as of now.
func (p *Point[T]) State() State { return State(p.state.Load()) }

// Release hands p, claimed by [Stack.Claim], back to its owner: Spent if
// no rest is left after the running grain, else Open.
func (p *Point[T]) Release(spent bool) {
	if spent {
		p.state.Store(int32(Spent))
	} else {
		p.state.Store(int32(Open))
	}
}

// A Stack is a slot's cut points, the oldest first. Open and Close are its
// owner's; Claim is any thief's.
//
// A segment, once stored in more, stays there for the stack's life: a
// thief that loads it reads points that are only ever reused, never freed,
// and its points start Closed (zero), so a thief that loads a segment
// before the owner opens a point in it stops there, as at any Closed point.
type Stack[T any] struct {
	points [Segment]Point[T]
	more   [Max/Segment - 1]atomic.Pointer[[Segment]Point[T]]
	n      int           // open points (owner only)
	live   atomic.Uint64 // epoch<<liveBits | the index below which every point is Spent (see the package comment)
}

// liveBits is the bits of a live word's index (Max fits), liveMask their
// mask.
const (
	liveBits = 16
	liveMask = 1<<liveBits - 1
)

func liveIndex(w uint64) int { return int(w & liveMask) }

// point returns s's point i, or nil if its segment was never allocated.
func (s *Stack[T]) point(i int) *Point[T] {
	if i < Segment {
		return &s.points[i]
	}
	seg := s.more[i/Segment-1].Load()
	if seg == nil {
		return nil
	}
	return &seg[i%Segment]
}

// Open offers the rest of piece t after its grain [lo, next), which starts
// at tick opened, on s's next point, and reports whether it did (not when
// Max points are open).
func (s *Stack[T]) Open(t *T, lo, next, opened int64) bool {
	var p *Point[T]
	switch {
	case s.n < Segment:
		p = &s.points[s.n]
	case s.n == Max:
		return false
	default:
		if p = s.point(s.n); p == nil {
			seg := new([Segment]Point[T])
			s.more[s.n/Segment-1].Store(seg)
			p = &seg[0]
		}
	}
	s.n++
	p.t, p.lo, p.next, p.opened = t, lo, next, opened
	p.state.Store(int32(Open))
	return true
}

// Close closes s's top point if piece t opened it, waiting while a thief
// holds it; afterwards t is the owner's again.
func (s *Stack[T]) Close(t *T) {
	if s.n == 0 || s.point(s.n-1).t != t {
		return
	}
	s.n--
	p := s.point(s.n)
	for i := 0; !p.state.CompareAndSwap(int32(Open), int32(Closed)); i++ {
		if p.state.CompareAndSwap(int32(Spent), int32(Closed)) {
			w := s.live.Load() // a new epoch: a thief that passed p Spent fails its CAS
			s.live.Store((w>>liveBits+1)<<liveBits | uint64(min(liveIndex(w), s.n)))
			break
		}
		if i < 64 {
			platform.Pause(1)
		} else {
			runtime.Gosched() // the thief was descheduled mid-cut and may need this P
		}
	}
	p.t = nil
}

// Len returns the number of open points (owner only).
func (s *Stack[T]) Len() int { return s.n }

// At returns s's point i, 0 the oldest, or nil if no point that deep was
// ever opened.
func (s *Stack[T]) At(i int) *Point[T] { return s.point(i) }

// Claim claims for the caller the oldest Open point of s at index i or
// above, passing Spent ones and stopping at the first Closed one: it moves
// the point from Open to Cutting and returns it with the index to resume
// the scan at, or nil. The caller releases it by [Point.Release]. A scan
// starts at live's index at the lowest, and moves it past the Spent points
// it found there (the package comment).
func (s *Stack[T]) Claim(i int) (*Point[T], int) {
	w := s.live.Load()
	from := liveIndex(w)
	run := i <= from // the scan starts at live's index: Spent points from it on advance it
	for i = max(i, from); i < Max; i++ {
		p := s.point(i)
		if p == nil {
			break
		}
		st := State(p.state.Load())
		if st == Spent {
			continue
		}
		if run && i > from {
			s.live.CompareAndSwap(w, w&^liveMask|uint64(i))
		}
		run = false
		switch st {
		case Closed:
			return nil, Max
		case Open:
			if p.state.CompareAndSwap(int32(Open), int32(Cutting)) {
				return p, i + 1
			}
		}
	}
	return nil, Max
}
