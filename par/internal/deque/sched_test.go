package deque

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// The tests in this file run an owner and two thieves as goroutines of
// which exactly one runs at a time. Each stops at every hookPoint it reaches
// and between its operations, and a controller decides which one goes on
// next. Several operations can thus be stopped in the middle at once (a thief
// between its loads while the owner is between its store of bottom and its
// load of top, say), which TestInterleavings, with one pause, cannot reach.
// Every history is checked for linearizability.
//
// TestSchedulesExhaustive tries every schedule of small programs with at
// most two preemptions (switches away from an actor stopped inside an
// operation; switches between operations are free), as CHESS does (Musuvathi
// and Qadeer, PLDI 2007): most concurrency bugs need few preemptions, and
// the bugs of this algorithm need two. TestSchedulesRandom runs larger
// programs under seeded random schedules.

// schedConfig is a program: elements pushed before the actors start, and
// the operations of the owner (actor 0: opPush, opPop) and of the thieves
// (actors 1 and 2: opSteal).
type schedConfig struct {
	prefill int
	plans   [3][]int
}

func (c schedConfig) String() string {
	return fmt.Sprintf("prefill %d, owner %v, thief 1 %v, thief 2 %v",
		c.prefill, opNames(c.plans[0]), opNames(c.plans[1]), opNames(c.plans[2]))
}

// schedStep records one decision of the controller.
type schedStep struct {
	enabled   []int // actors not finished, ascending
	prev      int   // the actor that ran before; -1 at the start
	prevInOp  bool  // prev stopped inside an operation (at a hook), not between two
	chosen    int
	preempted bool // chosen != prev although prev could have gone on inside its operation
}

type schedStop struct {
	actor    int
	inOp     bool // stopped at a hook, inside an operation
	finished bool
}

// execute runs c once, asking choose which actor goes next at every step,
// and returns the history and the decisions taken.
func execute(c schedConfig, choose func(s *schedStep) int) (init []int, h []linOp, trace []schedStep) {
	d := newIntDeque(2)
	vals := make([]int, 32)
	for i := range vals {
		vals[i] = i + 1
	}
	next := 0
	for range c.prefill {
		d.Push(&vals[next])
		init = append(init, vals[next])
		next++
	}
	var (
		turn    [3]chan struct{}
		stopped = make(chan schedStop)
		cur     int   // the running actor; written by the controller before it grants a turn
		clock   int64 // advanced only by the running actor
		hs      [3][]linOp
	)
	for a := range turn {
		turn[a] = make(chan struct{})
	}
	testHook = func(hookPoint) {
		a := cur
		stopped <- schedStop{actor: a, inOp: true}
		<-turn[a]
	}
	for a := range 3 {
		go func() {
			<-turn[a]
			for i, k := range c.plans[a] {
				if i > 0 {
					stopped <- schedStop{actor: a}
					<-turn[a]
				}
				clock++
				o := linOp{kind: k, call: clock}
				var x *int
				if k == opPush {
					x = &vals[next]
					next++
				}
				applyOp(d, &o, x)
				clock++
				o.ret = clock
				hs[a] = append(hs[a], o)
			}
			stopped <- schedStop{actor: a, finished: true}
		}()
	}
	active := []int{0, 1, 2}
	prev, prevInOp := -1, false
	for len(active) > 0 {
		s := schedStep{enabled: slices.Clone(active), prev: prev, prevInOp: prevInOp}
		s.chosen = choose(&s)
		if !slices.Contains(active, s.chosen) {
			panic("chose an actor that is not enabled")
		}
		s.preempted = prevInOp && s.chosen != prev && slices.Contains(active, prev)
		trace = append(trace, s)
		cur = s.chosen
		turn[cur] <- struct{}{}
		stop := <-stopped
		prev, prevInOp = stop.actor, stop.inOp
		if stop.finished {
			active = slices.DeleteFunc(active, func(a int) bool { return a == stop.actor })
		}
	}
	testHook = nil // every actor has finished
	for _, ops := range hs {
		h = append(h, ops...)
	}
	// Drain as the owner; the checker then needs Pop to report empty only
	// when every element has been taken, so a lost element shows.
	for range len(vals) {
		clock++
		o := linOp{kind: opPop, call: clock}
		if x := d.Pop(); x != nil {
			o.out = *x
		}
		clock++
		o.ret = clock
		h = append(h, o)
		if o.out == 0 {
			break
		}
	}
	return init, h, trace
}

// explore runs every schedule of c with at most bound preemptions, by
// re-execution: run a prefix of decisions, go on by letting the actor that
// ran last continue, and branch at every step after the prefix. It checks
// each history and returns the number of schedules.
func explore(t *testing.T, c schedConfig, bound int) int {
	n := 0
	var dfs func(prefix []int)
	dfs = func(prefix []int) {
		step := 0
		init, h, trace := execute(c, func(s *schedStep) int {
			k := step
			step++
			if k < len(prefix) {
				return prefix[k]
			}
			if slices.Contains(s.enabled, s.prev) {
				return s.prev
			}
			return s.enabled[0]
		})
		n++
		if ok, _ := linearizable(init, h); !ok {
			t.Fatalf("%v, schedule %v: history is not linearizable:\n%s", c, choices(trace), describe(init, h))
		}
		used := 0
		for k, s := range trace {
			if k >= len(prefix) {
				for _, a := range s.enabled {
					if a == s.chosen {
						continue
					}
					cost := used
					if s.prevInOp && a != s.prev && slices.Contains(s.enabled, s.prev) {
						cost++
					}
					if cost <= bound {
						dfs(append(choices(trace[:k]), a))
					}
				}
			}
			if s.preempted {
				used++
			}
		}
	}
	dfs(nil)
	return n
}

