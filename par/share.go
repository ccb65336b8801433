package par

import (
	"unsafe"

	"github.com/parloop/parloop/par/internal/platform"
)

// Private forks and sharing on demand (after Lace's split deque: van Dijk
// and van de Pol, 2014). A fork's task may go on its slot's private stack,
// which thieves never read, instead of the deque, whose fenced push and pop
// cost as much as the rest of a fork.
//
// Invariant P1: the slot's tasks form one stack; the deque holds the
// oldest, the private stack the newest. Sharing moves the oldest private
// tasks to the deque's bottom, in order; a split piece, which must be
// stealable at once, first shares everything private (pushPublic). So the
// owner's pops (private first, then the deque) return its tasks newest
// first, which fork.go's take relies on.
//
// Invariant P2: a slot that holds tasks offers at least one to thieves
// (except at parallelism 1). A fork stays private only if the deque is
// non-empty and no thief has asked; otherwise it shares the oldest half of
// the private stack, the new task included when nothing else is private:
// in a recursion, nearly every fork stays private.
//
// Asking. A thief that finds a deque empty sets its want flag (ask); the
// owner loads it on every fork and private pop, and shares half when it is
// set. Thieves store want only when they read it false, and the owner
// clears it only when it shares, so a spinning thief does not trade the
// cache line with the owner on every fork. want, alone on its cache line,
// is the only word here two threads touch, and needs no ordering: a stale
// read delays a share to the next fork or pop, and a share publishes
// through the deque.
//
// No work is lost and no sleeper stranded: the owner runs its private tasks
// itself in any case, and every share is a deque push followed by notify
// (par/internal/sleep). The price of private forks: a worker that goes idle while
// the owner runs a leaf without forking waits for its next fork or pop.

// privMax is the private stack's capacity; a fork that finds it full
// shares the oldest half first, except at parallelism 1, where nobody
// would take them: the stack grows instead (until the slot goes idle), so
// that a burst of spawns, or forks nested deeper than privMax, never pays
// for the deque's fences. (Above parallelism 1, sharing the oldest half
// hands thieves the biggest pieces before they ask: growing there made
// quicksort 6% slower, docs/DESIGN.md.)
const privMax = 32

// pushForkTask pushes a fork's task t, or a spawned one (scope.go),
// privately (the fast path) when P2 allows: thieves have a task of s's, or
// parallelism is 1; else it shares.
func (s *slot) pushForkTask(t *task) {
	n := s.nPriv
	if n < len(s.priv) && !s.want.Load() && (s.pool.solo.Load() || s.dq.Len() != 0) {
		if s.priv[n] != t { // a recycled task at the same depth: no store, no write barrier
			s.priv[n] = t
		}
		s.nPriv = n + 1
		return
	}
	if n == 0 { // shared at once: nothing older is private
		s.stamp(t, platform.ProfLabel())
		s.pushPublic(t)
		s.pool.notify()
		return
	}
	s.pushFork(t)
}

// pushFork is pushForkTask's slow path when s holds private tasks: it
// pushes t privately and shares the oldest half (at parallelism 1, with
// the stack full, grows it instead).
func (s *slot) pushFork(t *task) {
	n := s.nPriv
	if n == len(s.priv) {
		if s.pool.solo.Load() {
			s.priv = append(s.priv, nil)
			s.priv = s.priv[:cap(s.priv)]
		} else {
			s.share(n / 2)
			n = s.nPriv
		}
	}
	if s.priv[n] != t { // a recycled task at the same depth: no store, no write barrier
		s.priv[n] = t
	}
	s.nPriv = n + 1
	if s.want.Load() || (s.dq.Len() == 0 && !s.pool.solo.Load()) {
		s.share((n + 2) / 2)
	}
}

// pushPublic pushes t where thieves can take it, after sharing everything
// private (P1), and clears want. The caller notifies.
func (s *slot) pushPublic(t *task) {
	if s.nPriv > 0 {
		s.share(s.nPriv)
	}
	s.dq.Push(t)
	s.clearWant()
}

// popLocal pops s's newest task: private first, then the deque.
func (s *slot) popLocal() *task {
	if n := s.nPriv; n > 0 {
		n--
		s.nPriv = n
		t := s.priv[n]
		if n > 0 && s.want.Load() {
			s.share((n + 1) / 2)
		}
		return t
	}
	return s.dq.Pop()
}

// offersWork reports whether thieves can take a task of s's and none asked
// for more (route.go's plain nested calls). Owner only.
func (s *slot) offersWork() bool {
	return s.dq != nil && s.dq.Len() != 0 && !s.want.Load()
}

// localLen is the number of tasks s holds, private and public. Owner only.
func (s *slot) localLen() int { return s.nPriv + s.dq.Len() }

// share moves the k oldest private tasks to the deque, clears want, and
// notifies. The deque's Push publishes each task (its store of bottom is
// the release); nobody else reads the private stack.
func (s *slot) share(k int) {
	labels := platform.ProfLabel()
	for _, t := range s.priv[:k] {
		if t.kind != taskSpawn { // stamped when spawned, perhaps under another tree than s's now
			s.stamp(t, labels)
		}
		s.dq.Push(t)
	}
	s.nPriv = copy(s.priv, s.priv[k:s.nPriv])
	s.clearWant()
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

// clearWant clears s's want flag after s offered work to thieves.
func (s *slot) clearWant() {
	if s.want.Load() {
		s.want.Store(false)
	}
}

// ask tells victim v, whose deque a thief found empty, that one wants work.
func (v *slot) ask() {
	if !v.want.Load() {
		v.want.Store(true)
	}
}
