package deque

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"unsafe"
)

// ringLen returns the length of d's current ring.
func ringLen[T any](d *Deque[T]) int { return len(d.ring.Load().slots) }

func TestNewRoundsCapacity(t *testing.T) {
	for _, c := range []struct{ in, want int }{
		{-5, 2}, {0, 2}, {1, 2}, {2, 2}, {3, 4}, {4, 4}, {5, 8},
		{63, 64}, {64, 64}, {65, 128}, {1000, 1024},
	} {
		if got := ringLen(New[int](c.in)); got != c.want {
			t.Errorf("New(%d): ring of %d, want %d", c.in, got, c.want)
		}
	}
}

// TestLayout checks that top and bottom (with the ring pointer) lie on
// separate 128-byte blocks, apart from whatever surrounds the Deque.
func TestLayout(t *testing.T) {
	var d Deque[int]
	top, bottom, ring := unsafe.Offsetof(d.top), unsafe.Offsetof(d.bottom), unsafe.Offsetof(d.ring)
	if top < padSize || bottom-top < padSize || unsafe.Sizeof(d)-bottom < padSize || ring != bottom+8 {
		t.Errorf("layout: top at %d, bottom at %d, ring at %d, size %d", top, bottom, ring, unsafe.Sizeof(d))
	}
}

func TestNewPanicsOnHugeCapacity(t *testing.T) {
	if strconv.IntSize < 64 {
		t.Skip("an int cannot exceed maxCapacity here")
	}
	defer func() {
		if recover() == nil {
			t.Fatal("New(maxCapacity+1) did not panic")
		}
	}()
	huge := maxCapacity + 1 // a variable: the conversion below is checked at run time
	New[int](int(huge))
}

func TestPushNilPanics(t *testing.T) {
	d := newIntDeque(2)
	defer func() {
		if recover() == nil {
			t.Fatal("Push(nil) did not panic")
		}
		if d.Len() != 0 {
			t.Fatalf("Len after rejected Push(nil) = %d", d.Len())
		}
	}()
	d.Push(nil)
}

func TestEmpty(t *testing.T) {
	d := newIntDeque(2)
	if x := d.Pop(); x != nil {
		t.Fatalf("Pop on empty = %v", x)
	}
	if x, retry := d.Steal(); x != nil || retry {
		t.Fatalf("Steal on empty = %v, %v", x, retry)
	}
	if n := d.Len(); n != 0 || !d.Empty() {
		t.Fatalf("Len on empty = %d, Empty %v", n, d.Empty())
	}
	// Pop on empty must leave the indices as they were.
	if d.top.Load() != 0 || d.bottom.Load() != 0 {
		t.Fatalf("after empty Pop: top %d, bottom %d", d.top.Load(), d.bottom.Load())
	}
}

// TestPopClearsSlot checks that the owner drops its reference to a popped
// element, in both the "more than one element" and the "last element" path.
func TestPopClearsSlot(t *testing.T) {
	d := New[int](4)
	a, b := new(int), new(int)
	d.Push(a)
	d.Push(b)
	if d.Pop() != b {
		t.Fatal("Pop did not return the newest element")
	}
	if d.ring.Load().slots[1].Load() != nil {
		t.Error("slot of an element popped with t < b not cleared")
	}
	if d.Pop() != a {
		t.Fatal("Pop did not return the last element")
	}
	if d.ring.Load().slots[0].Load() != nil {
		t.Error("slot of the last element popped not cleared")
	}
}

// TestGrowKeepsOrder fills a ring past its size several times, with a
// stolen prefix so that the live range wraps around the ring.
func TestGrowKeepsOrder(t *testing.T) {
	d := newIntDeque(2)
	vals := make([]int, 100)
	for i := range vals {
		vals[i] = i
	}
	next := 0
	for range 3 {
		d.Push(&vals[next])
		next++
	}
	if x, _ := d.Steal(); x != &vals[0] {
		t.Fatal("first steal")
	}
	for next < len(vals) {
		d.Push(&vals[next])
		next++
	}
	if got := ringLen(d); got != 128 {
		t.Fatalf("ring of %d after 99 live elements, want 128", got)
	}
	for i := 1; i < 50; i++ {
		if x, retry := d.Steal(); x != &vals[i] || retry {
			t.Fatalf("steal %d: got %v, %v", i, x, retry)
		}
	}
	for i := 99; i >= 50; i-- {
		if x := d.Pop(); x != &vals[i] {
			t.Fatalf("pop %d: got %v", i, x)
		}
	}
	if d.Pop() != nil || d.Len() != 0 {
		t.Fatal("not empty at the end")
	}
}

