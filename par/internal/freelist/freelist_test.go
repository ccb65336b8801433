package freelist

import (
	"runtime/debug"
	"sync"
	"testing"

	"go.uber.org/goleak"
)

// The stress tests free elements on goroutines of their own: none may
// outlive them.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// elem is a test element: next links it on a remote or Linked list; busy is
// set while it is handed out, written plainly, so that the race detector
// sees a reuse that does not happen after its free.
type elem struct {
	next *elem
	busy bool
	id   int
}

func newElems(n int) []*elem {
	es := make([]*elem, n)
	for i := range es {
		es[i] = &elem{id: i}
	}
	return es
}

// drain puts l's remote list back on l, as its owner does when l runs dry.
func drain(l *List[elem]) {
	for e := l.TakeRemote(); e != nil; e = l.PutNext(e, &e.next) {
	}
}

// A List is a stack; putting back the element just taken leaves it where
// it was.
func TestListIsAStack(t *testing.T) {
	var l List[elem]
	if _, ok := l.Get(); ok {
		t.Fatal("Get on an empty list reported an element")
	}
	es := newElems(3)
	for _, e := range es {
		l.Put(e)
	}
	for i := 2; i >= 0; i-- {
		e, ok := l.Get()
		if !ok || e != es[i] {
			t.Fatalf("Get %d: got %v, %v; want element %d", 2-i, e, ok, i)
		}
		l.Put(e) // back on top: no write
		if e2, _ := l.Get(); e2 != e {
			t.Fatalf("after putting element %d back, Get returned another", i)
		}
	}
	if l.Len() != 0 {
		t.Fatalf("Len %d after taking everything, want 0", l.Len())
	}
	// The stale entries above the top are overwritten by other elements.
	x := &elem{id: 99}
	l.Put(x)
	if e, _ := l.Get(); e != x {
		t.Fatal("Put over a stale entry did not store the new element")
	}
}

// An element freed by another goroutine goes on the remote list, not on
// the list, and comes back, its link cleared, when the owner drains it.
func TestRemoteFreesComeBackOnDrain(t *testing.T) {
	var l List[elem]
	es := newElems(5)
	var wg sync.WaitGroup
	for _, e := range es {
		wg.Go(func() { l.PushRemote(e, &e.next) })
	}
	wg.Wait()
	if l.Len() != 0 {
		t.Fatalf("remote frees put %d elements on the owner's list directly", l.Len())
	}
	drain(&l)
	if l.Len() != len(es) {
		t.Fatalf("after the drain the list holds %d elements, want %d", l.Len(), len(es))
	}
	seen := map[*elem]bool{}
	for l.Len() > 0 {
		e, _ := l.Get()
		if e.next != nil {
			t.Fatalf("element %d kept its remote link", e.id)
		}
		seen[e] = true
	}
	if len(seen) != len(es) {
		t.Fatalf("drained %d distinct elements, want %d", len(seen), len(es))
	}
	if l.TakeRemote() != nil {
		t.Fatal("the remote list is not empty after the drain")
	}
}

// Going idle keeps Keep elements and hands the rest over; another list
// that runs dry takes them, once until its owner next goes idle. (Under the
// race detector the pool may drop a hand-over: then nothing is taken.)
func TestSparesHandedOverOnIdle(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(-1)) // a GC empties a sync.Pool
	var sp Spares[elem]
	var a, b List[elem]
	const extra = 10
	es := newElems(Keep + extra)
	for _, e := range es {
		a.Put(e)
	}
	a.Idle(&sp)
	if a.Len() != Keep {
		t.Fatalf("idle kept %d elements, want %d", a.Len(), Keep)
	}
	if got := a.free[:cap(a.free)][Keep:]; len(got) > 0 && got[0] != nil {
		t.Fatal("idle left a stale entry pointing at a spare")
	}
	b.TakeSpares(&sp)
	if b.Len() != extra && !(raceEnabled && b.Len() == 0) {
		t.Fatalf("a dry list took %d spares, want %d", b.Len(), extra)
	}
	for b.Len() > 0 {
		e, _ := b.Get()
		if e.id < Keep {
			t.Fatalf("spare %d was one of the kept elements", e.id)
		}
	}
	a.Put(&elem{})
	for range extra + 1 {
		a.Put(&elem{})
	}
	a.Idle(&sp) // a second hand-over, which b may not take yet
	b.TakeSpares(&sp)
	if b.Len() != 0 {
		t.Fatalf("a list took spares twice before going idle (%d)", b.Len())
	}
	b.Idle(&sp)
	b.TakeSpares(&sp)
	if b.Len() != extra+2 && !(raceEnabled && b.Len() == 0) {
		t.Fatalf("after going idle a dry list took %d spares, want %d", b.Len(), extra+2)
	}
	var c List[elem]
	c.Put(&elem{})
	c.TakeSpares(&sp)
	if c.Len() != 1 {
		t.Fatal("a list that is not empty took spares")
	}
}

// A Linked list is a stack whose remote list becomes the list when it runs
// dry.
func TestLinked(t *testing.T) {
	var l Linked[elem]
	es := newElems(4)
	l.Push(es[0], &es[0].next)
	l.Push(es[1], &es[1].next)
	l.PushRemote(es[2], &es[2].next)
	l.PushRemote(es[3], &es[3].next)
	var got []int
	for {
		e := l.First()
		if e == nil {
			if e = l.TakeRemote(); e == nil {
				break
			}
		}
		l.Pop(&e.next)
		if e.next != nil {
			t.Fatalf("popped element %d kept its link", e.id)
		}
		got = append(got, e.id)
	}
	want := []int{1, 0, 3, 2}
	if len(got) != len(want) {
		t.Fatalf("popped %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("popped %v, want %v", got, want)
		}
	}
}

// stress hands elements homed at one owner to freers, which send them home
// while the owner allocates; an element handed out again before its free
// fails the test (busy), or the race detector (busy and id are written
// plainly on both sides).
func stress(t *testing.T, get func() *elem, free func(*elem)) {
	const freers, rounds = 4, 20000
	work := make(chan *elem, 64)
	var wg sync.WaitGroup
	for range freers {
		wg.Go(func() {
			for e := range work {
				if !e.busy {
					panic("a freer got an element that was not handed out")
				}
				e.id++
				e.busy = false
				free(e)
			}
		})
	}
	for range rounds {
		e := get()
		if e.busy {
			close(work)
			wg.Wait()
			t.Fatal("an element was reused before it was freed")
		}
		e.busy = true
		e.id++
		work <- e
	}
	close(work)
	wg.Wait()
}

func TestListStress(t *testing.T) {
	var l List[elem]
	allocated := 0
	stress(t, func() *elem {
		e, ok := l.Get()
		if !ok {
			drain(&l)
			if e, ok = l.Get(); !ok {
				allocated++
				return &elem{}
			}
		}
		return e
	}, func(e *elem) { l.PushRemote(e, &e.next) })
	if allocated > 200 {
		t.Errorf("allocated %d elements for 64 in flight: the frees did not come back", allocated)
	}
}

func TestLinkedStress(t *testing.T) {
	var l Linked[elem]
	allocated := 0
	stress(t, func() *elem {
		e := l.First()
		if e == nil {
			if e = l.TakeRemote(); e == nil {
				allocated++
				return &elem{}
			}
		}
		l.Pop(&e.next)
		return e
	}, func(e *elem) { l.PushRemote(e, &e.next) })
	if allocated > 200 {
		t.Errorf("allocated %d elements for 64 in flight: the frees did not come back", allocated)
	}
}
