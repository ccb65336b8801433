package par

import (
	"context"
	"runtime"
	"runtime/pprof"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"
)

// Catches: workers keeping the pprof labels of the goroutine that started
// the pool, pieces running under a worker's stale labels instead of their
// caller's, and labels not restored after a task. Every body compares the
// label set it runs under with its caller's (one pointer: the set pprof.Do
// installed), on the caller and on workers, for range calls and stolen
// forks, with two callers labelled differently at once.
func TestLabelsFollowTheCall(t *testing.T) {
	p := NewPool(Workers(4))
	defer p.Close()
	// Start the pool from a labelled goroutine: its workers must not keep
	// these labels.
	pprof.Do(context.Background(), pprof.Labels("phase", "warmup"), func(context.Context) {
		For(1000, func(int) { spinLabels(10) }, On(p))
	})
	var wrong, onWorker atomic.Int32
	check := func(want unsafe.Pointer) {
		if getProfLabel() != want {
			wrong.Add(1)
		}
		if lookupWorker(goroutineKey()) != nil {
			onWorker.Add(1)
		}
	}
	var wg sync.WaitGroup
	for _, req := range []string{"decode", "encode"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			pprof.Do(context.Background(), pprof.Labels("req", req), func(context.Context) {
				want := getProfLabel()
				for range 20 {
					For(2000, func(int) { check(want); spinLabels(50) }, On(p))
					_ = ReduceRange(2000, 0, func(lo, hi int) int { check(want); spinLabels(50 * (hi - lo)); return 0 },
						func(a, b int) int { return a + b }, On(p))
					Join(func() { spinLabels(5000) }, func() { check(want); spinLabels(5000) }, On(p))
					Both(func() int { spinLabels(5000); return 0 }, func() int { check(want); spinLabels(5000); return 0 }, On(p))
					For(8, func(int) { // nested: forks and calls made on workers
						check(want)
						For(100, func(int) { check(want); spinLabels(20) })
						Join(func() { check(want) }, func() { check(want); spinLabels(2000) })
					}, On(p))
				}
			})
		}()
	}
	wg.Wait()
	if w := wrong.Load(); w != 0 {
		t.Errorf("%d bodies ran under labels other than their caller's", w)
	}
	if onWorker.Load() == 0 && runtime.GOMAXPROCS(0) > 1 {
		t.Logf("no body ran on a worker: the worker half of the check was not exercised")
	}
	// Unlabelled calls after labelled ones: bodies, on workers too, see no labels.
	var stale atomic.Int32
	For(4000, func(int) {
		if getProfLabel() != nil {
			stale.Add(1)
		}
		spinLabels(50)
	}, On(p))
	if s := stale.Load(); s != 0 {
		t.Errorf("%d bodies of an unlabelled call ran under some earlier call's labels", s)
	}
}

// Catches: a scope's task running under labels other than those its Go
// was called under: a seat runs siblings one after another under the first
// one's labels (runSpawned), so a sibling spawned under other labels must
// end the run. Tasks spawned with and without labels alternate, from the
// body and from tasks, on one worker and on four.
func TestScopeTasksKeepTheirLabels(t *testing.T) {
	for _, workers := range []int{1, 4} {
		p := NewPool(Workers(workers))
		var wrong, ran atomic.Int32
		task := func(want unsafe.Pointer) func() {
			return func() {
				if getProfLabel() != want {
					wrong.Add(1)
				}
				ran.Add(1)
			}
		}
		spawn := func(s *Spawner, i int) {
			if i%3 == 0 {
				pprof.Do(context.Background(), pprof.Labels("task", "odd"), func(context.Context) {
					s.Go(task(getProfLabel()))
				})
				return
			}
			s.Go(task(getProfLabel()))
		}
		Scope(func(s *Spawner) {
			for i := range 300 {
				spawn(s, i)
			}
			for range 10 {
				s.Go(func() {
					for i := range 30 {
						spawn(s, i)
					}
				})
			}
		}, On(p))
		p.Close()
		if r := ran.Load(); r != 600 {
			t.Fatalf("%d workers: %d tasks ran, want 600", workers, r)
		}
		if w := wrong.Load(); w != 0 {
			t.Errorf("%d workers: %d tasks ran under labels other than their Go's", workers, w)
		}
	}
}

// Catches: a label set costing an allocation per call or per piece.
func TestLabelsAllocateNothing(t *testing.T) {
	p := NewPool(Workers(2))
	defer p.Close()
	body := func(int) { spinLabels(5) }
	pprof.Do(context.Background(), pprof.Labels("req", "x"), func(context.Context) {
		For(1000, body, On(p))
		if a := testing.AllocsPerRun(50, func() { For(1000, body, On(p)) }); a > 0 {
			t.Errorf("For under labels allocates %v times per call", a)
		}
	})
}

var labelSink atomic.Uint64

