package deque

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// This file checks recorded concurrent histories for linearizability
// (Herlihy & Wing, 1990) with a Wing & Gong style search: try every order of
// the operations that respects real time (an operation that returned before
// another was called comes first) and accept the history if one such order
// is a legal run of the sequential deque. Memoising (set of operations
// placed, deque state) keeps the search small (G. Lowe, "Testing for
// linearizability", 2017; porcupine does the same).

// linOp is one completed operation of a history. Values are positive ints;
// 0 stands for nil.
type linOp struct {
	kind  int // opPush, opPop or opSteal
	in    int // value pushed
	out   int // value returned by Pop or Steal; 0 = nil
	retry bool
	call  int64 // from the shared clock, before the call
	ret   int64 // from the shared clock, after the return
}

func (o linOp) String() string {
	var s string
	switch o.kind {
	case opPush:
		s = fmt.Sprintf("Push(%d)", o.in)
	case opPop:
		s = fmt.Sprintf("Pop()=%d", o.out)
	case opSteal:
		s = fmt.Sprintf("Steal()=%d,%v", o.out, o.retry)
	}
	return fmt.Sprintf("[%d,%d] %s", o.call, o.ret, s)
}

// applySeq applies op to the sequential deque state (oldest first) and
// reports whether op's result is legal there, and the new state.
//
// The sequential specification: Push appends; Pop returns the newest element
// or nil if and only if the deque is empty; a Steal with retry == false
// returns the oldest element, or nil if and only if the deque is empty; a
// Steal with retry == true returns nil and changes nothing (the spec allows
// a thief to lose a race; that it happens only under contention is checked by
// the sequential tests, where it must never happen).
func applySeq(state []int, op linOp) (bool, []int) {
	switch op.kind {
	case opPush:
		return true, append(state[:len(state):len(state)], op.in)
	case opPop:
		if len(state) == 0 {
			return op.out == 0, state
		}
		return op.out == state[len(state)-1], state[:len(state)-1]
	case opSteal:
		if op.retry {
			return op.out == 0, state
		}
		if len(state) == 0 {
			return op.out == 0, state
		}
		return op.out == state[0], state[1:]
	}
	panic("bad op kind")
}

// linearizable reports whether history h, run on a deque that held init
// (oldest first) before any operation of h was called, is linearizable. On
// success it returns a witness order (indices into h).
func linearizable(init []int, h []linOp) (bool, []int) {
	if len(h) > 30 {
		panic("history too long for the checker")
	}
	full := uint32(1)<<len(h) - 1
	seen := make(map[string]bool)
	order := make([]int, 0, len(h))
	var search func(done uint32, state []int) bool
	search = func(done uint32, state []int) bool {
		if done == full {
			return true
		}
		key := fmt.Sprint(done, state)
		if seen[key] {
			return false
		}
		seen[key] = true
		// Operations that may come next: those not yet placed that were
		// called before every unplaced operation returned.
		minRet := int64(1<<63 - 1)
		for i, o := range h {
			if done&(1<<i) == 0 && o.ret < minRet {
				minRet = o.ret
			}
		}
		for i, o := range h {
			if done&(1<<i) != 0 || o.call > minRet {
				continue
			}
			ok, next := applySeq(state, o)
			if !ok {
				continue
			}
			order = append(order, i)
			if search(done|1<<i, next) {
				return true
			}
			order = order[:len(order)-1]
		}
		return false
	}
	if search(0, slices.Clone(init)) {
		return true, order
	}
	return false, nil
}

func describe(init []int, h []linOp) string {
	var b strings.Builder
	fmt.Fprintf(&b, "initial deque (oldest first) %v\n", init)
	sorted := slices.Clone(h)
	slices.SortFunc(sorted, func(a, b linOp) int { return int(a.call - b.call) })
	for _, o := range sorted {
		fmt.Fprintf(&b, "  %v\n", o)
	}
	return b.String()
}

