// Package sleep is par's sleep and wake protocol: the list of parked
// seats, the counts of sleepers and spinners, and the tokens that wake them.
// par's slot.park and idle run the sleeping side; its Pool.notify and kick
// the waking side.
//
// Every slot has a Sleeper, whose wake channel of capacity 1 is a binary
// semaphore ("token"). The pool's List keeps its sleepers (slots about to
// park) under its mutex, their number mirrored in nSleepers, and nSpinning.
//
// Going to sleep (slot.park):
//  1. add self to sleepers and store nSleepers (List.List, under the mutex);
//  2. re-check: scan every deque of the pool (and the wait condition and the
//     closed flag); if anything is there, unlist (List.Unlist) and go back
//     to work;
//  3. block on the wake channel (Sleeper.Wait); on waking, unlist self if
//     still listed.
//
// Publishing work (pushing a task, then Pool.notify):
//  1. push onto a deque (an atomic store of bottom);
//  2. load nSleepers; if 0, or if nSpinning > 0, do nothing
//     (List.ShouldWake);
//  3. otherwise wake one (List.Wake): under the mutex, pop a sleeper, count
//     it as spinning (nSpinning+1) and post its token.
//
// No lost wake-up (a worker scans, finds nothing, and a task is pushed
// before it parks): the atomics are sequentially consistent, so of
// "sleeper stores nSleepers, then loads the deques" and "pusher stores
// bottom, then loads nSleepers" at least one side sees the other's store:
// the sleeper's re-check finds the task, or the pusher wakes the sleeper. A
// token posted before the sleeper blocks stays in the channel.
//
// A spinner suppresses wake-ups: before it stops spinning it either takes
// a task (then calls notify, passing the wake-up on, as Go's runtime does
// with its spinning Ms) or parks with the re-check above, so a task pushed
// while nSpinning > 0 is seen by someone. A waker counts the woken worker
// as spinning, so a burst of pushes wakes one worker, and the next when
// that one has found work; but work known to feed several workers (few
// items, par's offer.go) wakes as many, each counted as spinning.
//
// Kicks (offer.go): a first grain is published as a cut point, not pushed,
// so a worker parked when it starts would sleep through it. So the owner
// kicks the worker that parked last (List.KickLast): a token posted without
// unlisting the worker or counting it as spinning, a stale token on
// purpose (below). The worker scans once (park's re-check ends with the cut
// points) and, finding nothing, blocks again (Sleeper.Kicked). A kick takes
// nobody off the list, so it cannot lose a wake-up.
//
// Stale tokens: a token can outlive its reason (a join signal that arrives
// after its waiter saw the flag, a wake-up racing a worker that found work
// on its own). Every waiter re-checks its condition after waking, so a
// stale token costs one spurious loop, never a missed or false completion.
// A worker woken by one is still listed and unlists itself; one no longer
// listed was unlisted by a waker, which counted it as spinning.
//
// Spinning is bounded in time (SpinRounds scans, about a wake-up's cost)
// and in number (half the active workers, at least one: par computes the
// limit, TryStartSpinning holds to it), since spinners hold Ps and delay
// timers, the GC and the caller. Spinners pause with PAUSE, not
// runtime.Gosched; nobody spins while the Ps are saturated.
//
// Nothing here is generic or behind an interface: the list holds
// *Sleeper, so posting a token is a direct call.
package sleep

import (
	"sync"
	"sync/atomic"
)

const (
	SpinRounds = 16 // scans before parking: about 30 µs, the cost of a wake-up
	SpinPauses = 50 // PAUSE instructions between scans (~1.5 µs per round)
)

// A Sleeper is a slot's side of the protocol: its token, whether the token
// on its way is a kick's, and whether the slot is a worker (kicks go to
// workers only). Init it before use; it must not be copied after.
type Sleeper struct {
	wake   chan struct{} // capacity 1: a binary semaphore
	kicked atomic.Bool   // the token on its way is a kick's
	worker bool
}

// Init makes s ready, for a worker or a guest seat.
func (s *Sleeper) Init(worker bool) {
	s.wake = make(chan struct{}, 1)
	s.worker = worker
}

