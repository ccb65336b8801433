package cut

import (
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// The tests run thieves on goroutines of their own: none may outlive them.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// checkLive fails t unless every point below live's index is Spent and the
// index is within the open points; called by the owner, whose closes are
// the only way out of Spent, so that it holds while thieves scan.
func checkLive(t *testing.T, s *Stack[piece]) {
	t.Helper()
	from := liveIndex(s.live.Load())
	if from > s.Len() {
		t.Fatalf("live's index %d is above the %d open points", from, s.Len())
	}
	for i := range from {
		if st := s.At(i).State(); st != Spent {
			t.Fatalf("point %d, below live's index %d, is in state %d", i, from, st)
		}
	}
}

// piece is a test payload. a and b are equal whenever nobody holds the
// piece: its holder, the owner while its point is closed or the thief that
// claimed it, adds 1 to a and then to b.
type piece struct {
	depth int   // the index of the point that offers it
	next  int64 // what its owner passed to Open
	a, b  int64
	spent bool // a thief released it spent; the owner clears it before it opens it again
}

// Points open and close in stack order, and only the top one closes.
func TestOpenAndCloseInStackOrder(t *testing.T) {
	var s Stack[piece]
	ps := make([]piece, Max+1)
	for i := range Max {
		if !s.Open(&ps[i], int64(i), int64(i)+1, int64(10*i)) {
			t.Fatalf("open %d of %d: refused", i, Max)
		}
	}
	if s.Open(&ps[Max], 0, 0, 0) {
		t.Fatalf("opened a point beyond the %d", Max)
	}
	if s.Len() != Max {
		t.Fatalf("%d open, want %d", s.Len(), Max)
	}
	for i := range Max {
		p := s.At(i)
		if p.Piece() != &ps[i] || p.Next() != int64(i)+1 || p.Opened() != int64(10*i) || p.State() != Open {
			t.Fatalf("point %d: piece %p next %d opened %d state %d, want %p %d %d open",
				i, p.Piece(), p.Next(), p.Opened(), p.State(), &ps[i], i+1, 10*i)
		}
	}
	s.Close(&ps[0]) // not the top: ignored
	if s.Len() != Max || s.At(0).State() != Open {
		t.Fatalf("closing the bottom point closed something: %d open, bottom %d", s.Len(), s.At(0).State())
	}
	for i := Max - 1; i >= 0; i-- {
		s.Close(&ps[i])
		if s.Len() != i || s.At(i).State() != Closed || s.At(i).Piece() != nil {
			t.Fatalf("after closing point %d: %d open, its state %d, piece %p", i, s.Len(), s.At(i).State(), s.At(i).Piece())
		}
	}
	s.Close(&ps[0]) // none open: ignored
	if s.Len() != 0 {
		t.Fatalf("closing on an empty stack left %d open", s.Len())
	}
}

// A thief claims open points only, the oldest first, passes spent and
// claimed ones, and stops at the first closed one.
func TestClaimTakesOpenPointsOldestFirst(t *testing.T) {
	var s Stack[piece]
	var ps [3]piece
	for i := range ps {
		s.Open(&ps[i], 0, 1, 0)
	}
	p, i := s.Claim(0)
	if p != s.At(0) || i != 1 || p.State() != Cutting {
		t.Fatalf("first claim: point %p, resume at %d, state %d; want the oldest, 1, cutting", p, i, p.State())
	}
	p.Release(true)
	if st := s.At(0).State(); st != Spent {
		t.Fatalf("released spent: state %d", st)
	}
	p, i = s.Claim(0)
	if p != s.At(1) || i != 2 {
		t.Fatalf("past a spent point: claimed %p, resume at %d; want point 1, 2", p, i)
	}
	if q, j := s.Claim(0); q != s.At(2) || j != 3 {
		t.Fatalf("past a spent and a claimed point: claimed %p, resume at %d; want point 2, 3", q, j)
	}
	if q, _ := s.Claim(0); q != nil {
		t.Fatalf("claimed a point that another thief holds: %p", q)
	}
	s.At(2).Release(false)
	p.Release(false)
	if q, _ := s.Claim(2); q != s.At(2) {
		t.Fatalf("claim from index 2: %p, want point 2", q)
	}
	s.At(2).Release(false)

	s.Close(&ps[2])
	s.Close(&ps[1])
	s.points[2].state.Store(int32(Open)) // behind a closed point: a scan never gets there
	if q, i := s.Claim(0); q != nil || i != Max {
		t.Fatalf("claimed point %p past a closed one (resume at %d)", q, i)
	}
	s.points[2].state.Store(int32(Closed))
	s.Close(&ps[0]) // spent: closes all the same
	if s.Len() != 0 || s.At(0).State() != Closed {
		t.Fatalf("closing a spent point: %d open, state %d", s.Len(), s.At(0).State())
	}
	if q, _ := s.Claim(0); q != nil {
		t.Fatalf("claimed %p with every point closed", q)
	}
}

// Close waits for a thief that holds the point to release it.
func TestCloseWaitsForTheThief(t *testing.T) {
	var s Stack[piece]
	var pc piece
	s.Open(&pc, 0, 1, 0)
	claimed := make(chan struct{})
	var released atomic.Bool
	var wg sync.WaitGroup
	wg.Go(func() {
		p, _ := s.Claim(0)
		if p == nil {
			t.Error("the thief claimed nothing")
			close(claimed)
			return
		}
		close(claimed)
		time.Sleep(20 * time.Millisecond)
		p.Piece().a++ // the thief's write, which the owner must see after Close
		released.Store(true)
		p.Release(false)
	})
	<-claimed
	s.Close(&pc)
	if !released.Load() {
		t.Error("Close returned while a thief held the point")
	}
	if pc.a != 1 {
		t.Errorf("after Close the owner sees a = %d, want the thief's 1", pc.a)
	}
	wg.Wait()
}

// One owner opens and closes points in stack order, nested to random
// depths, against thieves that claim and release them; each side writes a
// piece only while it holds it (the owner while the point is closed), so
// the race detector and the invariant a == b catch a point held by two.
// Shallow, within the stack's own points; and deep, across segments that
// the owner allocates while thieves scan.
func TestOwnerAndThievesStress(t *testing.T) {
	t.Run("shallow", func(t *testing.T) { stress(t, 8, 3, 8) })
	t.Run("deep", func(t *testing.T) { stress(t, 3*Segment+8, 100, 1) })
}

// stress runs TestOwnerAndThievesStress's owner to at most depth points:
// a point's grain nests up to width points one after another, each with
// probability 1-1/oneIn.
func stress(t *testing.T, depth, oneIn, width int) {
	rounds := 500
	if testing.Short() {
		rounds = 100
	}
	var s Stack[piece]
	ps := make([]piece, depth)
	for i := range ps {
		ps[i].depth = i
	}
	var stop atomic.Bool
	var claims, spent atomic.Int64
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(w), 1))
			for !stop.Load() {
				for p, i := s.Claim(0); p != nil; p, i = s.Claim(i) {
					pc := p.Piece()
					if pc == nil {
						t.Errorf("claimed point %d offers no piece", i-1)
						p.Release(false)
						continue
					}
					switch {
					case p.State() != Cutting:
						t.Errorf("a claimed point is in state %d", p.State())
					case pc.depth != i-1 || p.Next() != pc.next:
						t.Errorf("point %d offers %+v, next %d", i-1, pc, p.Next())
					case pc.spent:
						t.Errorf("claimed point %d, released spent", i-1)
					case pc.a != pc.b:
						t.Errorf("point %d: a piece held by another (a %d, b %d)", i-1, pc.a, pc.b)
					}
					pc.a++
					if rng.IntN(4) == 0 {
						runtime.Gosched()
					}
					pc.b++
					claims.Add(1)
					if rng.IntN(4) == 0 {
						pc.spent = true
						spent.Add(1)
						p.Release(true)
					} else {
						p.Release(false)
					}
				}
				runtime.Gosched()
			}
		})
	}
	rng := rand.New(rand.NewPCG(99, 1))
	var next int64
	var nest func(d int)
	nest = func(d int) {
		pc := &ps[d]
		if pc.a != pc.b {
			t.Errorf("owner, point %d: a %d, b %d before it opens", d, pc.a, pc.b)
		}
		pc.a++
		pc.b++
		pc.spent = false
		next++
		pc.next = next
		if !s.Open(pc, 0, next, 0) {
			t.Fatalf("open at depth %d refused", d)
		}
		checkLive(t, &s)
		for k := 0; k < width && d+1 < len(ps) && rng.IntN(oneIn) != 0; k++ {
			nest(d + 1)
		}
		if rng.IntN(8) == 0 {
			runtime.Gosched() // a grain that runs a while
		}
		checkLive(t, &s)
		s.Close(pc)
		checkLive(t, &s)
		if s.Len() != d {
			t.Errorf("after closing depth %d, %d open", d, s.Len())
		}
		if pc.a != pc.b {
			t.Errorf("owner, point %d: a %d, b %d after it closed", d, pc.a, pc.b)
		}
		pc.a++ // the owner's write while closed
		pc.b++
	}
	for range rounds {
		nest(0)
	}
	stop.Store(true)
	wg.Wait()
	if depth > Segment && s.At(Segment) == nil {
		t.Errorf("the owner never opened a point past the stack's own %d", Segment)
	}
	if claims.Load() == 0 {
		t.Error("no thief claimed a point")
	}
	t.Logf("%d claims, %d released spent", claims.Load(), spent.Load())
}

