package splitdeque

import (
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/parloop/parloop/par/internal/deque"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// An item is a task; prepared says the owner prepared it for thieves
// before it shared it (par stamps it there).
type item struct {
	id       int
	prepared bool
}

func newDeque() *Deque[item] {
	d := new(Deque[item])
	d.Init(deque.New[item](4)) // small, so that shares grow it
	return d
}

// share is the owner's share of the k oldest private items: prepare, move.
func share(d *Deque[item], k int) {
	for _, x := range d.Oldest(k) {
		x.prepared = true
	}
	d.Share(k)
}

// push is the owner's push, as par's fork and pushFork make it.
func push(d *Deque[item], x *item, solo bool) { pushGrow(d, x, solo, false) }

// pushGrow is push for a task that grows the private stack when full (a
// spawned task's, in par), whatever the parallelism.
func pushGrow(d *Deque[item], x *item, solo, grow bool) {
	if d.Push(x, solo) {
		return
	}
	for {
		k, pushed := d.PushShare(x, solo, grow)
		if k > 0 {
			share(d, k)
		}
		if pushed {
			return
		}
	}
}

// pushPublic shares everything private, then pushes x public.
func pushPublic(d *Deque[item], x *item) {
	if n := d.Private(); n > 0 {
		share(d, n)
	}
	x.prepared = true
	d.PushPublic(x)
}

// pop is the owner's pop: private first, then the public deque.
func pop(d *Deque[item]) *item {
	x, k := d.PopPrivate()
	if x == nil {
		return d.Public().Pop()
	}
	if k > 0 {
		share(d, k)
	}
	return x
}

func items(n int) []*item {
	xs := make([]*item, n)
	for i := range xs {
		xs[i] = &item{id: i}
	}
	return xs
}

// check checks invariant P1 against model, d's items oldest first: the
// public deque holds the oldest, the private stack the newest, in order;
// and every public item was prepared.
func check(t *testing.T, d *Deque[item], model []*item) {
	t.Helper()
	if got := d.Len(); got != len(model) {
		t.Fatalf("holds %d items, model %d", got, len(model))
	}
	priv := d.priv[:d.n]
	for i, x := range priv {
		if want := model[len(model)-len(priv)+i]; x != want {
			t.Fatalf("private[%d] = item %d, want item %d (private must be the newest, in order)", i, x.id, want.id)
		}
	}
	for _, x := range model[:len(model)-len(priv)] {
		if !x.prepared {
			t.Fatalf("item %d is public, unprepared", x.id)
		}
	}
}

// state returns the public and private counts.
func state(d *Deque[item]) (public, private int) { return d.Public().Len(), d.Private() }

// TestRules walks P2 step by step: a push onto an empty public deque
// shares; with a public item and no ask it stays private; an ask makes the
// next push, or pop, share half.
func TestRules(t *testing.T) {
	d := newDeque()
	x := items(4)
	a, b, c, e := x[0], x[1], x[2], x[3]

	push(d, a, false) // nothing public: offered at once
	if pub, priv := state(d); pub != 1 || priv != 0 {
		t.Fatalf("first push: public %d, private %d; want 1, 0", pub, priv)
	}
	if d.Push(b, false) != true || d.Push(c, false) != true { // thieves have a already
		t.Fatal("a push with a public item and no ask did not stay private")
	}
	if pub, priv := state(d); pub != 1 || priv != 2 {
		t.Fatalf("after three pushes: public %d, private %d; want 1, 2", pub, priv)
	}
	d.Ask() // a thief wants more: the next push shares the oldest half
	if !d.Asked() || d.Offers() {
		t.Fatalf("after Ask: Asked %v, Offers %v; want true, false", d.Asked(), d.Offers())
	}
	if d.Push(e, false) {
		t.Fatal("a push after an ask stayed private")
	}
	push(d, e, false)
	if pub, priv := state(d); pub != 3 || priv != 1 || d.Asked() {
		t.Fatalf("push after ask: public %d, private %d, asked %v; want 3, 1, false", pub, priv, d.Asked())
	}
	if !d.Offers() {
		t.Fatal("Offers false with public items and no ask")
	}
	check(t, d, x)
	if y, _ := d.Public().Steal(); y != a {
		t.Fatalf("a thief took %v, want the oldest, item 0", y)
	}
	for _, want := range []*item{e, c, b, nil} {
		if y := pop(d); y != want {
			t.Fatalf("pop = %v, want %v (newest first)", y, want)
		}
	}

	// A pop that finds want set shares half of what is left.
	for _, y := range x {
		push(d, y, false) // a public, b c e private
	}
	if y, _ := d.Public().Steal(); y != a {
		t.Fatalf("steal = %v, want item 0", y)
	}
	d.Ask()
	if y := pop(d); y != e {
		t.Fatalf("pop = %v, want item 3", y)
	}
	if pub, priv := state(d); pub != 1 || priv != 1 || d.Asked() {
		t.Fatalf("pop after ask: public %d, private %d, asked %v; want 1, 1, false", pub, priv, d.Asked())
	}
	check(t, d, []*item{b, c})

	// A public push shares everything private first, so order holds.
	pushPublic(d, e)
	if pub, priv := state(d); pub != 3 || priv != 0 {
		t.Fatalf("after pushPublic: public %d, private %d; want 3, 0", pub, priv)
	}
	for _, want := range []*item{e, c, b, nil} {
		if y := pop(d); y != want {
			t.Fatalf("pop = %v, want %v", y, want)
		}
	}
}

// TestTakeNewest: a fork takes back its item only while it is the newest,
// private one and no thief asked; Newest shows that item without taking it.
func TestTakeNewest(t *testing.T) {
	d := newDeque()
	x := items(3)
	push(d, x[0], false) // public
	if d.Newest() != nil {
		t.Fatal("Newest returned a public item")
	}
	push(d, x[1], false)
	push(d, x[2], false)
	if d.Newest() != x[2] || d.Private() != 2 {
		t.Fatalf("Newest = %v with %d private, want item 2 with 2", d.Newest(), d.Private())
	}
	if d.TakeNewest(x[1]) {
		t.Fatal("took an item that is not the newest")
	}
	if !d.TakeNewest(x[2]) || !d.TakeNewest(x[1]) || d.Private() != 0 {
		t.Fatalf("did not take the newest private items (private %d)", d.Private())
	}
	if d.TakeNewest(x[0]) || d.Public().Len() != 1 {
		t.Fatal("took a public item")
	}
	push(d, x[1], false)
	d.Ask()
	if d.TakeNewest(x[1]) || d.Private() != 1 {
		t.Fatal("took an item while a thief asked")
	}
}

// TestSolo: at parallelism 1 pushes stay private even on an empty public
// deque; an ask still shares.
func TestSolo(t *testing.T) {
	d := newDeque()
	x := items(2)
	push(d, x[0], true)
	if pub, priv := state(d); pub != 0 || priv != 1 {
		t.Fatalf("solo push: public %d, private %d; want 0, 1", pub, priv)
	}
	d.Ask()
	push(d, x[1], true)
	if pub, priv := state(d); pub != 1 || priv != 1 {
		t.Fatalf("solo push after ask: public %d, private %d; want 1, 1", pub, priv)
	}
}

// TestGrowSolo: at parallelism 1 the private stack grows past Max and
// keeps the order; once parallelism is back, the next push shares; Trim
// clears what grew once no more than Max items are private.
func TestGrowSolo(t *testing.T) {
	d := newDeque()
	x := items(5*Max + 1)
	for i, y := range x[:5*Max] {
		push(d, y, true)
		check(t, d, x[:i+1])
	}
	if pub, priv := state(d); pub != 0 || priv != 5*Max {
		t.Fatalf("solo burst of %d: public %d, private %d; want all private", 5*Max, pub, priv)
	}
	d.Trim() // too many private items: nothing to clear
	for i, y := range d.priv[:d.n] {
		if y != x[i] {
			t.Fatalf("Trim changed private[%d]", i)
		}
	}
	push(d, x[5*Max], false) // the public deque is empty and thieves may come: share
	if d.Public().Len() == 0 {
		t.Fatal("a push with parallelism back left the public deque empty")
	}
	check(t, d, x)
	for i := len(x) - 1; i >= 0; i-- {
		if y := pop(d); y != x[i] {
			t.Fatalf("pop = %v, want item %d", y, i)
		}
	}
	if len(d.priv) <= Max {
		t.Fatalf("the private stack did not grow: %d long", len(d.priv))
	}
	d.Trim()
	for i, y := range d.priv[Max:] {
		if y != nil {
			t.Fatalf("Trim left the grown private stack's entry %d set", Max+i)
		}
	}
}

// TestFull: above parallelism 1 a push that finds the private stack full
// shares the oldest half first.
func TestFull(t *testing.T) {
	d := newDeque()
	x := items(Max + 2)
	for i, y := range x[:Max+1] {
		push(d, y, false) // the first is public, Max private
		check(t, d, x[:i+1])
	}
	if pub, priv := state(d); pub != 1 || priv != Max {
		t.Fatalf("before: public %d, private %d; want 1, %d", pub, priv, Max)
	}
	if d.Push(x[Max+1], false) {
		t.Fatal("a push onto a full private stack stayed private")
	}
	if k, pushed := d.PushShare(x[Max+1], false, false); k != Max/2 || pushed {
		t.Fatalf("PushShare on a full stack = %d, %v; want %d, false", k, pushed, Max/2)
	}
	push(d, x[Max+1], false)
	if pub, priv := state(d); pub != 1+Max/2 || priv != Max/2+1 {
		t.Fatalf("after: public %d, private %d; want %d, %d", pub, priv, 1+Max/2, Max/2+1)
	}
	check(t, d, x)
}

// TestFullGrow: above parallelism 1 a push that may grow finds the private
// stack full and grows it, thieves still seeing the oldest item (P2); an
// ask then shares half of what is private at the next push.
func TestFullGrow(t *testing.T) {
	d := newDeque()
	x := items(3*Max + 2)
	for i, y := range x[:3*Max+1] {
		pushGrow(d, y, false, true) // the first is public, the rest private
		check(t, d, x[:i+1])
	}
	if pub, priv := state(d); pub != 1 || priv != 3*Max {
		t.Fatalf("before the ask: public %d, private %d; want 1, %d", pub, priv, 3*Max)
	}
	d.Ask()
	pushGrow(d, x[3*Max+1], false, true)
	if pub, priv := state(d); pub != 1+(3*Max+2)/2 || priv != 3*Max+1-(3*Max+2)/2 || d.Asked() {
		t.Fatalf("after the ask: public %d, private %d, asked %v; want %d, %d, false",
			pub, priv, d.Asked(), 1+(3*Max+2)/2, 3*Max+1-(3*Max+2)/2)
	}
	check(t, d, x)
}

// TestPushPublicPanics: a public push over private items would break P1.
func TestPushPublicPanics(t *testing.T) {
	d := newDeque()
	x := items(3)
	push(d, x[0], false)
	push(d, x[1], false)
	defer func() {
		if recover() == nil {
			t.Fatal("PushPublic over a private item did not panic")
		}
	}()
	d.PushPublic(x[2])
}

// TestModel runs random pushes, public pushes, pops, steals and asks
// against a model stack: pops return the newest item, steals the oldest or
// nothing, every item is taken once, P1 holds after each step, and a push
// that had to share leaves the public deque non-empty (P2).
func TestModel(t *testing.T) {
	for seed := range uint64(200) {
		r := rand.New(rand.NewPCG(seed, 1))
		d := newDeque()
		solo := seed%4 == 0
		var model []*item
		next := 0
		for range 400 {
			switch op := r.IntN(10); {
			case op < 4:
				x := &item{id: next}
				next++
				wasEmpty, asked := d.Public().Len() == 0, d.Asked()
				pushGrow(d, x, solo, r.IntN(2) == 0)
				model = append(model, x)
				if (asked || (wasEmpty && !solo)) && d.Public().Len() == 0 {
					t.Fatalf("seed %d: a push that had to share left the public deque empty", seed)
				}
			case op < 5:
				x := &item{id: next}
				next++
				pushPublic(d, x)
				model = append(model, x)
				if d.Private() != 0 {
					t.Fatalf("seed %d: private items left under a public push", seed)
				}
			case op < 7:
				x := pop(d)
				if len(model) == 0 {
					if x != nil {
						t.Fatalf("seed %d: pop on an empty deque returned item %d", seed, x.id)
					}
					continue
				}
				if want := model[len(model)-1]; x != want {
					t.Fatalf("seed %d: pop = %v, want item %d", seed, x, want.id)
				}
				model = model[:len(model)-1]
			case op < 9:
				x, _ := d.Public().Steal()
				if x == nil {
					d.Ask()
					continue
				}
				if x != model[0] {
					t.Fatalf("seed %d: steal = item %d, want the oldest, %d", seed, x.id, model[0].id)
				}
				model = model[1:]
			default:
				d.Ask()
			}
			check(t, d, model)
		}
	}
}

// TestConcurrent: an owner pushing and popping against thieves that steal
// and ask concurrently; every item is taken exactly once, and every stolen
// item was prepared before it was shared. Run it under -race: the private
// stack is the owner's alone, and a thief reads what the owner prepared.
func TestConcurrent(t *testing.T) {
	const n = 20000
	d := newDeque()
	x := items(n)
	taken := make([]atomic.Int32, n)
	var stop atomic.Bool
	var wg sync.WaitGroup
	var unprepared atomic.Int32
	for range 3 {
		wg.Go(func() {
			for !stop.Load() {
				if y, _ := d.Public().Steal(); y != nil {
					if !y.prepared {
						unprepared.Add(1)
					}
					taken[y.id].Add(1)
				} else {
					d.Ask()
				}
			}
		})
	}
	r := rand.New(rand.NewPCG(1, 2))
	for i := range n {
		if r.IntN(8) == 0 {
			pushPublic(d, x[i])
		} else {
			pushGrow(d, x[i], false, r.IntN(2) == 0)
		}
		for r.IntN(3) == 0 {
			if y := pop(d); y != nil {
				taken[y.id].Add(1)
			}
		}
	}
	for y := pop(d); y != nil; y = pop(d) {
		taken[y.id].Add(1)
	}
	stop.Store(true)
	wg.Wait()
	for i := range taken {
		if c := taken[i].Load(); c != 1 {
			t.Fatalf("item %d taken %d times", i, c)
		}
	}
	if c := unprepared.Load(); c != 0 {
		t.Fatalf("%d items stolen unprepared", c)
	}
}
