package par

import (
	"sync"
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

// Free lists. Each slot keeps up to maxFree tasks and joins of its own, so
// that forks and splits allocate nothing. Tasks and joins migrate: a split
// allocates on the slot that splits and frees on the slot that finishes
// last, so one slot's list can run dry while another's overflows. The
// overflow goes to a shared sync.Pool (per-P caches, no lock on the fast
// path), where the dry side finds it.
const maxFree = 64

var (
	sharedTasks = sync.Pool{New: func() any { return new(task) }}
	sharedJoins = sync.Pool{New: func() any { return new(join) }}
)

// The task free list is an array used as a stack, not a linked list: a
// fork takes the task at the top and its join puts the same task back in
// the same place, so in the steady state the free list costs no pointer
// write (each one has a GC write barrier while the collector marks). Entries
// above the top are stale and only keep recycled tasks alive.

// newTask returns a cleared task.
func (s *slot) newTask() *task {
	if s.nFreeTasks == 0 {
		return sharedTasks.Get().(*task)
	}
	s.nFreeTasks--
	return s.freeTasks[s.nFreeTasks]
}

// recycleTask puts a cleared task on the free list.
func (s *slot) recycleTask(t *task) {
	if s.nFreeTasks == maxFree {
		sharedTasks.Put(t)
		return
	}
	if s.freeTasks[s.nFreeTasks] != t {
		s.freeTasks[s.nFreeTasks] = t
	}
	s.nFreeTasks++
}

// freeTask clears a range task and recycles it. The caller must own t.
func (s *slot) freeTask(t *task) {
	*t = task{}
	s.recycleTask(t)
}

// newJoin returns a cleared join.
func (s *slot) newJoin() *join {
	j := s.freeJoins
	if j == nil {
		return sharedJoins.Get().(*join)
	}
	s.freeJoins = j.next
	s.nFreeJoins--
	j.next = nil
	return j
}

// freeJoin clears j and recycles it. The caller must be j's last arriver.
func (s *slot) freeJoin(j *join) {
	if s.nFreeJoins >= maxFree {
		*j = join{}
		sharedJoins.Put(j)
		return
	}
	*j = join{next: s.freeJoins}
	s.freeJoins = j
	s.nFreeJoins++
}

// newDeque returns the deque of a slot. Tasks are recycled (free lists), so
// the deque need not clear popped slots, and pushing a recycled task into the
// slot that already holds it costs no store (see deque.NewRecycled).
func newDeque() *deque.Deque[task] { return deque.NewRecycled[task](64) }
