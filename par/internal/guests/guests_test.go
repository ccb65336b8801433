package guests

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"go.uber.org/goleak"
)

// The stress test runs holders on goroutines of their own: none may outlive
// it.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// seat is a test seat: its index in the table, and what its holder writes.
type seat struct {
	i    int
	data uintptr
}

func newTable() *Table[seat] {
	tb := new(Table[seat])
	for i := range Max {
		tb.SetSeat(i, &seat{i: i})
	}
	return tb
}

// index is s's index in its table, -1 for none.
func index(s *seat) int {
	if s == nil {
		return -1
	}
	return s.i
}

// Catches: two holders given one seat, a seat given past Max, a seat
// returned with another's index, or a full table that hands out a seat
// anyway.
func TestAcquireGivesDistinctSeatsUpToMax(t *testing.T) {
	tb := newTable()
	for i := range Max {
		k := uintptr(100 + i)
		if s, got := tb.Acquire(k); got != i || index(s) != i || tb.Seat(i) != s {
			t.Fatalf("Acquire #%d = seat %d, index %d; want the lowest free seat %d", i, index(s), got, i)
		}
		if tb.holders[i].Load() != k {
			t.Fatalf("seat %d's holder = %d, want %d", i, tb.holders[i].Load(), k)
		}
	}
	if tb.Held() != ^uint64(0) {
		t.Fatalf("Held() = %#x with every seat taken", tb.Held())
	}
	if s, got := tb.Acquire(999); s != nil || got != -1 {
		t.Fatalf("Acquire on a full table = seat %d, index %d; want nil, -1", index(s), got)
	}
}

// Catches: a release that leaves the bit or the holder behind, or frees
// another seat; a release that leaves the seat unusable.
func TestReleaseFreesTheSeat(t *testing.T) {
	tb := newTable()
	for i := range 5 {
		tb.Acquire(uintptr(10 + i))
	}
	tb.Release(2)
	if tb.Held() != 0b11011 {
		t.Fatalf("Held() = %#b after releasing seat 2 of 5, want 0b11011", tb.Held())
	}
	if h := tb.holders[2].Load(); h != 0 {
		t.Fatalf("released seat's holder = %d, want 0", h)
	}
	if got := index(tb.Lookup(12)); got != -1 {
		t.Fatalf("Lookup of the old holder = seat %d, want none", got)
	}
	if _, got := tb.Acquire(77); got != 2 {
		t.Fatalf("Acquire after the release = %d, want the freed seat 2", got)
	}
	if got := index(tb.Lookup(77)); got != 2 {
		t.Fatalf("Lookup of the new holder = seat %d, want 2", got)
	}
}

// Catches: a lookup that trusts a holder key without its bit (a seat whose
// bit is clear is free, whatever its key), or that finds another key's seat.
func TestLookupFindsOnlyHeldSeats(t *testing.T) {
	tb := newTable()
	if got := index(tb.Lookup(5)); got != -1 {
		t.Fatalf("Lookup on an empty table = seat %d, want none", got)
	}
	tb.Acquire(5)
	tb.Acquire(6)
	tb.holders[9].Store(7) // a key left in a free seat
	for k, want := range map[uintptr]int{5: 0, 6: 1, 7: -1, 8: -1} {
		if got := index(tb.Lookup(k)); got != want {
			t.Errorf("Lookup(%d) = seat %d, want %d", k, got, want)
		}
	}
	// A goroutine that holds several seats is found at the lowest.
	tb.Release(0)
	tb.Acquire(6)
	if got := index(tb.Lookup(6)); got != 0 {
		t.Errorf("Lookup of a key holding seats 0 and 1 = seat %d, want 0", got)
	}
}

// Goroutines (more than Max) take and give back seats concurrently, each
// under a key of its own, yielding while they hold one. Catches: a seat held by two goroutines at once
// (owner), a holder's writes to its seat not published to the next holder
// (data, which the race detector watches), a lookup of one's own key that
// misses the seat one holds or finds a seat after giving it back, and a
// release that clobbers the next holder's key.
func TestConcurrentAcquireRelease(t *testing.T) {
	tb := newTable()
	var owner [Max]atomic.Uintptr
	const goroutines, rounds = Max + 16, 300
	var full atomic.Int64
	var wg sync.WaitGroup
	for g := range goroutines {
		k := uintptr(g + 1)
		wg.Go(func() {
			for range rounds {
				s, i := tb.Acquire(k)
				if s == nil {
					full.Add(1)
					continue
				}
				if !owner[i].CompareAndSwap(0, k) {
					t.Errorf("seat %d given to %d while %d holds it", i, k, owner[i].Load())
					return
				}
				if s.data != 0 {
					t.Errorf("seat %d: the previous holder's write of %d is not seen", i, s.data)
				}
				s.data = k
				runtime.Gosched() // hold the seat while others run: the table fills
				if tb.Held()&(1<<i) == 0 {
					t.Errorf("seat %d held by %d but its bit is clear", i, k)
				}
				if got := tb.Lookup(k); got != s {
					t.Errorf("Lookup(%d) = seat %d while it holds seat %d", k, index(got), i)
				}
				owner[i].Store(0)
				s.data = 0 // after the owner store: only Release publishes it
				tb.Release(i)
				if got := index(tb.Lookup(k)); got != -1 {
					t.Errorf("Lookup(%d) = seat %d after it gave its seat back", k, got)
				}
			}
		})
	}
	wg.Wait()
	if tb.Held() != 0 {
		t.Errorf("Held() = %#x after every seat was given back", tb.Held())
	}
	for i := range Max {
		if h := tb.holders[i].Load(); h != 0 {
			t.Errorf("seat %d keeps holder %d after every seat was given back", i, h)
		}
	}
	t.Logf("%d acquires found the table full", full.Load())
}