// FuzzStack runs a sequence of the owner's and a thief's operations on one
// goroutine against a model, the states of the open points: Open pushes an
// Open point (or is refused at Max), Close pops the top, Claim takes the
// oldest Open point below the top, and Release leaves it Open or Spent. The
// batch operation opens many points at once, so that sequences cross the
// segments' boundaries.
func FuzzStack(f *testing.F) {
	f.Add([]byte{0, 0, 2, 3, 1, 1})
	f.Add([]byte{4, 70, 2, 3, 2, 4, 1, 1, 4, 200, 2, 1})
	f.Fuzz(func(t *testing.T, ops []byte) {
		var s Stack[piece]
		pieces := make([]piece, Max)
		var model []State
		open := func() {
			ok := s.Open(&pieces[len(model)%Max], 0, int64(len(model)+1), 0)
			if ok != (len(model) < Max) {
				t.Fatalf("Open with %d open reported %v", len(model), ok)
			}
			if ok {
				model = append(model, Open)
			}
		}
		for k := 0; k < len(ops); k++ {
			switch ops[k] % 5 {
			case 0:
				open()
			case 1:
				if len(model) > 0 {
					s.Close(&pieces[len(model)-1])
					model = model[:len(model)-1]
				}
			case 2, 3:
				want := -1
				for i, st := range model {
					if st == Open {
						want = i
						break
					}
				}
				p, next := s.Claim(0)
				switch {
				case want < 0 && p != nil:
					t.Fatalf("claimed %p where the model has no open point", p)
				case want < 0:
				case p != s.At(want) || next != want+1 || p.Next() != int64(want+1):
					t.Fatalf("claimed %p (resume at %d), want point %d", p, next, want)
				default:
					p.Release(ops[k]%5 == 3)
					if ops[k]%5 == 3 {
						model[want] = Spent
					}
				}
			case 4:
				if k+1 < len(ops) {
					k++
					for range int(ops[k]) {
						open()
					}
				}
			}
			if s.Len() != len(model) {
				t.Fatalf("%d open, the model has %d", s.Len(), len(model))
			}
			checkLive(t, &s)
			for i, st := range model {
				if got := s.At(i).State(); got != st {
					t.Fatalf("point %d is in state %d, the model's %d", i, got, st)
				}
			}
			if len(model) < Max {
				if p := s.At(len(model)); p != nil && p.State() != Closed {
					t.Fatalf("point %d above the top is in state %d", len(model), p.State())
				}
			}
		}
	})
}