// TestSequentialModel runs random programs of Push, Pop, Steal and Len on
// one goroutine and compares every result with a slice model. Starting from
// capacities 2 and 4 the rings grow many times.
func TestSequentialModel(t *testing.T) {
	runs := sized(100, 400)
	for seed := range uint64(runs) {
		rng := rand.New(rand.NewPCG(seed, 0x5eed))
		capacity := 2 << rng.IntN(2)
		steps := 50 + rng.IntN(2000)
		// The push probability drifts so that the deque both grows large
		// and drains to empty within one run.
		pushPct := 20 + rng.IntN(60)
		if err := runModel(capacity, steps, func() int {
			if rng.IntN(100) < 5 {
				pushPct = 20 + rng.IntN(60)
			}
			r := rng.IntN(100)
			switch {
			case r < pushPct:
				return opPush
			case r < pushPct+(100-pushPct)/2:
				return opPop
			case r < 97:
				return opSteal
			default:
				return opLen
			}
		}); err != "" {
			t.Fatalf("seed %d: %s", seed, err)
		}
	}
}

const (
	opPush = iota
	opPop
	opSteal
	opLen
)

// runModel runs steps operations chosen by next on a fresh deque and on a
// slice model and returns a description of the first difference, or "".
func runModel(capacity, steps int, next func() int) string {
	d := newIntDeque(capacity)
	var model []*int
	for step := range steps {
		switch next() {
		case opPush:
			x := new(int)
			*x = step
			d.Push(x)
			model = append(model, x)
		case opPop:
			var want *int
			if n := len(model); n > 0 {
				want, model = model[n-1], model[:n-1]
			}
			if got := d.Pop(); got != want {
				return fmt.Sprintf("step %d: Pop = %s, want %s", step, show(got), show(want))
			}
		case opSteal:
			var want *int
			if len(model) > 0 {
				want, model = model[0], model[1:]
			}
			got, retry := d.Steal()
			if got != want || retry {
				return fmt.Sprintf("step %d: Steal = %s, %v, want %s, false", step, show(got), retry, show(want))
			}
		case opLen:
		}
		if got := d.Len(); got != len(model) {
			return fmt.Sprintf("step %d: Len = %d, want %d", step, got, len(model))
		}
		if got := d.Empty(); got != (len(model) == 0) {
			return fmt.Sprintf("step %d: Empty = %v with %d elements", step, got, len(model))
		}
		if r := d.ring.Load(); len(model) > len(r.slots) {
			return fmt.Sprintf("step %d: %d elements in a ring of %d", step, len(model), len(r.slots))
		}
	}
	return ""
}

// TestNoAllocs checks that the hot paths allocate nothing once the ring is
// big enough.
func TestNoAllocs(t *testing.T) {
	d := New[int](16)
	x := new(int)
	if n := testing.AllocsPerRun(1000, func() {
		d.Push(x)
		d.Push(x)
		d.Pop()
		d.Pop()
		d.Pop()
	}); n != 0 {
		t.Errorf("Push/Pop: %v allocs per run", n)
	}
	if n := testing.AllocsPerRun(1000, func() {
		d.Push(x)
		d.Steal()
		d.Steal()
		d.Len()
	}); n != 0 {
		t.Errorf("Steal: %v allocs per run", n)
	}
}

// TestStressExactlyOnce runs one owner that pushes (in bursts, to force the
// ring to grow while thieves are active) and pops, against more thieves than
// CPUs, on deques that start with a ring of 2. Every pushed value must be
// taken exactly once. Values are pushed in increasing order, which allows
// two order checks as well:
//
//   - each thief's successive steals are strictly increasing (FIFO end: a
//     thief takes index top, and top only grows);
//   - each value the owner pops is the newest value it pushed and has not
//     popped (LIFO end: an element pushed later sits below it, and thieves
//     cannot take it without first taking the older one).
func TestStressExactlyOnce(t *testing.T) {
	const thieves = 8
	rounds, perRound := sized(8, 40), sized(5000, 20000)
	maxRing := 0
	for round := range rounds {
		maxRing = max(maxRing, stressRound(t, uint64(round), thieves, perRound))
		if t.Failed() {
			return
		}
	}
	if maxRing <= 2 {
		t.Errorf("the ring never grew (largest ring %d)", maxRing)
	}
	t.Logf("largest ring: %d", maxRing)
}