// Hand-written histories: the checker must accept the legal ones and reject
// the others, or the randomized test below proves nothing.
func TestLinearizabilityChecker(t *testing.T) {
	push := func(v int, call, ret int64) linOp { return linOp{kind: opPush, in: v, call: call, ret: ret} }
	pop := func(v int, call, ret int64) linOp { return linOp{kind: opPop, out: v, call: call, ret: ret} }
	steal := func(v int, call, ret int64) linOp { return linOp{kind: opSteal, out: v, call: call, ret: ret} }
	retry := func(call, ret int64) linOp { return linOp{kind: opSteal, retry: true, call: call, ret: ret} }

	for _, c := range []struct {
		name string
		init []int
		h    []linOp
		want bool
	}{
		{"empty history", nil, nil, true},
		{"sequential push pop", nil, []linOp{push(1, 1, 2), pop(1, 3, 4), pop(0, 5, 6)}, true},
		{"sequential FIFO steals", nil, []linOp{push(1, 1, 2), push(2, 3, 4), steal(1, 5, 6), steal(2, 7, 8)}, true},
		{"overlapping pop and steal of the last element", []int{1},
			[]linOp{pop(0, 1, 4), steal(1, 2, 3)}, true},
		{"overlapping: steal sees empty, pop takes it", []int{1},
			[]linOp{pop(1, 1, 4), steal(0, 2, 3)}, true},
		{"steal of a value whose push overlaps", nil, []linOp{push(1, 1, 4), steal(1, 2, 3)}, true},
		{"lost race anywhere", []int{1}, []linOp{retry(1, 2), pop(1, 3, 4), retry(5, 6)}, true},

		{"element stolen twice", nil, []linOp{push(1, 1, 2), steal(1, 3, 6), steal(1, 4, 5)}, false},
		{"element popped and stolen", []int{1}, []linOp{pop(1, 1, 4), steal(1, 2, 3)}, false},
		{"last element lost by both", []int{1}, []linOp{pop(0, 1, 4), steal(0, 2, 3)}, false},
		{"steal from the wrong end", []int{1, 2}, []linOp{steal(2, 1, 2)}, false},
		{"pop from the wrong end", []int{1, 2}, []linOp{pop(1, 1, 2)}, false},
		{"steal reports empty on a full deque", []int{1}, []linOp{steal(0, 1, 2)}, false},
		{"value returned before its push", nil, []linOp{steal(1, 1, 2), push(1, 3, 4)}, false},
		{"value never pushed", nil, []linOp{push(1, 1, 2), steal(7, 3, 4)}, false},
	} {
		ok, _ := linearizable(c.init, c.h)
		if ok != c.want {
			t.Errorf("%s: linearizable = %v, want %v\n%s", c.name, ok, c.want, describe(c.init, c.h))
		}
	}
}

// TestLinearizable records many small concurrent histories, one owner and
// two thieves on a deque with a ring of 2 (so pushes grow it while thieves
// read), and checks each one. On a machine whose CPUs other processes
// hold, the goroutines of a history may all run one after another; it
// then records more histories, up to ten times as many, until some
// overlap. If none does, the short run skips and the long run fails.
func TestLinearizable(t *testing.T) {
	runs := sized(200, 3000)
	var grew, retries, overlapping int
	seed := uint64(0)
	for ; seed < uint64(runs) || (overlapping == 0 && seed < 10*uint64(runs) && runtime.GOMAXPROCS(0) > 1); seed++ {
		init, h, grown := recordHistory(seed)
		if grown {
			grew++
		}
		if hasOverlap(h) {
			overlapping++
		}
		for _, o := range h {
			if o.retry {
				retries++
			}
		}
		if len(h) > 12 {
			t.Fatalf("history of %d operations", len(h))
		}
		if ok, _ := linearizable(init, h); !ok {
			t.Fatalf("seed %d: history is not linearizable:\n%s", seed, describe(init, h))
		}
	}
	t.Logf("%d histories: %d with overlapping operations across goroutines, %d with a ring growth, %d lost races",
		seed, overlapping, grew, retries)
	switch {
	case overlapping > 0:
	case runtime.GOMAXPROCS(0) == 1:
		// One P runs one goroutine at a time, and an operation is too
		// short to be preempted in the middle: the histories are
		// sequential. TestSchedulesExhaustive covers the interleavings.
		t.Log("GOMAXPROCS=1: no overlapping histories, as expected")
	case !*long:
		// Under a load that keeps the goroutines of every history apart
		// (seen at a load average of 5 on two CPUs: one history in 300
		// overlapped) the short run may find none; it says so rather than
		// pass. The long run records ten times as many.
		t.Skipf("none of %d histories had overlapping operations: the machine ran their goroutines one after another", seed)
	default:
		t.Error("no history had overlapping operations: the test checks nothing concurrent")
	}
}

