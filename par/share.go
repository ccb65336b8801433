package par

import (
	"unsafe"

	"github.com/parloop/parloop/par/internal/platform"
)

// Private forks and sharing on demand (after Lace's split deque: van Dijk
// and van de Pol, 2014). A fork's task may go on its slot's private stack,
// owner-only memory thieves never read, instead of the slot's deque: a
// Chase-Lev push and pop cost two fenced instructions, about as much as the
// rest of a fork; a private push and pop cost none.
//
// Invariant P1: the slot's tasks form one stack; the deque holds the
// oldest, the private stack the newest. Sharing moves the oldest private
// tasks to the deque's bottom, in order; a split piece, which must be
// stealable at once, first shares everything private (pushPublic). So the
// owner's pops (private first, then the deque) return its tasks newest
// first, which fork.go's take relies on.
//
// Invariant P2: a slot that holds tasks offers at least one to thieves
// (except at parallelism 1, where nobody could take it). A fork stays
// private only if the deque is non-empty and no thief has asked; otherwise
// it shares the oldest half of the private stack, which includes the new
// task when nothing else is private. So only forks nested under work that
// thieves can already see are private: in a recursion, nearly all of them.
//
// Asking. A thief that finds a deque empty sets its want flag (ask); the
// owner looks at it (a plain load) on every fork and every private pop, and
// shares half when it is set. Thieves store want only when they read it
// false, and the owner clears it only when it shares, so a spinning thief
// does not trade the cache line with the owner on every fork. want is the
// only word of this mechanism two threads touch, on a cache line of its
// own, and needs no ordering: a stale read delays a share to the next fork
// or pop, and a share publishes through the deque.
//
// No work is lost and no sleeper stranded: the owner runs its private tasks
// itself in any case, and every share is a deque push followed by notify,
// the sleep protocol's public push (sleep.go). The price of P2's exception:
// a worker that goes idle while the owner runs a leaf without forking waits
// for the owner's next fork or pop to be offered its private tasks.

// privMax is the capacity of the private stack; a fork that finds it full
// shares the oldest half first.
const privMax = 32

// pushForkTask pushes a fork's task t: on the private stack when thieves
// have a task of s's already (or there are no worker threads to take one)
// and none asked for more, the fork fast path; else it is shared at once.
func (s *slot) pushForkTask(t *task) {
	n := s.nPriv
	if n < privMax && !s.want.Load() && (s.dq.Len() != 0 || s.pool.solo.Load()) {
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

// pushFork is pushForkTask's slow path for a private task when s holds
// private tasks already: the stack is full, or somebody could use the work.
// It puts t on the private stack and shares the oldest half.
func (s *slot) pushFork(t *task) {
	n := s.nPriv
	if n == privMax {
		s.share(n / 2)
		n = s.nPriv
	}
	if s.priv[n] != t { // a recycled task at the same depth: no store, no write barrier
		s.priv[n] = t
	}
	s.nPriv = n + 1
	if s.want.Load() || (s.dq.Len() == 0 && !s.pool.solo.Load()) {
		s.share((n + 2) / 2)
	}
}

// pushPublic pushes t where thieves can take it at once, after sharing
// everything private (P1), and clears want: s offered work. The caller
// notifies.
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

// offersWork reports whether thieves can take a task of s's now and none
// asked s for more: a nested call on s then runs as a plain loop (route.go).
// Owner only.
func (s *slot) offersWork() bool {
	return s.dq != nil && s.dq.Len() != 0 && !s.want.Load()
}

// localLen is the number of tasks s holds, private and public. Owner only.
func (s *slot) localLen() int { return s.nPriv + s.dq.Len() }

// share moves the k oldest private tasks to the deque, clears want, and
// wakes a sleeper if there is one. The deque's Push publishes each task
// (its store of bottom is the release); the stores of the private stack
// need no ordering, nobody else reads them.
func (s *slot) share(k int) {
	labels := platform.ProfLabel()
	for _, t := range s.priv[:k] {
		s.stamp(t, labels)
		s.dq.Push(t)
	}
	s.nPriv = copy(s.priv[:], s.priv[k:s.nPriv])
	s.clearWant()
	s.pool.notify()
}

// stamp gives a fork's task, as it is offered to thieves, what a thief
// needs to run it: its call tree (isolation, steal.go) and the pprof label
// set (labels.go). Only offered tasks need them, since the slot runs its
// private ones itself, so the fork fast path (a private push) reads
// neither. The labels are those of the goroutine when the task is offered:
// the same as when it was forked, unless the body entered a nested
// pprof.Do between the fork and the offer, in which case a thief runs the
// task under the inner labels. The tree cannot have changed: a slot runs
// only its own tree's tasks while any of its forks are outstanding.
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

// ask tells victim v, whose deque a thief found empty, that somebody
// wants work.
func (v *slot) ask() {
	if !v.want.Load() {
		v.want.Store(true)
	}
}
