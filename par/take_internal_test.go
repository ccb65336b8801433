package par

import (
	"sync/atomic"
	"testing"
	"unsafe"

	"github.com/parloop/parloop/par/internal/box"
	"github.com/parloop/parloop/par/internal/cut"
	"github.com/parloop/parloop/par/internal/freelist"
	"github.com/parloop/parloop/par/internal/grain"
	"github.com/parloop/parloop/par/internal/platform"
	"github.com/parloop/parloop/par/internal/splitdeque"
)

// A slot that helps while it waits for a fork's task can push tasks of its
// own (the halves of pieces it stole and split) and find the task it waited
// for done before it took them back. They then sit above the older forks'
// tasks in its deque, and a later join must run them, not take them for its
// own task (the chaos soak's "deque order broken in join").
func TestJoinRunsTasksPushedAboveItsTask(t *testing.T) {
	p := NewPool(Workers(1)) // no worker thread: nothing is stolen
	defer p.Close()
	ran, gRan := 0, 0
	Join(func() {
		s := lookupGuest(goroutineKey())
		x := s.newTask() // a fork's task, as fork makes it
		x.kind, x.waiter = taskFork, s
		x.run, x.box = box.ForkRunner[func(), none]{}, unsafe.Pointer(&box.Fork[func(), none]{G: callFunc, Arg: func() { ran++ }})
		s.stamp(x, nil)
		s.pushPublic(x) // above g's task, as a helping slot's split half is
	}, func() { gRan++ }, On(p))
	if ran != 1 || gRan != 1 {
		t.Fatalf("the task pushed above g's ran %d times and g %d times, want 1 and 1", ran, gRan)
	}
}

// Pools read the host's topology once per process: a pool's start (and its
// resizes, under the pool's mutex) must not read sysfs again, which with
// pools started and closed in a burst queued workers on that mutex.
func TestPoolsShareOneReadOfTheHost(t *testing.T) {
	a, b := NewPool(), NewPool()
	defer a.Close()
	defer b.Close()
	a.ensureStarted()
	b.ensureStarted()
	if ma, mb := a.layout.Load().machine, b.layout.Load().machine; ma != mb {
		t.Fatal("two pools read the host's topology twice")
	}
}

// cutSlots returns a started pool with no worker thread and two slots of
// it, an owner and a thief: the only slots, so nothing else takes or cuts.
func cutSlots(t *testing.T) (p *Pool, owner, thief *slot) {
	p = NewPool(Workers(1))
	t.Cleanup(p.Close)
	p.ensureStarted()
	return p, newSlot(p, 0, true), newSlot(p, 1, true)
}

// A cut goes by the call's tree, not the running piece's task's: a call's
// first piece is a task from its slot's free list, which still carries the
// tree of whatever piece it held before, and a waiting slot of that tree
// must not cut it. (The chaos soak's Fold lost updates: two callers waiting
// in their own calls each ran pieces of a third call nested on a worker,
// and shared its caller's accumulator.)
func TestCutGoesByTheCallsTree(t *testing.T) {
	p, owner, thief := cutSlots(t)
	const callTree, staleTree = 0x101, 0x202
	piece, _ := openPiece(p, owner, callTree, 0, 1000, 1, 0) // a grain open since the clock's start
	piece.tree.Store(staleTree)                              // what the recycled task last carried
	if r := thief.cutFrom(owner, staleTree); r != nil {
		t.Fatalf("a slot waiting in tree %#x cut [%d, %d) of a call of tree %#x", staleTree, r.lo, r.hi, callTree)
	}
	r := thief.cutFrom(owner, callTree)
	if r == nil {
		t.Fatal("a slot of the call's own tree could not cut the open piece")
	}
	if r.tree.Load() != callTree {
		t.Errorf("the cut piece carries tree %#x, want the call's %#x", r.tree.Load(), callTree)
	}
	owner.cuts.Close(piece)
}

// openPiece opens a cut point on owner for a piece [lo, hi) of a new call
// of tree on p, its grain [lo, next) running since tick opened.
func openPiece(p *Pool, owner *slot, tree uint64, lo, hi, next int, opened int64) (*task, *frame[none]) {
	f := new(frame[none])
	f.pool, f.owner, f.tree = p, owner, tree
	piece := owner.newTask()
	piece.kind, piece.frame, piece.lo, piece.hi = taskPiece, f, lo, hi
	owner.cuts.Open(piece, int64(lo), int64(next), opened)
	return piece, f
}

