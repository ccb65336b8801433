package deque

import (
	"fmt"
	"sync/atomic"
	"testing"
)

// The tests in this file pause one operation at a hookPoint, run other
// operations to completion meanwhile, resume it, drain the deque, and check
// the whole history with the linearizability checker. Unlike the random
// stress tests, they reach every interleaving of this shape on every run,
// including the ones that the known bug classes need: a thief holding a ring
// across a resize, a thief holding indices while the owner drains the deque,
// the owner between its reservation of bottom and its load of top, and the
// owner and a thief racing for the last element.
//
// These tests and those of sched_test.go set the package variable testHook,
// so no test of this package may call t.Parallel.

// pauseAt makes the first goroutine that reaches point stop there until
// resume is closed; paused is closed when it stops.
func pauseAt(t *testing.T, point hookPoint) (paused, resume chan struct{}) {
	paused, resume = make(chan struct{}), make(chan struct{})
	var armed atomic.Bool
	armed.Store(true)
	testHook = func(p hookPoint) {
		if p == point && armed.CompareAndSwap(true, false) {
			close(paused)
			<-resume
		}
	}
	t.Cleanup(func() { testHook = nil })
	return paused, resume
}

type interleaving struct {
	point   hookPoint
	paused  int   // opSteal (a thief) or opPop or opPush (the owner)
	prefill int   // elements pushed before, not part of the history
	others  []int // run by the test goroutine while the paused op waits
}

func (s interleaving) String() string {
	return fmt.Sprintf("paused %v at point %d, prefill %d, others %v", opName(s.paused), s.point, s.prefill, opNames(s.others))
}

func opName(k int) string { return [...]string{"Push", "Pop", "Steal", "Len"}[k] }

func opNames(ks []int) []string {
	var s []string
	for _, k := range ks {
		s = append(s, opName(k))
	}
	return s
}

// run runs s on a deque with a ring of 2 and reports whether the paused
// operation reached its hook point, and the history.
func (s interleaving) run(t *testing.T) (hit bool, init []int, h []linOp) {
	d := newIntDeque(2)
	vals := make([]int, 32)
	for i := range vals {
		vals[i] = i + 1
	}
	next := 0
	push := func() *int { x := &vals[next]; next++; return x }
	for range s.prefill {
		x := push()
		d.Push(x)
		init = append(init, *x)
	}
	var clock int64
	tick := func() int64 { clock++; return clock }
	do := func(k int) linOp {
		o := linOp{kind: k}
		var x *int
		if k == opPush {
			x = push()
		}
		applyOp(d, &o, x)
		return o
	}

	paused, resume := pauseAt(t, s.point)
	done := make(chan linOp)
	call := tick()
	// The paused op's Push value is chosen here, before the goroutine
	// starts, so that the test goroutine's pushes do not race with it.
	var pushed *int
	if s.paused == opPush {
		pushed = push()
	}
	go func() {
		var o linOp
		if pushed != nil {
			o = linOp{kind: opPush, in: *pushed}
			d.Push(pushed)
		} else {
			o = do(s.paused)
		}
		done <- o
	}()
	var p linOp
	select {
	case <-paused:
		hit = true
	case p = <-done:
		// It finished without reaching the point: no overlap, and
		// the operations below must not stop at the hook either.
		testHook = nil
		p.call, p.ret = call, tick()
		h = append(h, p)
	}
	for _, k := range s.others {
		c := tick()
		o := do(k)
		o.call, o.ret = c, tick()
		h = append(h, o)
	}
	close(resume)
	if hit {
		p = <-done
		p.call, p.ret = call, tick()
		h = append(h, p)
	}
	// Drain as the owner until Pop reports empty.
	for range len(vals) {
		c := tick()
		o := do(opPop)
		o.call, o.ret = c, tick()
		h = append(h, o)
		if o.out == 0 {
			break
		}
	}
	if n := d.Len(); n != 0 || d.top.Load() != d.bottom.Load() {
		t.Errorf("%v: after drain Len %d, top %d, bottom %d", s, n, d.top.Load(), d.bottom.Load())
	}
	return hit, init, h
}

// sequences returns every sequence of length 0..n over alphabet.
func sequences(alphabet []int, n int) [][]int {
	all := [][]int{nil}
	level := [][]int{nil}
	for range n {
		var nextLevel [][]int
		for _, s := range level {
			for _, k := range alphabet {
				nextLevel = append(nextLevel, append(append([]int(nil), s...), k))
			}
		}
		all = append(all, nextLevel...)
		level = nextLevel
	}
	return all
}

func TestInterleavings(t *testing.T) {
	var cases []interleaving
	// A thief paused at each of its points while the owner pushes (with
	// growth: the ring starts at 2), pops, and another thief steals.
	for _, point := range []hookPoint{hookStealStart, hookStealTop, hookStealIndices, hookStealSlot, hookStealWon} {
		for prefill := range 4 {
			for _, others := range sequences([]int{opPush, opPop, opSteal}, 4) {
				cases = append(cases, interleaving{point, opSteal, prefill, others})
			}
		}
	}
	// The owner paused in Pop while thieves steal: with 2 or more
	// elements, between its first load of top and its store of bottom, and
	// between that store and its second load of top; and before its CAS
	// for the last element.
	for _, point := range []hookPoint{hookPopLoaded, hookPopReserved, hookTakeTop} {
		for prefill := 1; prefill <= 4; prefill++ {
			for _, others := range sequences([]int{opSteal}, 4) {
				cases = append(cases, interleaving{point, opPop, prefill, others})
			}
		}
	}
	// The owner paused in a Push that grows a full ring, before and after
	// publishing the new ring, and after raising bottom, while thieves
	// steal.
	for _, point := range []hookPoint{hookGrowCopied, hookGrowPublished, hookGrowPushed} {
		for _, prefill := range []int{2, 4} {
			for _, others := range sequences([]int{opSteal}, 5) {
				cases = append(cases, interleaving{point, opPush, prefill, others})
			}
		}
	}

	hits := make(map[hookPoint]int)
	for _, s := range cases {
		hit, init, h := s.run(t)
		if hit {
			hits[s.point]++
		}
		if ok, _ := linearizable(init, h); !ok {
			t.Fatalf("%v: history is not linearizable:\n%s", s, describe(init, h))
		}
	}
	for p := range hookPoint(hookCount) {
		if hits[p] == 0 {
			t.Errorf("no case paused at hook point %d", p)
		}
	}
	t.Logf("%d interleavings, paused at each point: %v", len(cases), hits)
}

// applyOp runs the operation o.kind on d and records its input and result
// in o; x is the element to push (nil for the other operations).
func applyOp(d *Deque[int], o *linOp, x *int) {
	switch o.kind {
	case opPush:
		o.in = *x
		d.Push(x)
	case opPop:
		if x := d.Pop(); x != nil {
			o.out = *x
		}
	case opSteal:
		x, retry := d.Steal()
		o.retry = retry
		if x != nil {
			o.out = *x
		}
	}
}