func choices(trace []schedStep) []int {
	c := make([]int, len(trace))
	for i, s := range trace {
		c[i] = s.chosen
	}
	return c
}

// TestSchedulesExhaustive explores, under -long, every program of up to
// two owner operations, three steals and three prefilled elements, with at
// most two preemptions (123,377 schedules). By default it explores every
// program with at most one preemption and, with two, the witnesses below;
// on the recycled deque (TestRecycled) and under the race detector, which
// cannot see into runs that hand over through channels, the witnesses only.
func TestSchedulesExhaustive(t *testing.T) {
	if (recycling || raceEnabled) && !*long {
		total := 0
		for _, c := range witnesses {
			total += explore(t, c, 2)
		}
		t.Logf("%d programs, %d schedules with at most 2 preemptions", len(witnesses), total)
		return
	}
	var configs []schedConfig
	for prefill := range 4 {
		for _, owner := range sequences([]int{opPush, opPop}, 2)[1:] {
			for _, thieves := range [][2]int{{1, 1}, {2, 1}} {
				c := schedConfig{prefill: prefill}
				c.plans[0] = owner
				c.plans[1] = slices.Repeat([]int{opSteal}, thieves[0])
				c.plans[2] = slices.Repeat([]int{opSteal}, thieves[1])
				configs = append(configs, c)
			}
		}
	}
	bound := sized(1, 2)
	total := 0
	for _, c := range configs {
		total += explore(t, c, bound)
	}
	if !*long {
		for _, c := range witnesses {
			total += explore(t, c, 2)
		}
	}
	t.Logf("%d programs, %d schedules with at most %d preemptions (and %d programs with 2)", len(configs), total, bound, len(witnesses))
}

// witnesses are the smallest programs in which each known bug of this
// algorithm shows within two preemptions; each was found by exploring
// every program above with the bug put into deque.go. The default run
// explores them to two preemptions (8,643 schedules), the others to one.
var witnesses = []schedConfig{
	// A thief reading its slot after its CAS, which the owner has reused
	// by then.
	{prefill: 0, plans: [3][]int{{opPush, opPop}, {opSteal}, {opSteal}}},
	// A thief loading bottom before top; the owner loading top before it
	// stores the reserved bottom; the owner taking the last element
	// without a CAS.
	{prefill: 1, plans: [3][]int{{opPush, opPop}, {opSteal}, {opSteal}}},
	// A thief loading the ring before top and bottom; a grown ring
	// published after bottom; a recycled deque's Push skipping the store
	// of a new element.
	{prefill: 2, plans: [3][]int{{opPush}, {opSteal, opSteal}, {opSteal}}},
	// The owner restoring bottom before its CAS for the last element.
	{prefill: 2, plans: [3][]int{{opPop}, {opSteal, opSteal}, {opSteal}}},
	// The owner not restoring bottom after thieves emptied the deque
	// under its reservation.
	{prefill: 2, plans: [3][]int{{opPush, opPop}, {opSteal}, {opSteal}}},
}

// TestSchedulesRandom runs larger programs under seeded random schedules:
// uniformly random at every step, or "sticky", letting the running actor go
// on with probability 3/4 so that one operation often runs through a whole
// window of another. Under the race detector, which sees nothing in these
// one-at-a-time runs, the default run takes a quarter of the seeds.
func TestSchedulesRandom(t *testing.T) {
	runs := sized(2000, 20000)
	if raceEnabled && !*long {
		runs /= 4
	}
	for seed := range uint64(runs) {
		rng := rand.New(rand.NewPCG(seed, 11))
		c := schedConfig{prefill: rng.IntN(4)}
		for range 2 + rng.IntN(4) {
			k := opPop
			if rng.IntN(100) < 55 {
				k = opPush
			}
			c.plans[0] = append(c.plans[0], k)
		}
		for a := 1; a <= 2; a++ {
			c.plans[a] = slices.Repeat([]int{opSteal}, 1+rng.IntN(3))
		}
		sticky := seed%2 == 1
		init, h, trace := execute(c, func(s *schedStep) int {
			if sticky && slices.Contains(s.enabled, s.prev) && rng.IntN(4) != 0 {
				return s.prev
			}
			return s.enabled[rng.IntN(len(s.enabled))]
		})
		if ok, _ := linearizable(init, h); !ok {
			t.Fatalf("seed %d: %v, schedule %v: history is not linearizable:\n%s", seed, c, choices(trace), describe(init, h))
		}
	}
}
