package deque

import (
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
)

// fuzzProgram is the meaning of FuzzDeque's input:
//
//	byte 0       initial capacity: 1 << (byte % 5), so 1 (rounded to 2) .. 16
//	byte 1       number of concurrent thieves: byte % 4
//	bytes 2..    owner operations, one per byte b:
//	             b%8 in 0..3: push (b>>3)%4 + 1 values
//	             b%8 in 4..5: pop
//	             b%8 == 6:    steal (by the owner goroutine)
//	             b%8 == 7:    check Len
//
// At most 512 operations are used.
type fuzzProgram struct {
	capacity int
	thieves  int
	ops      []byte
}

func parseFuzz(data []byte) fuzzProgram {
	p := fuzzProgram{capacity: 1}
	if len(data) > 0 {
		p.capacity = 1 << (data[0] % 5)
	}
	if len(data) > 1 {
		p.thieves = int(data[1] % 4)
		p.ops = data[2:min(len(data), 2+512)]
	}
	return p
}

// FuzzDeque runs the program twice. First on one goroutine, compared step by
// step with a slice model. Then with the owner's operations on one goroutine
// and the thieves stealing concurrently, checking that every pushed value is
// taken exactly once, that each stealer (including the owner's own steals)
// sees strictly increasing values, and that each value the owner pops is the
// newest one it pushed and has not popped or stolen itself.
func FuzzDeque(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{0, 0, 0, 4, 4, 6, 7})
	f.Add([]byte{0, 2, 0x18, 0x18, 0x18, 0x18, 4, 6, 4, 6, 4, 4, 4, 7})
	f.Add([]byte{1, 3, 0x19, 0x19, 0x19, 0x19, 0x19, 0x19, 0x19, 0x19, 4, 7, 6, 6, 6, 4})
	f.Add([]byte{4, 1, 0x1b, 0x1b, 0x1b, 0x1b, 0x1b, 0x1b, 0x1b, 0x1b, 0x1b, 4, 4, 4, 4, 4, 4, 4, 4})
	f.Add([]byte{2, 3, 0, 4, 0, 4, 0, 4, 0, 6, 0, 6, 8, 4, 4, 4, 16, 5, 7, 0x18, 0x18, 0x1e, 0x1e})
	long := []byte{0, 3}
	for i := range 400 {
		long = append(long, []byte{0x18, 0x18, 4, 6, 0x08, 5, 7}[i%7])
	}
	f.Add(long)

	f.Fuzz(func(t *testing.T, data []byte) {
		p := parseFuzz(data)
		fuzzSequential(t, p)
		fuzzConcurrent(t, p)
	})
}

func fuzzSequential(t *testing.T, p fuzzProgram) {
	d := newIntDeque(p.capacity)
	var model []*int
	next := 1
	for step, b := range p.ops {
		switch b % 8 {
		case 0, 1, 2, 3:
			for range int(b>>3)%4 + 1 {
				x := new(int)
				*x = next
				next++
				d.Push(x)
				model = append(model, x)
			}
		case 4, 5:
			var want *int
			if n := len(model); n > 0 {
				want, model = model[n-1], model[:n-1]
			}
			if got := d.Pop(); got != want {
				t.Fatalf("step %d: Pop = %s, want %s", step, show(got), show(want))
			}
		case 6:
			var want *int
			if len(model) > 0 {
				want, model = model[0], model[1:]
			}
			if got, retry := d.Steal(); got != want || retry {
				t.Fatalf("step %d: Steal = %s, %v, want %s, false", step, show(got), retry, show(want))
			}
		case 7:
		}
		if got := d.Len(); got != len(model) {
			t.Fatalf("step %d: Len = %d, want %d", step, got, len(model))
		}
		if got := d.Empty(); got != (len(model) == 0) {
			t.Fatalf("step %d: Empty = %v with %d elements", step, got, len(model))
		}
	}
}

func fuzzConcurrent(t *testing.T, p fuzzProgram) {
	n := 0
	for _, b := range p.ops {
		if b%8 < 4 {
			n += int(b>>3)%4 + 1
		}
	}
	vals := make([]int, n)
	taken := make([]atomic.Int32, n)
	d := newIntDeque(p.capacity)

	var done atomic.Bool
	var wg sync.WaitGroup
	stolen := make([][]int, p.thieves)
	for th := range p.thieves {
		wg.Go(func() {
			for {
				x, retry := d.Steal()
				if x != nil {
					taken[*x].Add(1)
					stolen[th] = append(stolen[th], *x)
					continue
				}
				if retry {
					continue
				}
				if done.Load() {
					return
				}
				runtime.Gosched()
			}
		})
	}

	// owned holds the values the owner pushed and has not popped or stolen
	// itself, oldest first; some of them may have been stolen by thieves,
	// but never one above a value still in the deque.
	var owned, ownSteals []int
	next := 0
	pop := func(step int) {
		x := d.Pop()
		if x == nil {
			// The thieves took all the rest.
			owned = owned[:0]
			return
		}
		v := *x
		taken[v].Add(1)
		if len(owned) == 0 || owned[len(owned)-1] != v {
			t.Errorf("step %d: owner popped %d, newest owned value is %v", step, v, owned[max(0, len(owned)-1):])
			return
		}
		owned = owned[:len(owned)-1]
	}
	for step, b := range p.ops {
		switch b % 8 {
		case 0, 1, 2, 3:
			for range int(b>>3)%4 + 1 {
				vals[next] = next
				d.Push(&vals[next])
				owned = append(owned, next)
				next++
			}
		case 4, 5:
			pop(step)
		case 6:
			x, _ := d.Steal()
			if x != nil {
				v := *x
				taken[v].Add(1)
				ownSteals = append(ownSteals, v)
				// Values older than v are gone (stolen).
				i := slices.Index(owned, v)
				if i < 0 {
					t.Errorf("step %d: owner stole %d, which it does not own", step, v)
					continue
				}
				owned = owned[i+1:]
			}
		case 7:
			if l := d.Len(); l < 0 || l > next {
				t.Errorf("step %d: Len = %d with %d values pushed", step, l, next)
			}
		}
	}
	done.Store(true)
	wg.Wait()
	for d.Len() > 0 {
		pop(len(p.ops))
	}
	if x := d.Pop(); x != nil {
		t.Errorf("Pop after drain = %d", *x)
	}
	for v := range taken {
		if c := taken[v].Load(); c != 1 {
			t.Errorf("value %d taken %d times", v, c)
		}
	}
	for th, s := range append(stolen, ownSteals) {
		for i := 1; i < len(s); i++ {
			if s[i] <= s[i-1] {
				t.Errorf("stealer %d stole %d after %d", th, s[i], s[i-1])
			}
		}
	}
}