//go:noinline
func spinLabels(k int) {
	x := uint64(k) | 1
	for range k {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
	}
	if x == 0 {
		labelSink.Add(1)
	}
}

// Catches: an Invoke whose functions all call Goexit, run from outside the
// pool, leaving its guest seat held (the unwinding join, cut short by the
// second Goexit, left forked tasks for the seat's release to run, and the
// first of those cut the release short in turn), and functions not run.
func TestGoexitInEveryInvokeFunctionReleasesTheSeat(t *testing.T) {
	p := NewPool(Workers(4))
	defer p.Close()
	for round := range 100 {
		before := guestTable.Held()
		var ran atomic.Int32
		exit := func() { ran.Add(1); runtime.Goexit() }
		done := make(chan struct{})
		go func() {
			defer close(done)
			Invoke([]func(){exit, exit, exit, exit}, On(p))
		}()
		<-done
		if m := guestTable.Held(); m != before {
			t.Fatalf("round %d: guest seats %b before the call, %b after its caller exited", round, before, m)
		}
		if n := ran.Load(); n != 4 {
			t.Fatalf("round %d: %d of 4 functions ran", round, n)
		}
	}
}

// Catches: a Goexit in a task the caller stole while a first Goexit
// unwound its Invoke, cutting short the deferred wait for a function still
// to run. With one worker thread: the caller's first function waits until the
// worker has stolen the second half and started its first function, which
// sleeps; the caller, unwinding, could then steal the worker's other
// function, Goexit again, and exit before the sleeper had returned.
func TestGoexitWhileUnwindingWaitsForEveryFunction(t *testing.T) {
	p := NewPool(Workers(2))
	defer p.Close()
	for round := range 20 {
		var ran atomic.Int32
		exit := func() { ran.Add(1); runtime.Goexit() }
		started := make(chan struct{})
		first := func() {
			select {
			case <-started:
			case <-time.After(100 * time.Millisecond):
			}
			exit()
		}
		sleeper := func() { close(started); time.Sleep(time.Millisecond); exit() }
		done := make(chan struct{})
		go func() {
			defer close(done)
			Invoke([]func(){first, exit, sleeper, exit}, On(p))
		}()
		<-done
		if n := ran.Load(); n != 4 {
			t.Fatalf("round %d: %d of 4 functions had run when the caller exited", round, n)
		}
	}
}

// Catches: a second Goexit cutting short the deferred function of a call
// that a first Goexit is unwinding, before it releases the caller's guest
// seat. Four nested calls each have a body that calls Goexit; the caller,
// waiting for the outer call while the first unwinds it, used to steal and
// run pieces of the other nested calls (leaked seats under -race: 58 of
// 80 runs of TestGoexitInBody).
func TestGoexitInNestedCallsReleasesTheSeat(t *testing.T) {
	p := NewPool(Workers(4))
	defer p.Close()
	for round := range 200 {
		before := guestTable.Held()
		done := make(chan struct{})
		go func() {
			defer close(done)
			For(4, func(int) {
				For(100, func(i int) {
					if i == 50 {
						runtime.Goexit()
					}
				})
			}, On(p))
		}()
		<-done
		if m := guestTable.Held(); m != before {
			t.Fatalf("round %d: guest seats %b before the call, %b after its caller exited", round, before, m)
		}
	}
}

// Catches: a Goexit in a body leaving the caller's guest seat held (70
// Goexits left seats held, and one leaked seat at GOMAXPROCS=2 stopped
// every later call from splitting), or a worker dying without a
// replacement.
func TestGoexitReleasesSeatsAndReplacesWorkers(t *testing.T) {
	p := NewPool(Workers(3))
	defer p.Close()
	For(100, func(int) {}, On(p))
	before := p.layout.Load().workers
	for i := range 80 {
		done := make(chan struct{})
		go func() {
			defer close(done)
			For(64, func(j int) {
				spinLabels(500)
				if j == i%64 {
					runtime.Goexit()
				}
			}, On(p))
		}()
		<-done
	}
	if m := guestTable.Held(); m != 0 {
		t.Errorf("guest seats still held after the Goexits: mask %b", m)
	}
	// Every worker slot still runs: a call whose pieces wait for each
	// other's start only passes if all 3 participants take part.
	var started atomic.Int32
	var ok atomic.Bool
	For(3, func(int) {
		started.Add(1)
		for i := 0; i < 20_000_000 && started.Load() < 3; i++ {
			spinLabels(10)
		}
		if started.Load() == 3 {
			ok.Store(true)
		}
	}, On(p))
	if !ok.Load() {
		t.Errorf("after the Goexits, 3 items never ran at once on a pool of 3")
	}
	if after := p.layout.Load().workers; len(after) != len(before) {
		t.Errorf("the pool has %d worker slots, had %d", len(after), len(before))
	}
}
