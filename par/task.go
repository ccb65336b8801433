package par

import (
	"sync/atomic"
	"unsafe"

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
//   - an Invoke function, by the slot that pushed it: at once if it pops the
//     task back (it then runs the function itself), else after the thief
//     has set done. A thief never touches the task after done.Store(true).
type task struct {
	kind uint8
	side uint8 // which half of its parent join a range piece is: 0 left, 1 right

	// tree is the call tree the task belongs to (isolation, steal.go),
	// written by its pusher before the push and read by thieves before
	// they claim it; labels is the pprof label set it runs under
	// (labels.go).
	tree   atomic.Uint64
	labels unsafe.Pointer

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

	// Both and BothOf (both.go): fn is g, a func() B or a func(Y) B, and
	// value calls it as one. g's argument is in argWords if Y is a plain
	// value (a number or a bool), else boxed in argp; a thief leaves the
	// result likewise in resWords or boxed in resp, before done is set.
	value    valueRunner
	argWords [2]uint64
	argp     unsafe.Pointer
	resWords [2]uint64
	resp     unsafe.Pointer

	home  *slot // the slot whose free list it returns to
	rnext *task // link in home's remote free list
}

const (
	taskRange uint8 = iota
	taskFunc
	taskValue // a Both function with a result
)

// pieceRunner runs range pieces of one call. Each verb's frame implements it.
type pieceRunner interface {
	runPiece(s *slot, t *task)
	noteThief(id int32)      // a piece of this call was stolen by slot id
	splitJoin(s *slot) *join // a join of this call's kind, made on slot s (for a cut, cut.go)
}

// A join is the meeting point of the two halves of a split range. The half
// that finishes last (pending drops to 0) carries on with the parent's work:
// it combines the results and arrives at the parent join, and so on up to the
// root, where the call's frame is completed. Nobody waits at a join.
type join struct {
	pending atomic.Int32
	parent  *join
	side    uint8
	home    *slot // the slot whose free list it returns to
	next    *join // free list link (local or remote)
}

// Free lists. Each slot keeps up to maxFree tasks and joins, so that forks
// and splits allocate nothing in the steady state. Every task and join has
// a home, the slot that allocated it, and always returns there: a split
// allocates on the slot that splits, but the piece and the join are freed
// by whichever slot finishes last, often another one. Such a remote free
// pushes the object onto its home's remote list (a lock-free stack: CAS to
// push, and the owner takes the whole list with one Swap, so there is no
// ABA); the owner drains that list when its own runs dry. Remote frees
// happen only for stolen or split work, never on the fork fast path.
//
// The task free list is an array used as a stack, not a linked list: a
// fork takes the task at the top and its join puts the same task back in
// the same place, so in the steady state the free list costs no pointer
// write (each one has a GC write barrier while the collector marks). Entries
// above the top are stale and only keep recycled tasks alive.
const maxFree = 64

// newTask returns a cleared task homed at s.
func (s *slot) newTask() *task {
	if s.nFreeTasks == 0 {
		for t := s.remoteTasks.Swap(nil); t != nil; {
			next := t.rnext
			t.rnext = nil
			s.recycleTask(t)
			t = next
		}
		if s.nFreeTasks == 0 {
			return &task{home: s}
		}
	}
	s.nFreeTasks--
	return s.freeTasks[s.nFreeTasks]
}

// dropClosures clears the functions that free tasks still hold (see
// freeFuncTask), so that what they capture can be collected. Called when
// the slot goes idle: before a park and when a guest leaves its seat.
func (s *slot) dropClosures() {
	for _, t := range s.freeTasks[:s.nFreeTasks] {
		if t.fn != nil || t.value != nil || t.argp != nil { // most are clear already: no stores
			t.fn, t.value, t.argp = nil, nil, nil
		}
	}
}

// recycleTask puts a cleared task homed at s on s's free list (or leaves
// it to the GC when the list is full).
func (s *slot) recycleTask(t *task) {
	if s.nFreeTasks == maxFree {
		return
	}
	if s.freeTasks[s.nFreeTasks] != t {
		s.freeTasks[s.nFreeTasks] = t
	}
	s.nFreeTasks++
}

// freeTask clears a range task and sends it home. The caller must own t.
//
// It clears what keeps memory alive, field by field rather than by
// assigning a zero task: a thief may still load t.tree through a stale
// deque slot (StealIf), and that word is only ever written atomically. The
// other fields are written by whoever takes t next, before its push.
func (s *slot) freeTask(t *task) {
	home := t.home
	t.frame, t.parent, t.labels = nil, nil, nil
	if home == s {
		s.recycleTask(t)
		return
	}
	for {
		old := home.remoteTasks.Load()
		t.rnext = old
		if home.remoteTasks.CompareAndSwap(old, t) {
			return
		}
	}
}

// newJoin returns a cleared join homed at s.
func (s *slot) newJoin() *join {
	j := s.freeJoins
	if j == nil {
		j = s.remoteJoins.Swap(nil)
		if j == nil {
			return &join{home: s}
		}
	}
	s.freeJoins = j.next
	j.next = nil
	return j
}

// freeJoin clears j and sends it home. The caller must be j's last
// arriver.
func (s *slot) freeJoin(j *join) {
	home := j.home
	if home == s {
		*j = join{home: home, next: s.freeJoins}
		s.freeJoins = j
		return
	}
	*j = join{home: home}
	for {
		old := home.remoteJoins.Load()
		j.next = old
		if home.remoteJoins.CompareAndSwap(old, j) {
			return
		}
	}
}

// newDeque returns the deque of a slot. Tasks are recycled (free lists), so
// the deque need not clear popped slots, and pushing a recycled task into the
// slot that already holds it costs no store (see deque.NewRecycled).
func newDeque() *deque.Deque[task] { return deque.NewRecycled[task](64) }