// Signal posts s a token without blocking; one already pending is enough.
func (s *Sleeper) Signal() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// Wait blocks until s has a token and takes it.
func (s *Sleeper) Wait() {
	<-s.wake
}

// Kicked reports whether the token Wait took was a kick's, and clears the
// mark.
func (s *Sleeper) Kicked() bool {
	kicked := s.kicked.Load()
	if kicked {
		s.kicked.Store(false)
	}
	return kicked
}

// A List is a pool's sleepers and spinners. The zero List is empty.
type List struct {
	mu        sync.Mutex
	sleepers  []*Sleeper // guarded by mu
	nSleepers atomic.Int32
	nSpinning atomic.Int32
}

// ShouldWake reports whether a push should wake a sleeper: some are
// listed and nobody spins. Two atomic loads.
func (l *List) ShouldWake() bool {
	return l.nSleepers.Load() != 0 && l.nSpinning.Load() == 0
}

// Sleepers returns the number of listed sleepers.
func (l *List) Sleepers() int { return int(l.nSleepers.Load()) }

// Spinning returns the number of spinners, those woken included.
func (l *List) Spinning() int { return int(l.nSpinning.Load()) }

// Workers returns the number of listed sleepers that are workers.
func (l *List) Workers() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, s := range l.sleepers {
		if s.worker {
			n++
		}
	}
	return n
}

// List adds s to the sleepers (step 1 of going to sleep).
func (l *List) List(s *Sleeper) {
	l.mu.Lock()
	l.sleepers = append(l.sleepers, s)
	l.nSleepers.Store(int32(len(l.sleepers)))
	l.mu.Unlock()
}

// Unlist removes s from the sleepers, or reports that a waker removed it
// and counted it as spinning.
func (l *List) Unlist(s *Sleeper) (woken bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for i, x := range l.sleepers {
		if x == s {
			last := len(l.sleepers) - 1
			l.sleepers[i] = l.sleepers[last]
			l.sleepers[last] = nil
			l.sleepers = l.sleepers[:last]
			l.nSleepers.Store(int32(last))
			return false
		}
	}
	return true
}

// Wake wakes up to k sleepers, the last listed first, each counted as
// spinning; unless many, only while nobody spins. many is for work known
// to feed k workers at once (above): woken one by one, the last would
// start k-1 wake-ups late.
func (l *List) Wake(k int, many bool) {
	var woken [8]*Sleeper
	for k > 0 && l.nSleepers.Load() != 0 {
		l.mu.Lock()
		if !many && l.nSpinning.Load() > 0 {
			l.mu.Unlock()
			return
		}
		n := min(k, len(l.sleepers), len(woken))
		for i := range n {
			last := len(l.sleepers) - 1
			woken[i] = l.sleepers[last]
			l.sleepers[last] = nil
			l.sleepers = l.sleepers[:last]
		}
		l.nSleepers.Store(int32(len(l.sleepers)))
		l.nSpinning.Add(int32(n))
		l.mu.Unlock()
		for _, s := range woken[:n] {
			s.Signal()
		}
		k -= n
		if n < len(woken) {
			return
		}
	}
}

// KickLast kicks the worker that parked last, if one is listed (see
// "Kicks" above).
func (l *List) KickLast() {
	l.mu.Lock()
	var s *Sleeper
	for i := len(l.sleepers) - 1; i >= 0; i-- {
		if l.sleepers[i].worker {
			s = l.sleepers[i]
			break
		}
	}
	l.mu.Unlock()
	if s != nil {
		s.kicked.Store(true)
		s.Signal()
	}
}

// TryStartSpinning admits the caller as a spinner if fewer than limit
// spin already.
func (l *List) TryStartSpinning(limit int32) bool {
	for {
		n := l.nSpinning.Load()
		if n >= limit {
			return false
		}
		if l.nSpinning.CompareAndSwap(n, n+1) {
			return true
		}
	}
}

// StopSpinning counts a spinner (or a woken sleeper) out. One that found
// work then passes the wake-up on (above).
func (l *List) StopSpinning() {
	l.nSpinning.Add(-1)
}
