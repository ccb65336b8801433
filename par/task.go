package par

import (
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/parloop/parloop/par/internal/box"
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

// Free lists. Each slot keeps the tasks and joins it allocated and got
// back, so that forks, splits and spawns allocate nothing in the steady
// state. Every task and join returns to its home, the slot that allocated
// it: from another slot by a push onto the home's remote list (a lock-free
// stack: CAS to push, and the owner takes the whole list with one Swap, so
// there is no ABA), which the owner drains when its own runs dry. The task
// list is a slice used as a stack: a fork takes the top task and its join
// puts it back there, so the steady state writes no pointer (a GC write
// barrier while marking).
//
// The task list grows as far as a burst needs (a scope's body that spawns
// a thousand tasks before one runs needs a thousand at once). When the slot
// goes idle it keeps maxFree and hands the rest, as a spare list, to
// spareLists, from which a slot whose list runs dry takes one (once until
// it next goes idle): a burst of spawns allocates only the first time, and
// the GC can still have the spares of a program that no longer spawns.
const maxFree = 64

// spareList is free tasks handed over by a slot that went idle.
type spareList struct{ tasks []*task }

var spareLists sync.Pool

// newTask returns a task homed at s, cleared but for a fork's run and box
// (fork.go reuses a box of the right type).
func (s *slot) newTask() *task {
	n := len(s.free)
	if n == 0 {
		if n = s.refill(); n == 0 {
			return &task{home: s}
		}
	}
	t := s.free[n-1]
	s.free = s.free[:n-1]
	if t.home != s { // a spare from another slot's hand-over
		t.home = s
	}
	return t
}

// refill fills s's empty task list from its remote list, or else from a
// spare list, and returns its length.
func (s *slot) refill() int {
	if s.remoteTasks.Load() != nil {
		for t := s.remoteTasks.Swap(nil); t != nil; {
			next := t.rnext
			t.rnext = nil
			s.recycleTask(t)
			t = next
		}
	}
	if len(s.free) == 0 && !s.sparesTried {
		s.sparesTried = true
		if sp, _ := spareLists.Get().(*spareList); sp != nil {
			s.free = append(s.free, sp.tasks...) // rehomed as newTask takes them
			clear(sp.tasks)
			sp.tasks = sp.tasks[:0]
			s.spares = sp // reused when s next hands spares over
		}
	}
	return len(s.free)
}

// recycleTask puts a task homed at s back on s's free list.
func (s *slot) recycleTask(t *task) {
	n := len(s.free)
	if n == cap(s.free) {
		s.free = append(s.free, t)
		return
	}
	s.free = s.free[:n+1]
	if s.free[n] != t {
		s.free[n] = t
	}
}

// freeTask clears a piece or a spawned task and sends it home. The caller must own t. It
// clears field by field: a thief may still load t.tree through a stale
// deque slot (StealIf), and that word is only ever written atomically.
func (s *slot) freeTask(t *task) {
	home := t.home
	t.frame, t.parent, t.labels = nil, nil, nil
	t.scope, t.fn, t.efn = nil, nil, nil
	if home == s {
		s.recycleTask(t)
		return
	}
	pushRemote(&home.remoteTasks, t, &t.rnext)
}

// dropBoxes lets the GC have the boxes free fork tasks keep (fork.go), with
// their g and argument, and the tasks beyond maxFree, which it hands over
// as a spare list, and which a grown private stack may point to; called
// when the slot goes idle (a park, a guest leaving its seat).
func (s *slot) dropBoxes() {
	if len(s.priv) > privMax && s.nPriv <= privMax { // grown at parallelism 1 (share.go)
		clear(s.priv[privMax:])
	}
	for _, t := range s.free[:min(len(s.free), maxFree)] {
		if t.box != nil {
			t.run, t.box = nil, nil
		}
	}
	if n := len(s.free); n > maxFree {
		// The spares keep their boxes, untouched: spareLists lets the GC
		// have them, boxes and all, if nobody takes them.
		sp := s.spares
		if sp == nil {
			sp = new(spareList)
		}
		sp.tasks = append(sp.tasks, s.free[maxFree:]...)
		clear(s.free[maxFree:cap(s.free)]) // the stale entries too: they may point at spares
		s.free = s.free[:maxFree]
		spareLists.Put(sp)
		s.spares = nil
	}
	s.sparesTried = false
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

// freeJoin clears j and sends it home. The caller must be j's last arriver.
func (s *slot) freeJoin(j *join) {
	home := j.home
	if home == s {
		*j = join{home: home, next: s.freeJoins}
		s.freeJoins = j
		return
	}
	*j = join{home: home}
	pushRemote(&home.remoteJoins, j, &j.next)
}

// pushRemote pushes x, linked by next, onto a slot's remote free list.
func pushRemote[T any](list *atomic.Pointer[T], x *T, next **T) {
	for {
		old := list.Load()
		*next = old
		if list.CompareAndSwap(old, x) {
			return
		}
	}
}
