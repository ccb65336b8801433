package deque

import "testing"

// newIntDeque makes the deque that the model, stress, linearizability,
// interleaving, schedule and fuzz tests run on; TestRecycled switches it to
// NewRecycled and runs those suites again.
var newIntDeque = New[int]

// recycling is set while TestRecycled runs the suites on NewRecycled.
var recycling bool

// Catches: a NewRecycled deque whose skipped slot stores or uncleared slots
// break exactly-once, order or linearizability (for example a Push that
// skips the store although the slot holds another element). Without -long
// its schedule exploration covers the witnesses only (see
// TestSchedulesExhaustive).
func TestRecycled(t *testing.T) {
	newIntDeque, recycling = NewRecycled[int], true
	defer func() { newIntDeque, recycling = New[int], false }()
	suites := []struct {
		name string
		run  func(*testing.T)
	}{
		{"SequentialModel", TestSequentialModel},
		{"StressExactlyOnce", TestStressExactlyOnce},
		{"Linearizable", TestLinearizable},
		{"Interleavings", TestInterleavings},
		{"SchedulesExhaustive", TestSchedulesExhaustive},
		{"SchedulesRandom", TestSchedulesRandom},
	}
	for _, s := range suites {
		t.Run(s.name, s.run)
	}
}

// Catches: a recycled deque that still clears slots (losing the point of
// it) or whose Push stores although the slot already holds x.
func TestRecycledKeepsSlots(t *testing.T) {
	d := NewRecycled[int](4)
	x := new(int)
	d.Push(x)
	if d.Pop() != x {
		t.Fatal("pop did not return the pushed element")
	}
	r := d.ring.Load()
	if r.slots[0].Load() != x {
		t.Error("a recycled deque cleared the slot of a popped element")
	}
	d.Push(x) // same element, same slot: the store is skipped
	if got, retry := d.Steal(); got != x || retry {
		t.Errorf("steal after a skipped store = %v, %v; want the element", got, retry)
	}
	y := new(int)
	d.Push(y) // another element in the slot that holds x: must be stored
	if d.Pop() != y {
		t.Error("push of a new element over a stale slot returned the stale one")
	}
}