// A rest that the call's published cost prices cheap is still cut when
// the running grain's own rate, shown by its age, prices it worth a split:
// a recursion's deep child among leaves. A long grain of many cheap items
// does not make its small rest worth one.
func TestCutsPriceTheRestByTheGrainsRate(t *testing.T) {
	p, owner, thief := cutSlots(t)
	const tree = 0x101
	tryCut := func(lo, next, hi int) *task {
		age := grain.Thresholds().CutAge * 3 / 2
		piece, f := openPiece(p, owner, tree, lo, hi, next, platform.Ticks()-age)
		f.sizer.CostMt.Store(1) // published: an item costs next to nothing
		r := thief.cutFrom(owner, tree)
		owner.cuts.Close(piece)
		return r
	}
	if r := tryCut(0, 1, 8); r == nil || r.lo != 4 || r.hi != 8 {
		t.Errorf("behind a grain of one item that ran past the cut age: cut %+v, want [4, 8)", r)
	}
	if r := tryCut(0, 100_000, 100_010); r != nil {
		t.Errorf("cut [%d, %d) behind a grain of 100,000 cheap items: 10 of them are not worth a split", r.lo, r.hi)
	}
}

// A slot's cut points are a stack, and a thief cuts the oldest rest that is
// left: the outer piece's while it has one, then the nested piece's, which
// a single point per slot never offered while the outer grain ran.
func TestCutsTakeTheOldestRestLeft(t *testing.T) {
	p, owner, thief := cutSlots(t)
	const tree = 0x101
	outer, _ := openPiece(p, owner, tree, 0, 1000, 1, 0) // open since the clock's start: [1, 1000) offered
	inner, _ := openPiece(p, owner, tree, 0, 8, 1, 0)    // nested in outer's grain: [1, 8) offered
	if r := thief.cutFrom(owner, tree); r == nil || r.frame != outer.frame || r.lo != 500 || r.hi != 1000 {
		t.Fatalf("first cut: %+v, want the outer rest's upper half [500, 1000)", r)
	}
	if r := thief.cutFrom(owner, tree); r == nil || r.frame != outer.frame || r.lo != 250 || r.hi != 500 {
		t.Fatalf("second cut: %+v, want [250, 500) of the outer rest", r)
	}
	outer.hi = 1 // what cuts down to its running grain leave: nothing
	if r := thief.cutFrom(owner, tree); r == nil || r.frame != inner.frame || r.lo != 4 || r.hi != 8 {
		t.Fatalf("with the outer rest gone: %+v, want the inner rest's upper half [4, 8)", r)
	}
	owner.cuts.Close(outer) // not the top: ignored
	if owner.cuts.Len() != 2 {
		t.Fatalf("closing a point below the top closed something: %d open, want 2", owner.cuts.Len())
	}
	owner.cuts.Close(inner)
	owner.cuts.Close(outer)
	if owner.cuts.Len() != 0 || owner.cuts.At(0).State() != cut.Closed || owner.cuts.At(1).State() != cut.Closed {
		t.Fatalf("after closing both: %d open", owner.cuts.Len())
	}
	if r := thief.cutFrom(owner, tree); r != nil {
		t.Fatalf("cut [%d, %d) from closed points", r.lo, r.hi)
	}
}

// A point whose rest is gone is spent: thieves pass it with a load, not
// a CAS each (at 16 workers, the writes to a deep recursion's exhausted
// points took most of the walk's time), and its owner still closes it.
func TestCutPointsWithNoRestAreSpent(t *testing.T) {
	p, owner, thief := cutSlots(t)
	const tree = 0x101
	piece, _ := openPiece(p, owner, tree, 0, 2, 1, 0) // running [0, 1): [1, 2) offered
	cp := owner.cuts.At(0)
	if r := thief.cutFrom(owner, tree); r == nil || r.lo != 1 || r.hi != 2 {
		t.Fatalf("cut %+v, want the whole rest [1, 2)", r)
	}
	if st := cp.State(); st != cut.Spent {
		t.Fatalf("after its whole rest was cut the point's state is %d, want spent (%d)", st, cut.Spent)
	}
	if r := thief.cutFrom(owner, tree); r != nil {
		t.Fatalf("a spent point gave [%d, %d)", r.lo, r.hi)
	}
	if st := cp.State(); st != cut.Spent {
		t.Fatalf("a look at a spent point left it in state %d", st)
	}
	if piece.hi != 1 {
		t.Fatalf("the piece ends at %d after the cut, want 1", piece.hi)
	}
	owner.cuts.Close(piece)
	if owner.cuts.Len() != 0 || cp.State() != cut.Closed {
		t.Fatalf("closing a spent point: %d open, state %d", owner.cuts.Len(), cp.State())
	}
}

