package par

// The sleep and wake protocol.
//
// Every slot has a wake channel of capacity 1, a binary semaphore
// ("token"). The pool keeps its sleepers (workers about to park) under
// sleep.mu, their number mirrored in nSleepers, and nSpinning.
//
// Going to sleep (slot.park):
//  1. add self to sleepers and store nSleepers (under sleep.mu);
//  2. re-check: scan every deque of the pool (and the wait condition and the
//     closed flag); if anything is there, unlist and go back to work;
//  3. block on the wake channel; on waking, unlist self if still listed.
//
// Publishing work (pushing a task, then Pool.notify):
//  1. push onto a deque (an atomic store of bottom);
//  2. load nSleepers; if 0, or if nSpinning > 0, do nothing;
//  3. otherwise wake one: under sleep.mu, pop a sleeper, count it as
//     spinning (nSpinning+1) and post its token.
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
// items, offer.go) wakes as many, each counted as spinning.
//
// Kicks (offer.go): a first grain is published as a cut point, not pushed,
// so a worker parked when it starts would sleep through it. So the owner
// kicks the worker that parked last (kickOne): a token posted without
// unlisting the worker or counting it as spinning, a stale token on
// purpose (below). The worker scans once (park's re-check ends with the cut
// points) and, finding nothing, blocks again (slot.kicked). A kick takes
// nobody off the list, so it cannot lose a wake-up.
//
// Stale tokens: a token can outlive its reason (a join signal that arrives
// after its waiter saw the flag, a wake-up racing a worker that found work
// on its own). Every waiter re-checks its condition after waking, so a
// stale token costs one spurious loop, never a missed or false completion.
// A worker woken by one is still listed and unlists itself; one no longer
// listed was unlisted by a waker, which counted it as spinning.
//
// Spinning is bounded in time (spinRounds scans, about a wake-up's cost)
// and in number (half the active workers, at least one), since spinners
// hold Ps and delay timers, the GC and the caller. Spinners pause with
// PAUSE, not runtime.Gosched; nobody spins while the Ps are saturated.

import (
	"sync"
	"sync/atomic"

	"github.com/parloop/parloop/par/internal/platform"
)

type sleepState struct {
	mu        sync.Mutex
	sleepers  []*slot // guarded by mu
	nSleepers atomic.Int32
	nSpinning atomic.Int32
}

const (
	spinRounds = 16 // scans before parking: about 30 µs, the cost of a wake-up
	spinPauses = 50 // PAUSE instructions between scans (~1.5 µs per round)
)

// notify is called after pushing a task. Two atomic loads on the fast path.
func (p *Pool) notify() {
	if p.sleep.nSleepers.Load() != 0 && p.sleep.nSpinning.Load() == 0 {
		p.maybeResize()
		p.wake(1, false)
	}
}

// kickOne kicks the worker that parked last (see "Kicks" above).
func (p *Pool) kickOne() {
	st := &p.sleep
	st.mu.Lock()
	var s *slot
	for i := len(st.sleepers) - 1; i >= 0; i-- {
		if st.sleepers[i].worker {
			s = st.sleepers[i]
			break
		}
	}
	st.mu.Unlock()
	if s != nil {
		s.kicked.Store(true)
		s.signal()
	}
}

// wake wakes up to k sleepers, each counted as spinning; unless many, only
// while nobody spins. many is for work known to feed k workers at once
// (above): woken one by one, the last would start k-1 wake-ups late.
func (p *Pool) wake(k int, many bool) {
	st := &p.sleep
	var woken [8]*slot
	for k > 0 && st.nSleepers.Load() != 0 {
		st.mu.Lock()
		if !many && st.nSpinning.Load() > 0 {
			st.mu.Unlock()
			return
		}
		n := min(k, len(st.sleepers), len(woken))
		for i := range n {
			last := len(st.sleepers) - 1
			woken[i] = st.sleepers[last]
			st.sleepers[last] = nil
			st.sleepers = st.sleepers[:last]
		}
		st.nSleepers.Store(int32(len(st.sleepers)))
		st.nSpinning.Add(int32(n))
		st.mu.Unlock()
		for _, s := range woken[:n] {
			s.signal()
		}
		k -= n
		if n < len(woken) {
			return
		}
	}
}

// tryStartSpinning admits the caller as a spinner if fewer than half the
// active workers and half the Ps (at least one) spin already.
func (p *Pool) tryStartSpinning(l *layout) bool {
	limit := int32(max(1, min(l.active, l.procs)/2))
	if p.exp.AllSpin {
		limit = int32(max(1, min(l.active, l.procs)))
	}
	for {
		n := p.sleep.nSpinning.Load()
		if n >= limit {
			return false
		}
		if p.sleep.nSpinning.CompareAndSwap(n, n+1) {
			return true
		}
	}
}

// stopSpinning is called by a spinner that found work: it passes the
// wake-up on (above).
func (p *Pool) stopSpinning() {
	p.sleep.nSpinning.Add(-1)
	p.notify()
}

// list adds s to the sleepers (protocol step 1).
func (p *Pool) list(s *slot) {
	st := &p.sleep
	st.mu.Lock()
	st.sleepers = append(st.sleepers, s)
	st.nSleepers.Store(int32(len(st.sleepers)))
	st.mu.Unlock()
}

// unlist removes s from the sleepers, or reports that a waker removed it
// and counted it as spinning.
func (p *Pool) unlist(s *slot) (woken bool) {
	st := &p.sleep
	st.mu.Lock()
	defer st.mu.Unlock()
	for i, x := range st.sleepers {
		if x == s {
			last := len(st.sleepers) - 1
			st.sleepers[i] = st.sleepers[last]
			st.sleepers[last] = nil
			st.sleepers = st.sleepers[:last]
			st.nSleepers.Store(int32(last))
			return false
		}
	}
	return true
}

// park puts s (a worker, or a slot in helpUntil) to sleep (steps 1 to 3
// above; done, if not nil, also ends it; tree, if not 0, is the only tree s
// may take from) and returns a task the re-check found, and woken (a waker
// counted s as spinning). After a kick s goes through the steps again,
// whose re-check also sees what the kick's token displaced (done, Close).
func (s *slot) park(done *atomic.Bool, tree uint64) (t *task, woken bool) {
	p := s.pool
	for {
		p.list(s)
		t = s.findWork(tree)
		if t != nil || (done != nil && done.Load()) || (s.worker && p.closed.Load()) || (done == nil && s.retiring()) {
			return t, p.unlist(s)
		}
		s.dropBoxes()
		t0 := platform.Ticks()
		<-s.wake
		s.stats.idleNs.Add(platform.TicksToNs(platform.Ticks() - t0))
		kicked := s.kicked.Load()
		if kicked {
			s.kicked.Store(false)
		}
		if woken = p.unlist(s); woken || !kicked {
			return nil, woken
		}
	}
}

// retiring reports whether s is a worker that a GOMAXPROCS decrease took
// out of service (its run loop parks it in retired).
func (s *slot) retiring() bool {
	return s.worker && int(s.id) >= s.pool.layout.Load().active
}