// hasOverlap reports whether two operations of h overlap in time (they then
// come from different goroutines).
func hasOverlap(h []linOp) bool {
	for i, a := range h {
		for _, b := range h[i+1:] {
			if a.call < b.ret && b.call < a.ret {
				return true
			}
		}
	}
	return false
}

// recordHistory runs one random history: up to 3 elements pushed before the
// goroutines start (the initial state, not part of the history), then an
// owner doing 6 random Push/Pop and two thieves doing 3 Steals each, all
// timestamped with one shared clock.
func recordHistory(seed uint64) (init []int, h []linOp, grew bool) {
	rng := rand.New(rand.NewPCG(seed, 7))
	d := newIntDeque(2)
	vals := make([]int, 16)
	for i := range vals {
		vals[i] = i + 1
	}
	nextVal := 0
	for range rng.IntN(3) {
		d.Push(&vals[nextVal])
		init = append(init, vals[nextVal])
		nextVal++
	}
	ownerPlan := make([]int, 6)
	for i := range ownerPlan {
		ownerPlan[i] = opPop
		if rng.IntN(100) < 60 {
			ownerPlan[i] = opPush
		}
	}
	// Random pauses before each operation spread the operations of the
	// three goroutines over more interleavings than back-to-back calls
	// produce; a pause is a short spin or, rarely, a yield.
	var pause [3][6]int
	for g := range pause {
		for i := range pause[g] {
			pause[g][i] = rng.IntN(64)
			if rng.IntN(8) == 0 {
				pause[g][i] = -1
			}
		}
	}

	var clock atomic.Int64
	var ready atomic.Int32
	var wg sync.WaitGroup
	hs := make([][]linOp, 3)
	// start holds each goroutine until at least two of the three run, so
	// that they start together instead of one after another (on 2 CPUs
	// only two run at once). It spins rather than yields, since a
	// goroutine that yields comes back microseconds later, after the
	// others have finished; the spin is bounded so that GOMAXPROCS=1
	// still makes progress.
	start := func() {
		ready.Add(1)
		for i := 0; ready.Load() < min(3, int32(runtime.GOMAXPROCS(0))); i++ {
			if i > 1<<16 {
				runtime.Gosched()
			}
		}
	}
	gate := func(g, i int) {
		if pause[g][i] < 0 {
			runtime.Gosched()
		}
		for range pause[g][i] {
			clock.Load()
		}
	}
	wg.Go(func() {
		start()
		for i, k := range ownerPlan {
			gate(0, i)
			o := linOp{kind: k}
			switch k {
			case opPush:
				o.in = vals[nextVal]
				x := &vals[nextVal]
				nextVal++
				o.call = clock.Add(1)
				d.Push(x)
				o.ret = clock.Add(1)
			case opPop:
				o.call = clock.Add(1)
				x := d.Pop()
				o.ret = clock.Add(1)
				if x != nil {
					o.out = *x
				}
			}
			hs[0] = append(hs[0], o)
		}
	})
	for g := 1; g <= 2; g++ {
		wg.Go(func() {
			start()
			for i := range 3 {
				gate(g, i)
				o := linOp{kind: opSteal}
				o.call = clock.Add(1)
				x, retry := d.Steal()
				o.ret = clock.Add(1)
				o.retry = retry
				if x != nil {
					o.out = *x
				}
				hs[g] = append(hs[g], o)
			}
		})
	}
	wg.Wait()
	for _, g := range hs {
		h = append(h, g...)
	}
	return init, h, ringLen(d) > 2
}
