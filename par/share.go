package par

import (
	"unsafe"

	"github.com/parloop/parloop/par/internal/platform"
)

// Private forks and sharing on demand.
//
// A fork (fork.go) may go on its slot's private stack,
// owner-only memory that thieves never read, instead of the slot's deque.
// Pushing to and popping from a Chase-Lev deque costs two fenced
// instructions (the store of bottom in Push, the CAS or store-load pair in
// Pop), about 13 ns here, against a fork that otherwise costs 10 to 15; a
// private push and pop cost none. The scheme is that of Lace's split deque
// (van Dijk and van de Pol, "Lace: non-blocking split deque for
// work-stealing", 2014), with the deque kept whole and the private part
// beside it.
//
// Invariant P1: the slot's tasks form one stack; the deque holds the
// oldest, the private stack the newest. Sharing moves the oldest private
// tasks to the deque's bottom, in order, so P1 holds; a split piece, which
// must be stealable at once, first shares everything private and then
// pushes to the deque (pushPublic). So the owner's pops (private stack
// first, then the deque) return its tasks newest first (fork.go's take
// relies on it).
//
// Invariant P2: a slot that holds tasks offers at least one to thieves,
// except at parallelism 1, where there is nobody to offer it to. A fork
// stays private only if the deque is non-empty (or the pool has no worker
// thread: Pool.solo) and no thief has asked; otherwise it shares the oldest
// half of the private stack, rounded up, which includes the new task when
// nothing else is private. So a Join at the top of a body (Join(bigA, bigB)
// with a bigA that never forks) offers bigB at once, as a public push
// always did, and only forks nested under a task that thieves can already
// see are private. In a recursion, that is nearly all of them: with every
// worker busy, only the forks made right after the owner takes back its
// last public task are public.
//
// Asking. A thief that finds a deque empty sets its want flag (ask); the
// owner looks at the flag (a plain load) on every fork and on every pop
// from the private stack, and shares half when it is set. That serves a
// thief whose victim's public task was stolen by somebody else while the
// owner holds private ones. Thieves store to want only when they read it
// false, and the owner clears it only when it shares, so a spinning thief
// does not trade the cache line with the owner on every fork.
//
// Why no work is lost and no sleeper is stranded. The owner runs its
// private tasks itself in any case, so nothing is lost, only not yet
// offered. Every share is a deque Push followed by notify, exactly the
// public push of the sleep protocol (sleep.go), so a worker about to park
// either sees the shared task in its last scan or is woken by the
// notify. The price of P2's exception for nested forks: a worker that goes
// idle while the owner runs a stretch without forking or popping (a leaf)
// can take the owner's public task, if it has one, but waits for the
// owner's next fork or pop to be offered the private ones. Loops do not
// have the problem (pieces split from the grain check, public at once).
//
// want is the only word of this mechanism that two threads touch; it sits
// in a cache line of its own. The ordering it needs is none: a stale read
// by the owner delays a share until its next fork or pop, and a share
// publishes through the deque.

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
// asked s for more: a nested call on s then runs as a plain loop (split.go).
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
