package par

import (
	"sync/atomic"
	"unsafe"

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

	free  freelist.List[task]   // free tasks homed here, and those freed here by other slots (task.go)
	joins freelist.Linked[join] // free joins, likewise
	rng   uint64
	calls uint64 // guests: calls made on the seat, to pace resize checks and name trees

	// tree is the running task's call tree (0: none); a waiting slot runs
	// only its tree's tasks (steal.go).
	tree uint64

	// spawning is the spawned task running on the seat, the innermost if
	// one runs another while it waits (scope.go).
	spawning *task

	// unflushedPieces counts pieces and forks run and not yet in
	// stats.pieces: an atomic add would be a fifth of the fork fast path.
	unflushedPieces int64

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

// flushStats publishes the owner-only piece count.
func (s *slot) flushStats() {
	if s.unflushedPieces != 0 {
		s.stats.Pieces.Add(s.unflushedPieces)
		s.unflushedPieces = 0
	}
}

// A slot's tasks are a split deque: private forks, shared on demand
// (par/internal/splitdeque, which has the protocol).

// pushFork pushes a fork's task t, or a spawned one (scope.go), that the
// fast path (s.tasks.Push, inlined where t is made) did not keep private,
// and shares what the split deque says to.
func (s *slot) pushFork(t *task) {
	for {
		k, pushed := s.tasks.PushShare(t, s.pool.solo.Load())
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