// Every grain that leaves a rest offers it, even when the grains so far
// price the rest cheap (a recursion's leaves before a deep child), an
// outermost grain as a nested call's; a grain that leaves no rest offers
// nothing.
func TestGrainsOfferTheirRest(t *testing.T) {
	p := NewPool(Workers(2))
	defer p.Close()
	p.ensureStarted()
	s := newSlot(p, 0, true)
	newPiece := func(n int) (*frame[none], *task) {
		f := new(frame[none])
		f.pool, f.owner, f.sizer.MinGrain = p, s, 1
		f.sizer.CostMt.Store(1) // measured: an iteration costs next to nothing
		piece := s.newTask()
		piece.kind, piece.frame, piece.lo, piece.hi = taskPiece, f, 0, n
		return f, piece
	}
	outerF, outer := newPiece(100)
	pc := outerF.sizer.NewPacer()
	if !outerF.openCut(s, outer, &pc, 1, 2, 0) || s.cuts.Len() != 1 || s.cuts.At(0).Next() != 2 {
		t.Fatalf("a cheap later grain of an outermost call offered nothing: %d points open", s.cuts.Len())
	}
	f, piece := newPiece(8)
	pc = f.sizer.NewPacer()
	f.openCut(s, piece, &pc, 1, 2, 0)
	if s.cuts.Len() != 2 || s.cuts.At(1).State() != cut.Open || s.cuts.At(1).Next() != 2 {
		t.Fatalf("a cheap later grain of a nested call offered nothing: %d points open", s.cuts.Len())
	}
	s.cuts.Close(piece)
	if f.openCut(s, piece, &pc, 2, 8, 0) || s.cuts.Len() != 1 {
		t.Fatal("a grain that leaves no rest opened a point")
	}
	s.cuts.Close(outer)
	if s.cuts.Len() != 0 {
		t.Fatalf("%d points open after both closed", s.cuts.Len())
	}
}

// At parallelism 1 the private stack grows instead of sharing (nobody
// would steal), and shares once the pool has a worker again (P2); idle
// clears what grew, and hands the free
// tasks beyond freelist.Keep over as a spare list that the next burst takes
// instead of allocating.
func TestPrivateStackAndFreeListGrowForBursts(t *testing.T) {
	p := NewPool(Workers(1))
	defer p.Close()
	p.ensureStarted()
	s := newSlot(p, 0, true)
	p.solo.Store(true)
	const burst = 5 * splitdeque.Max
	tasks := make([]*task, burst)
	for i := range tasks {
		tasks[i] = s.newTask()
		tasks[i].kind = taskSpawn
		s.pushForkTask(tasks[i])
	}
	if s.tasks.Private() != burst || s.tasks.Public().Len() != 0 {
		t.Fatalf("solo burst of %d: %d private, %d in the deque; want all private", burst, s.tasks.Private(), s.tasks.Public().Len())
	}
	p.solo.Store(false)
	extra := s.newTask()
	s.pushForkTask(extra) // the deque is empty and thieves may come: share
	if s.tasks.Public().Len() == 0 {
		t.Fatal("a push with the pool no longer solo left the deque empty")
	}
	for i := 0; i <= burst; i++ {
		x := s.popLocal()
		if x == nil {
			t.Fatalf("pop %d of %d found nothing", i, burst+1)
		}
		s.freeTask(x)
	}
	if x := s.popLocal(); x != nil {
		t.Fatal("a task popped twice")
	}
	if s.free.Len() != burst+1 {
		t.Fatalf("free list holds %d tasks, want %d", s.free.Len(), burst+1)
	}
	if s.tasks.Oldest(splitdeque.Max + 1)[splitdeque.Max] == nil {
		t.Fatal("the burst left nothing beyond the private stack's capacity: nothing for idle to clear")
	}
	s.clearBoxes()
	if s.tasks.Oldest(splitdeque.Max + 1)[splitdeque.Max] != nil {
		t.Fatal("idle left the grown private stack's entries set")
	}
	if s.free.Len() != freelist.Keep {
		t.Fatalf("idle kept %d free tasks, want %d", s.free.Len(), freelist.Keep)
	}
	for range freelist.Keep {
		s.newTask()
	}
	// The spare list is back in spareTasks; a sync.Pool may drop it (a GC),
	// so a fresh task is allowed, but one from the spares must be rehomed.
	if x := s.newTask(); x.home != s {
		t.Fatal("a spare task taken from another hand-over kept its old home")
	}
}

