package sleep

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// The race and stress tests start goroutines; every one of them must have
// exited when the package's tests end.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

func newSleepers(n int, worker func(i int) bool) []*Sleeper {
	ss := make([]*Sleeper, n)
	for i := range ss {
		ss[i] = new(Sleeper)
		ss[i].Init(worker(i))
	}
	return ss
}

func allWorkers(int) bool { return true }

// hasToken reports whether s has a token pending, and takes it.
func hasToken(s *Sleeper) bool {
	select {
	case <-s.wake:
		return true
	default:
		return false
	}
}

func checkCounts(t *testing.T, l *List, sleepers, spinning int) {
	t.Helper()
	if got := l.Sleepers(); got != sleepers {
		t.Errorf("Sleepers() = %d, want %d", got, sleepers)
	}
	if got := l.Spinning(); got != spinning {
		t.Errorf("Spinning() = %d, want %d", got, spinning)
	}
}

// notify is what a pusher does after publishing work.
func notify(l *List) {
	if l.ShouldWake() {
		l.Wake(1, false)
	}
}

func TestListUnlist(t *testing.T) {
	var l List
	ss := newSleepers(3, func(i int) bool { return i != 1 })
	if l.ShouldWake() {
		t.Fatal("ShouldWake on an empty list")
	}
	for i, s := range ss {
		l.List(s)
		checkCounts(t, &l, i+1, 0)
	}
	if !l.ShouldWake() {
		t.Error("ShouldWake false with sleepers and no spinner")
	}
	if got := l.Workers(); got != 2 {
		t.Errorf("Workers() = %d, want 2 (one of the three is a guest)", got)
	}
	if woken := l.Unlist(ss[0]); woken {
		t.Error("Unlist of a listed sleeper reported it woken")
	}
	checkCounts(t, &l, 2, 0)
	if woken := l.Unlist(ss[0]); !woken {
		t.Error("Unlist of a sleeper no longer listed did not report it woken")
	}
	checkCounts(t, &l, 2, 0)
	l.Unlist(ss[2])
	l.Unlist(ss[1])
	checkCounts(t, &l, 0, 0)
	for i, s := range ss {
		if hasToken(s) {
			t.Errorf("sleeper %d got a token from List or Unlist", i)
		}
	}
}

func TestWake(t *testing.T) {
	var l List
	ss := newSleepers(5, allWorkers)
	for _, s := range ss {
		l.List(s)
	}
	l.Wake(2, false)
	checkCounts(t, &l, 3, 2)
	for i, s := range ss {
		if want := i >= 3; hasToken(s) != want {
			t.Errorf("after Wake(2): sleeper %d has a token: %v, want %v (the last listed wake first)", i, !want, want)
		}
	}
	if l.ShouldWake() {
		t.Error("ShouldWake true while two spin")
	}
	for _, s := range ss[3:] {
		if woken := l.Unlist(s); !woken {
			t.Error("a woken sleeper's Unlist did not report it woken")
		}
	}

	l.Wake(1, false)
	checkCounts(t, &l, 3, 2)
	for i, s := range ss[:3] {
		if hasToken(s) {
			t.Errorf("Wake(1, false) while others spin woke sleeper %d", i)
		}
	}

	l.Wake(2, true)
	checkCounts(t, &l, 1, 4)
	if !hasToken(ss[1]) || !hasToken(ss[2]) || hasToken(ss[0]) {
		t.Error("Wake(2, true) while others spin did not wake the last two listed, only them")
	}

	l.Wake(5, true)
	checkCounts(t, &l, 0, 5)
	if !hasToken(ss[0]) {
		t.Error("Wake(5, true) with one listed did not wake it")
	}
	for range 5 {
		l.StopSpinning()
	}
	checkCounts(t, &l, 0, 0)
}

