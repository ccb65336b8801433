package par

import (
	"sync/atomic"

	"github.com/parloop/parloop/par/internal/deque"
)

// A task is what deques hold: either a piece of an index range or one
// function of an Invoke.
//
// Ownership: a task belongs to whoever took it out of a deque (Pop or a
// winning Steal); tasks are recycled through per-slot free lists, so a task
// is freed only by the one party that knows nobody else can touch it:
//   - a range piece, by the slot that finishes running it (its result has
//     been handed to its join by then);
//   - an Invoke function, by the slot that pushed it, after done is set. The
//     runner never touches the task after done.Store(true).
type task struct {
	kind uint8
	side uint8 // which half of its parent join a range piece is: 0 left, 1 right

	// range piece
	lo, hi int
	frame  pieceRunner
	parent *join

	// Invoke function
	fn     func()
	done   atomic.Bool  // set by the runner when fn has returned
	waiter *slot        // slot waiting for done; read by the runner before done is set
	thief  atomic.Int32 // id+1 of the slot that stole it, 0 if not stolen
	pe     *PanicError  // fn's panic, written before done is set

	next *task // free list link
}

const (
	taskRange uint8 = iota
	taskFunc
)

// pieceRunner runs range pieces of one call. Each verb's frame implements it.
type pieceRunner interface {
	runPiece(s *slot, t *task)
	noteThief(id int32) // a piece of this call was stolen by slot id
}

// A join is the meeting point of the two halves of a split range. The half
// that finishes last (pending drops to 0) carries on with the parent's work:
// it combines the results and arrives at the parent join, and so on up to the
// root, where the call's frame is completed. Nobody waits at a join.
type join struct {
	pending atomic.Int32
	parent  *join
	side    uint8
	next    *join // free list link
}

// newTask returns a cleared task from the slot's free list.
func (s *slot) newTask() *task {
	t := s.freeTasks
	if t == nil {
		return new(task)
	}
	s.freeTasks = t.next
	t.next = nil
	return t
}

// freeTask returns t to the slot's free list. The caller must own t.
func (s *slot) freeTask(t *task) {
	*t = task{next: s.freeTasks}
	s.freeTasks = t
}

func (s *slot) newJoin() *join {
	j := s.freeJoins
	if j == nil {
		return new(join)
	}
	s.freeJoins = j.next
	j.next = nil
	return j
}

func (s *slot) freeJoin(j *join) {
	*j = join{next: s.freeJoins}
	s.freeJoins = j
}

// newDeque returns the deque of a slot.
func newDeque() *deque.Deque[task] { return deque.New[task](64) }