// A task spawned by a running task, or by the body (which runs as a task
// of its seat), is counted in that task, plainly, not in the scope's one
// word (scope.go, "Counting"); the scope still waits for it.
func TestSpawnsAreCountedInTheSpawner(t *testing.T) {
	for _, from := range []string{"body", "task"} {
		p := NewPool(Workers(2))
		var (
			found                      bool
			open, spawned, pendingMore int64 = -1, -1, -1
			ran                        atomic.Int64
		)
		release := make(chan struct{})
		spawn := func(sp *Spawner) {
			defer close(release) // the children finish after the counts are read
			up := seatOf(goroutineKey()).spawning
			if found = up != nil && up.scope == &sp.scope; !found {
				return
			}
			before := sp.pending.Load()
			for range 3 {
				sp.Go(func() { <-release; ran.Add(1) })
			}
			open, spawned, pendingMore = up.open.Load(), up.spawned, sp.pending.Load()-before
		}
		Scope(func(sp *Spawner) {
			if from == "task" {
				sp.Go(func() { spawn(sp) })
			} else {
				spawn(sp)
			}
		}, On(p))
		p.Close()
		if !found {
			t.Fatalf("from the %s: the spawner is not its seat's spawning task", from)
		}
		if open != 0 || spawned != 3 || pendingMore != 0 {
			t.Errorf("from the %s, after 3 spawns: open %d, want 0 (the end adds them); spawned %d, want 3; the scope's pending grew by %d, want 0",
				from, open, spawned, pendingMore)
		}
		if ran.Load() != 3 {
			t.Errorf("from the %s: Scope returned after %d of the 3 tasks ran", from, ran.Load())
		}
	}
}

// A chain of tasks each spawning the next keeps at most maxCountLevel+1 of
// them counted each in the one before (scope.go, "Counting"), not the
// whole chain: the rest are counted in the scope and freed as they finish.
func TestSpawnChainsKeepFewTasksWaiting(t *testing.T) {
	p := NewPool(Workers(2))
	defer p.Close()
	const chain = 10_000
	var ran, deepest atomic.Int64
	Scope(func(sp *Spawner) {
		var next func()
		next = func() {
			waiting := int64(0)
			for r := seatOf(goroutineKey()).spawning; r != nil; r = r.up {
				waiting++
			}
			for d := deepest.Load(); waiting > d && !deepest.CompareAndSwap(d, waiting); d = deepest.Load() {
			}
			if ran.Add(1) < chain {
				sp.Go(next)
			}
		}
		sp.Go(next)
	}, On(p))
	if ran.Load() != chain {
		t.Fatalf("%d tasks ran, want %d", ran.Load(), chain)
	}
	if d := deepest.Load(); d < 2 || d > maxCountLevel+1 || d > chain/100 {
		t.Errorf("a task of the chain ran with %d tasks counted each in the one before, want 2 to %d", d, maxCountLevel+1)
	}
}

