package par

import (
	"sync/atomic"
	"unsafe"

	"github.com/parloop/parloop/par/internal/box"
	"github.com/parloop/parloop/par/internal/freelist"
)

// A task is what deques hold: a piece of a loop's index range, the second
// function of a fork, or a task a scope spawned.
//
// Ownership: a task belongs to whoever took it out of a deque (a pop, or a
// winning steal), and is freed only by the one party that knows nobody else
// can touch it: a piece by the slot that ran it (its result is in its join
// by then); a fork's task by its forker, at once if it popped the task
// back, else after the thief, which never touches it after, set done; a
// spawned task by whoever finds it done, its run and every task counted
// in it finished (scope.go).
type task struct {
	kind uint8
	side uint8 // which half of its parent join a piece is: 0 left, 1 right

	// tree is the task's call tree (steal.go), written by its pusher before
	// the push, read by thieves before they claim it.
	tree   atomic.Uint64
	labels unsafe.Pointer // its pprof labels

	// A piece: [lo, hi) of its call's frame, and the join it arrives at.
	lo, hi int
	frame  runner
	parent *join

	// A fork's task: run calls g on its argument in box, leaving the
	// result there (fork.go, par/internal/box), or a panic in pe, before
	// done is set.
	run    box.Runner
	box    unsafe.Pointer
	done   atomic.Bool
	waiter *slot        // the slot waiting for done; read by the runner before done is set
	thief  atomic.Int32 // id+1 of the slot that stole it, 0 if not stolen
	pe     *PanicError

	// A spawned task: its scope and function, one of fn and efn; its own
	// run and the tasks counted in it not yet finished, once it counts any
	// (counting, written by its runner), and the task it is counted in
	// (nil: the scope's pending) (scope.go).
	scope    *scope
	fn       func()
	efn      func() error
	open     atomic.Int32
	counting bool
	level    int32 // how many tasks up it is from one counted in pending
	up       *task

	home  *slot // the slot whose free list it returns to
	rnext *task // link in home's remote free list
}

const (
	taskPiece uint8 = iota
	taskFork
	taskSpawn
)

// A join is where the two halves of a split piece meet: the last to finish
// (pending drops to 0) carries on upward (frame.go, arrive).
type join struct {
	pending atomic.Int32
	side    uint8
	has     [2]bool // a reduction's halves delivered a value (frame.go)
	parent  *join
	home    *slot // the slot whose free list it returns to
	next    *join // free list link (local or remote)
}

// Free lists (par/internal/freelist): a task or join returns to its home,
// the slot that allocated it (newTask rehomes a spare from another's).
var spareTasks freelist.Spares[task]

// newTask returns a task homed at s, cleared but for a fork's run and box
// (fork.go reuses a box of the right type).
func (s *slot) newTask() *task {
	t, ok := s.free.Get()
	if !ok {
		if t = s.refill(); t == nil {
			return &task{home: s}
		}
	}
	if t.home != s { // a spare from another slot's hand-over
		t.home = s
	}
	return t
}

// refill fills s's empty task list from its remote list, or else from a
// spare list, and takes a task off it (nil: none).
func (s *slot) refill() *task {
	for t := s.free.TakeRemote(); t != nil; t = s.free.PutNext(t, &t.rnext) {
	}
	s.free.TakeSpares(&spareTasks) // rehomed as newTask takes them
	t, _ := s.free.Get()
	return t
}

// recycleTask puts a task homed at s back on s's free list.
func (s *slot) recycleTask(t *task) { s.free.Put(t) }

// freeTask clears a piece or a spawned task and sends it home. The caller must own t. It
// clears field by field: a thief may still load t.tree through a stale
// deque slot (StealIf), and that word is only ever written atomically.
func (s *slot) freeTask(t *task) {
	home := t.home
	t.frame, t.parent, t.labels = nil, nil, nil
	t.scope, t.fn, t.efn = nil, nil, nil
	if home == s {
		s.free.Put(t)
		return
	}
	home.free.PushRemote(t, &t.rnext)
}

// dropBoxes lets the GC have the boxes free fork tasks keep (fork.go), with
// their g and argument, and the tasks beyond freelist.Keep, which it hands
// over as a spare list, and which a grown private stack may point to;
// called when the slot goes idle (a park, a guest leaving its seat).
func (s *slot) dropBoxes() {
	s.tasks.Trim() // a private stack grown at parallelism 1
	for _, t := range s.free.Kept() {
		if t.box != nil {
			t.run, t.box = nil, nil
		}
	}
	// The spares keep their boxes, untouched: spareTasks lets the GC have
	// them, boxes and all, if nobody takes them.
	s.free.Idle(&spareTasks)
}

// newJoin returns a cleared join homed at s.
func (s *slot) newJoin() *join {
	j := s.joins.First()
	if j == nil {
		if j = s.joins.TakeRemote(); j == nil {
			return &join{home: s}
		}
	}
	s.joins.Pop(&j.next)
	return j
}

// freeJoin clears j and sends it home. The caller must be j's last arriver.
func (s *slot) freeJoin(j *join) {
	home := j.home
	*j = join{home: home}
	if home == s {
		s.joins.Push(j, &j.next)
		return
	}
	home.joins.PushRemote(j, &j.next)
}
