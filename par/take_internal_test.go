package par

import (
	"testing"
	"unsafe"
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
		x.run, x.box = callBox[func(), none]{}, unsafe.Pointer(&forkBox[func(), none]{g: callFunc, y: func() { ran++ }})
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

// A cut goes by the call's tree, not the running piece's task's: a call's
// first piece is a task from its slot's free list, which still carries the
// tree of whatever piece it held before, and a waiting slot of that tree
// must not cut it. (The chaos soak's Fold lost updates: two callers waiting
// in their own calls each ran pieces of a third call nested on a worker,
// and shared its caller's accumulator.)
func TestCutGoesByTheCallsTree(t *testing.T) {
	p := NewPool(Workers(1)) // no worker thread: the slots below are the only ones
	defer p.Close()
	p.ensureStarted()
	const callTree, staleTree = 0x101, 0x202
	owner, thief := newSlot(p, 0, true), newSlot(p, 1, true)
	f := new(frame[none])
	f.pool, f.owner, f.tree = p, owner, callTree
	piece := owner.newTask()
	piece.kind, piece.frame, piece.lo, piece.hi = taskPiece, f, 0, 1000
	piece.tree.Store(staleTree) // what the recycled task last carried
	cp := &owner.cut
	cp.t, cp.next, cp.opened, cp.frame = piece, 1, 0, f // a grain open since the clock's start
	cp.state.Store(cutOpen)
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
	owner.closeCut(piece)
}
