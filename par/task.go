package par

import (
	"sync"
	"sync/atomic"
	"unsafe"
)

// A task is what deques hold: a piece of a loop's index range, the second
// function of a fork, or a task a scope spawned.
//
// Ownership: a task belongs to whoever took it out of a deque (a pop, or a
// winning steal), and is freed only by the one party that knows nobody else
// can touch it: a piece by the slot that ran it (its result is in its join
// by then); a fork's task by its forker, at once if it popped the task
// back, else after the thief, which never touches it after, set done.
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
	// result there (fork.go), or a panic in pe, before done is set.
	run    forkRunner
	box    unsafe.Pointer
	done   atomic.Bool
	waiter *slot        // the slot waiting for done; read by the runner before done is set
	thief  atomic.Int32 // id+1 of the slot that stole it, 0 if not stolen
	pe     *PanicError

	// A spawned task: its scope and function, one of fn and efn (scope.go).
	scope *scope
	fn    func()
	efn   func() error

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

// Free lists. Each slot keeps up to maxFree tasks and joins, so that forks
// and splits allocate nothing in the steady state. Every task and join
// returns to its home, the slot that allocated it: from another slot by a
// push onto the home's remote list (a lock-free stack: CAS to push, and the
// owner takes the whole list with one Swap, so there is no ABA), which the
// owner drains when its own runs dry. The task list is an array used as a
// stack: a fork takes the top task and its join puts it back there, so the
// steady state writes no pointer (a GC write barrier while marking).
const maxFree = 64

// newTask returns a task homed at s, cleared but for a fork's run and box
// (fork.go reuses a box of the right type).
func (s *slot) newTask() *task {
	if s.nFreeTasks == 0 {
		if s.remoteTasks.Load() != nil {
			for t := s.remoteTasks.Swap(nil); t != nil; {
				next := t.rnext
				t.rnext = nil
				s.recycleTask(t)
				t = next
			}
		}
		if s.nFreeTasks == 0 {
			if s.spares == nil && !s.sparesTried {
				s.spares, _ = spareLists.Get().(*spareList)
				s.sparesTried = true
			}
			if sp := s.spares; sp != nil && len(sp.tasks) > 0 {
				n := len(sp.tasks) - 1
				t := sp.tasks[n]
				sp.tasks[n] = nil
				sp.tasks = sp.tasks[:n]
				t.home = s
				return t
			}
			return &task{home: s}
		}
	}
	s.nFreeTasks--
	return s.freeTasks[s.nFreeTasks]
}

// Spare tasks. A scope's body that spawns a thousand tasks before one runs
// needs a thousand at once, beyond the free list: the tasks that find it
// full go to the slot's spare list, which the slot hands to spareLists when
// it goes idle and takes one from when it next needs a spare, so that a
// burst of spawns allocates only the first time, and the GC can still
// have the spares of a program that no longer spawns.
type spareList struct{ tasks []*task }

var spareLists sync.Pool

// recycleTask puts a task homed at s back on s's free list, or on its
// spare list if that is full.
func (s *slot) recycleTask(t *task) {
	if s.nFreeTasks == maxFree { // a spare keeps its box, as a free task does
		if s.spares == nil {
			if s.spares, _ = spareLists.Get().(*spareList); s.spares == nil {
				s.spares = new(spareList)
			}
		}
		s.spares.tasks = append(s.spares.tasks, t)
		return
	}
	if s.freeTasks[s.nFreeTasks] != t {
		s.freeTasks[s.nFreeTasks] = t
	}
	s.nFreeTasks++
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
// their g and argument, and the spare tasks; called when the slot goes idle
// (a park, a guest leaving its seat).
func (s *slot) dropBoxes() {
	if s.spares != nil {
		for _, t := range s.spares.tasks {
			t.run, t.box = nil, nil
		}
		spareLists.Put(s.spares)
		s.spares = nil
	}
	s.sparesTried = false
	for _, t := range s.freeTasks[:s.nFreeTasks] {
		if t.box != nil {
			t.run, t.box = nil, nil
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