// Wake takes sleepers off in batches; many wakes every batch.
func TestWakeManyBatches(t *testing.T) {
	var l List
	ss := newSleepers(20, allWorkers)
	for _, s := range ss {
		l.List(s)
	}
	l.Wake(19, true)
	checkCounts(t, &l, 1, 19)
	for i, s := range ss {
		if want := i != 0; hasToken(s) != want {
			t.Errorf("after Wake(19, true) of 20: sleeper %d has a token: %v, want %v", i, !want, want)
		}
	}
}

func TestKickLast(t *testing.T) {
	var l List
	// Workers 0 and 1, then guest 2: the kick goes to 1, the last worker.
	ss := newSleepers(3, func(i int) bool { return i < 2 })
	l.KickLast()
	for _, s := range ss {
		l.List(s)
	}
	l.KickLast()
	checkCounts(t, &l, 3, 0)
	if hasToken(ss[0]) || hasToken(ss[2]) {
		t.Error("KickLast posted a token to a sleeper other than the last worker")
	}
	ss[1].Wait()
	if !ss[1].Kicked() {
		t.Error("the last worker's token is not marked a kick's")
	}
	if ss[1].Kicked() {
		t.Error("Kicked did not clear the mark")
	}
	if woken := l.Unlist(ss[1]); woken {
		t.Error("a kicked sleeper was taken off the list")
	}

	// Only a guest listed: nobody is kicked.
	l.Unlist(ss[0])
	l.KickLast()
	if hasToken(ss[2]) || ss[2].Kicked() {
		t.Error("KickLast kicked a guest")
	}

	// A plain token is not a kick.
	ss[0].Signal()
	ss[0].Signal() // one pending token is enough: this one does not block
	ss[0].Wait()
	if ss[0].Kicked() {
		t.Error("a Signal's token is marked a kick's")
	}
	if hasToken(ss[0]) {
		t.Error("two Signals left two tokens")
	}
}

// TryStartSpinning admits exactly limit of many concurrent callers.
func TestTryStartSpinningLimit(t *testing.T) {
	const callers, limit = 16, 3
	var l List
	for range 200 {
		var admitted atomic.Int32
		var start, done sync.WaitGroup
		start.Add(1)
		for range callers {
			done.Go(func() {
				start.Wait()
				if l.TryStartSpinning(limit) {
					admitted.Add(1)
				}
			})
		}
		start.Done()
		done.Wait()
		if got := admitted.Load(); got != limit {
			t.Fatalf("%d callers admitted with limit %d", got, limit)
		}
		if got := l.Spinning(); got != limit {
			t.Fatalf("Spinning() = %d after admitting %d", got, limit)
		}
		for range limit {
			l.StopSpinning()
		}
	}
}

// No lost wake-up: waiters list, re-check a flag and block; a pusher sets
// the flag, then notifies; a woken waiter that finds the flag passes the
// wake-up on. Every waiter must return.
func TestNoLostWakeup(t *testing.T) {
	rounds := 2000
	if testing.Short() {
		rounds = 200
	}
	waiters := max(4, runtime.GOMAXPROCS(0)+2)
	var l List
	for round := range rounds {
		var flag atomic.Bool
		ss := newSleepers(waiters, allWorkers)
		var wg sync.WaitGroup
		for _, s := range ss {
			wg.Go(func() {
				for {
					l.List(s)
					if flag.Load() {
						if l.Unlist(s) {
							l.StopSpinning()
							notify(&l)
						}
						return
					}
					s.Wait()
					if l.Unlist(s) {
						l.StopSpinning()
						notify(&l)
					}
					if flag.Load() {
						return
					}
				}
			})
		}
		wg.Go(func() {
			for range round % 4 {
				runtime.Gosched()
			}
			flag.Store(true)
			notify(&l)
		})
		finished := make(chan struct{})
		go func() {
			wg.Wait()
			close(finished)
		}()
		select {
		case <-finished:
		case <-time.After(10 * time.Second):
			stuck := l.Sleepers()
			for _, s := range ss {
				s.Signal()
			}
			<-finished
			t.Fatalf("round %d: %d waiters slept through the flag", round, stuck)
		}
		checkCounts(t, &l, 0, 0)
		if t.Failed() {
			return
		}
	}
}
