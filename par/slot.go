package par

import (
	"sync/atomic"
	"unsafe"

	"github.com/parloop/parloop/par/internal/box"
	"github.com/parloop/parloop/par/internal/counters"
	"github.com/parloop/parloop/par/internal/cut"
	"github.com/parloop/parloop/par/internal/deque"
	"github.com/parloop/parloop/par/internal/freelist"
	"github.com/parloop/parloop/par/internal/platform"
	"github.com/parloop/parloop/par/internal/sleep"
	"github.com/parloop/parloop/par/internal/splitdeque"
	"golang.org/x/sys/cpu"
)

// A slot is a seat at which tasks run: one of a pool's workers, or a guest
// seat lent to a caller from outside the pool for one call (seats.go).
// Owner-only fields (the private stack, the free lists, rng, tree,
// visiting, host, frame) are touched only by the seat's goroutine.
type slot struct {
	pool   *Pool
	id     int32 // workers: 0..n-1; guests: guestBase+i
	worker bool
	cpu    int // the CPU the worker is placed on; -1 for guests

	tasks splitdeque.Deque[task] // its deque and private stack of newest forks (par/internal/splitdeque)

	sleeper sleep.Sleeper // its wake token (par/internal/sleep)

	cuts cut.Stack[task] // the rests of the running pieces, offered while a grain runs (par/internal/cut)
	_    cpu.CacheLinePad

	// Guest seats only: the pool and call tree the seat is held for
	// (seats.go).
	guestPool atomic.Pointer[Pool]
	seatTree  atomic.Uint64

	free  freelist.List[task]   // free tasks homed here, and those freed here by other slots (below)
	joins freelist.Linked[join] // free joins, likewise
	rng   uint64
	calls uint64 // guests: calls made on the seat, to pace resize checks and name trees

	// tree is the running task's call tree (0: none); a waiting slot runs
	// only its tree's tasks (steal.go), and a quiet one none (stop.go).
	tree  uint64
	quiet bool

	// spawning is the spawned task running on the seat, the innermost if
	// one runs another while it waits (scope.go).
	spawning *task

	// unflushedPieces counts pieces and forks run and not yet in
	// stats.pieces: an atomic add would be a fifth of the fork fast path.
	unflushedPieces int64
	busySince       int64 // a worker's busy stretch began (ticks), 0 if idle (worker.go)

	// A body's call on another pool holds a guest seat (visiting), which
	// its bodies' nested calls must find; that seat remembers its host.
	visiting, host *slot

	frame *frame[none]   // a recycled range frame (frame.go)
	stats *counters.Seat // the worker's own counters, or its pool's callers' (par/internal/counters)
}

func newSlot(p *Pool, id int32, worker bool) *slot {
	s := &slot{
		pool:   p,
		id:     id,
		worker: worker,
		cpu:    -1,
		rng:    uint64(id)*0x9e3779b97f4a7c15 + 1,
		stats:  new(counters.Seat),
	}
	s.tasks.Init(deque.NewRecycled[task](64))
	s.sleeper.Init(worker)
	return s
}

// rand returns a pseudo-random number (xorshift64*), owner only.
func (s *slot) rand() uint64 {
	x := s.rng
	x ^= x >> 12
	x ^= x << 25
	x ^= x >> 27
	s.rng = x
	return x * 0x2545f4914f6cdd1d
}

// flushStats adds busy ticks to the busy time, and publishes the
// owner-only piece count.
func (s *slot) flushStats(busy int64) {
	s.stats.BusyNs.Add(platform.TicksToNs(busy))
	if s.unflushedPieces != 0 {
		s.stats.Pieces.Add(s.unflushedPieces)
		s.unflushedPieces = 0
	}
}

// A slot's tasks are a split deque: private forks, shared on demand
// (par/internal/splitdeque, which has the protocol).

// pushFork pushes a fork's task t, or a spawned one (scope.go), that the
// fast path (s.tasks.Push, inlined where t is made) did not keep private,
// and shares what the split deque says to. A spawned task grows the
// private stack past splitdeque.Max at any parallelism: a scope's burst
// of spawns stays private, where sibling runs (runSpawned) take it, until
// a thief asks (docs/DESIGN.md).
func (s *slot) pushFork(t *task) {
	for {
		k, pushed := s.tasks.PushShare(t, s.pool.solo.Load(), t.kind == taskSpawn && !s.pool.exp.NoSpawnGrow)
		if k > 0 {
			s.share(k)
		}
		if pushed {
			return
		}
	}
}

// pushPublic pushes t where thieves can take it, after sharing everything
// private (P1), and clears want. The caller notifies.
func (s *slot) pushPublic(t *task) {
	if n := s.tasks.Private(); n > 0 {
		s.share(n)
	}
	s.tasks.PushPublic(t)
}

// popLocal pops s's newest task: private first, then the deque (P1).
func (s *slot) popLocal() *task {
	t, k := s.tasks.PopPrivate()
	if t == nil {
		return s.tasks.Public().Pop()
	}
	if k > 0 {
		s.share(k)
	}
	return t
}

// share stamps the k oldest private tasks, moves them to the deque, and
// notifies.
func (s *slot) share(k int) {
	labels := platform.ProfLabel()
	for _, t := range s.tasks.Oldest(k) {
		if t.kind != taskSpawn { // stamped when spawned, perhaps under another tree than s's now
			s.stamp(t, labels)
		}
	}
	s.tasks.Share(k)
	s.pool.notify()
}

// stamp gives a fork's task, as it is offered, what a thief needs to run
// it: its call tree (steal.go) and pprof labels; the fast path (a private
// push) reads neither. The labels are the goroutine's at the offer: a
// pprof.Do entered between the fork and the offer gives a thief the inner
// labels. The tree cannot have changed: a slot runs only its own tree's
// tasks while any of its forks are outstanding.
func (s *slot) stamp(t *task, labels unsafe.Pointer) {
	if t.tree.Load() != s.tree { // a recycled task usually has it already: no store, no fence
		t.tree.Store(s.tree)
	}
	if t.labels != labels {
		t.labels = labels
	}
}

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

	// A spawned task: its scope and function, one of fn and efn; the
	// tasks counted in it, in its run (spawned, its runner's) and not yet
	// finished (open), and the task it is counted in (nil: the scope's
	// pending) (scope.go).
	scope   *scope
	fn      func()
	efn     func() error
	open    atomic.Int64
	spawned int64
	level   int32 // how many tasks up it is from one counted in pending
	up      *task

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

// clearBoxes lets the GC have what the boxes of free tasks hold (fork.go,
// of.go, scope.go: functions, arguments, results), keeping the boxes for
// the next call; called when the slot goes idle (a park, a guest leaving
// its seat). It clears every free task, those beyond freelist.Keep too,
// which it then hands over as a spare list (a grown private stack may
// point to them): another slot may take that list and keep it for as long
// as it runs, and what a box held would stay reachable that long. Beyond
// the Keep tasks it keeps, that costs one clear per task handed over.
func (s *slot) clearBoxes() {
	s.tasks.Trim() // a private stack grown at parallelism 1
	for _, t := range s.free.All() {
		if t.box != nil {
			t.run.Clear(t.box)
		}
	}
	s.free.Idle(&spareTasks) // spareTasks lets the GC have the spares if nobody takes them
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