func stressRound(t *testing.T, seed uint64, thieves, n int) (ringSize int) {
	d := newIntDeque(2)
	vals := make([]int, n)
	taken := make([]atomic.Int32, n)
	var done atomic.Bool
	var wg sync.WaitGroup
	var steals, retries atomic.Int64
	for th := range thieves {
		wg.Go(func() {
			last := -1
			for {
				x, retry := d.Steal()
				if x != nil {
					v := *x
					taken[v].Add(1)
					steals.Add(1)
					if v <= last {
						t.Errorf("thief %d stole %d after %d", th, v, last)
					}
					last = v
					continue
				}
				if retry {
					retries.Add(1)
					continue
				}
				if done.Load() {
					return
				}
				runtime.Gosched()
			}
		})
	}

	rng := rand.New(rand.NewPCG(seed, 1))
	var stack []int // pushed by the owner, not popped by the owner
	pop := func() {
		x := d.Pop()
		if x == nil {
			// Everything still on the stack was stolen.
			stack = stack[:0]
			return
		}
		v := *x
		taken[v].Add(1)
		if len(stack) == 0 || stack[len(stack)-1] != v {
			t.Errorf("owner popped %d, newest owned value is %v", v, stack[max(0, len(stack)-1):])
			return
		}
		stack = stack[:len(stack)-1]
	}
	next := 0
	for next < n {
		burst := 1 + rng.IntN(8)
		if rng.IntN(16) == 0 {
			burst = 1 + rng.IntN(200)
		}
		for ; burst > 0 && next < n; burst-- {
			vals[next] = next
			d.Push(&vals[next])
			stack = append(stack, next)
			next++
		}
		for range rng.IntN(6) {
			pop()
		}
		if l := d.Len(); l < 0 || l > n {
			t.Errorf("Len = %d", l)
		}
	}
	done.Store(true)
	wg.Wait()
	ringSize = ringLen(d)
	for d.Len() > 0 {
		pop()
	}
	if x := d.Pop(); x != nil {
		t.Errorf("Pop after drain = %d", *x)
	}
	for v := range taken {
		if c := taken[v].Load(); c != 1 {
			t.Errorf("round %d: value %d taken %d times", seed, v, c)
		}
	}
	if seed == 0 {
		t.Logf("round 0: %d steals, %d lost races, ring %d", steals.Load(), retries.Load(), ringSize)
	}
	return ringSize
}

func show(x *int) string {
	if x == nil {
		return "nil"
	}
	return fmt.Sprint(*x)
}

// TestTopOnlyGrows: Top never decreases, grows by one exactly when an
// element leaves from the top (a steal, or the owner's pop of the last
// element), and stays put when the owner pops above other elements.
func TestTopOnlyGrows(t *testing.T) {
	for seed := range uint64(100) {
		rng := rand.New(rand.NewPCG(seed, 7))
		d := newIntDeque(2)
		vals := make([]int, 64)
		for range 2000 {
			before, n := d.Top(), d.Len()
			switch r := rng.IntN(3); {
			case r == 0 && n < 60:
				d.Push(&vals[rng.IntN(len(vals))])
				if d.Top() != before {
					t.Fatalf("seed %d: Push moved Top from %d to %d", seed, before, d.Top())
				}
			case r == 1:
				x := d.Pop()
				want := before
				if x != nil && n == 1 {
					want = before + 1
				}
				if d.Top() != want {
					t.Fatalf("seed %d: Pop of %d elements moved Top from %d to %d, want %d", seed, n, before, d.Top(), want)
				}
			default:
				x, _ := d.Steal()
				want := before
				if x != nil {
					want = before + 1
				}
				if d.Top() != want {
					t.Fatalf("seed %d: Steal (got %v) moved Top from %d to %d, want %d", seed, x != nil, before, d.Top(), want)
				}
			}
		}
	}
}
