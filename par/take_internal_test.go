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