// A task freed by its home goes back on its home's list; freed by another
// slot it goes on the home's remote list, and the home takes it back when
// its list runs dry.
func TestTaskReturnsHome(t *testing.T) {
	p := NewPool(Workers(2))
	defer p.Close()
	p.ensureStarted()
	home, other := newSlot(p, 0, true), newSlot(p, 1, true)
	a, b := home.newTask(), home.newTask()
	for home.free.Len() > 0 { // a spare list the first newTask took (spareTasks is global)
		home.free.Get()
	}
	home.freeTask(a)
	if home.free.Len() != 1 {
		t.Fatalf("freed by its home: home's list holds %d tasks, want 1", home.free.Len())
	}
	other.freeTask(b)
	if home.free.Len() != 1 || other.free.Len() != 0 {
		t.Fatalf("freed by another slot: lists hold %d (home) and %d (other), want 1 and 0", home.free.Len(), other.free.Len())
	}
	if x := home.newTask(); x != a {
		t.Fatal("the home's own free did not come back first")
	}
	if x := home.newTask(); x != b || x.home != home || x.rnext != nil {
		t.Fatal("the task freed by another slot did not come back, homed and unlinked, when the list ran dry")
	}
}

// A fork whose f panics runs its g inline if no thief took it (joinFork),
// while the join steals nothing (stop.go, unwinding). g runs under its
// call's tree all the same: the tasks and frames it makes are stamped with
// it, so that no other call's thief, unwinding too, can take them.
func TestForkUnwindingRunsGUnderItsTree(t *testing.T) {
	p := NewPool(Workers(1)) // no worker thread: g's task is not stolen
	defer p.Close()
	var tree, inG uint64
	quietInG := false
	func() {
		defer func() { _ = recover() }()
		BothOf(func(int) int {
			tree = seatOf(goroutineKey()).tree
			panic("f")
		}, 0, func(int) int {
			s := seatOf(goroutineKey())
			inG, quietInG = s.tree, s.quiet
			return 0
		}, 0, On(p))
	}()
	if tree == 0 || inG != tree {
		t.Errorf("g, run inline while f's panic unwinds, ran under tree %#x; the call's tree is %#x", inG, tree)
	}
	if !quietInG {
		t.Error("g ran inline while its fork unwinds, and its slot could steal")
	}
}

// Idle clears what the boxes of free tasks hold, for the GC, and keeps the
// boxes, so that the next call or spawn of the same type allocates none.
func TestIdleClearsBoxesAndKeepsThem(t *testing.T) {
	p := NewPool(Workers(1))
	defer p.Close()
	p.ensureStarted()
	s := newSlot(p, 0, true)
	// A free task of its own, so that the slot takes no spare list, which
	// other tests' pools may have handed over (spareTasks is global).
	s.recycleTask(&task{home: s})
	sp := &SpawnerOf[*int]{task: func(*SpawnerOf[*int], *int) {}}
	tk, bx := takeBox[spawnOfBox[*int]](s, spawnOfRunner[*int]{})
	bx.s, bx.arg = sp, new(int)
	s.freeTask(tk)
	s.clearBoxes()
	if tk.box != unsafe.Pointer(bx) {
		t.Fatal("idle dropped a free task's box")
	}
	if bx.s != nil || bx.arg != nil {
		t.Fatalf("idle left the box holding %+v", *bx)
	}
	if again, bx2 := takeBox[spawnOfBox[*int]](s, spawnOfRunner[*int]{}); again != tk || bx2 != bx {
		t.Fatal("the next spawn of the box's type did not take the kept box")
	}
}

// Idle clears the boxes of the free tasks it hands over as a spare list
// too: another slot may take that list and keep it (freelist.TakeSpares),
// and what the boxes held would stay reachable for as long.
func TestIdleClearsTheBoxesItHandsOver(t *testing.T) {
	p := NewPool(Workers(1))
	defer p.Close()
	p.ensureStarted()
	s := newSlot(p, 0, true)
	sp := &SpawnerOf[*int]{task: func(*SpawnerOf[*int], *int) {}}
	const n = freelist.Keep + 16
	tks := make([]*task, n)
	bxs := make([]*spawnOfBox[*int], n)
	for i := range tks {
		tks[i], bxs[i] = takeBox[spawnOfBox[*int]](s, spawnOfRunner[*int]{})
		bxs[i].s, bxs[i].arg = sp, new(int)
	}
	for _, tk := range tks {
		s.freeTask(tk)
	}
	s.clearBoxes()
	for i, bx := range bxs {
		if bx.s != nil || bx.arg != nil {
			t.Fatalf("idle left box %d of %d holding %+v", i, n, *bx)
		}
	}
}
