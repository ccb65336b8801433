// Package par runs loops and fork-join computations in parallel on a
// work-stealing pool.
//
// The verbs are For, ForRange, Map, Reduce, ReduceRange, Invoke, Join and Both,
// with the context and error variants ForErr and MapErr. Each runs on the default
// pool unless an On option names another; a verb called from inside a
// body runs on the pool of the worker running that body, pushing onto that
// worker's own deque (nesting to any depth never blocks a thread and
// never creates goroutines). Panics in bodies reach the caller as a
// *PanicError, after every running body has returned.
//
// # How the scheduler is built
//
// The parts, from the call down, one file each:
//
//   - verbs.go: the API. enter finds the caller's seat: the worker it runs
//     on (nested call), the guest seat it holds already, or a free guest
//     seat (guest.go). The caller always runs pieces of its own call.
//   - gkey.go: finding the current worker in O(1): a lock-free table keyed
//     by the running goroutine's g pointer (two assembly instructions on
//     amd64 and arm64; the goroutine id from runtime.Stack elsewhere).
//   - loop.go, reduce.go, deterministic.go, split.go: range calls. A piece runs grain by
//     grain; after each grain it splits its rest in half if its deque is
//     empty and the rest is worth a split (lazy binary splitting, with a
//     grain adapted to the measured cost of an iteration). A split makes a
//     join with pending = 2; the half that finishes last continues upward,
//     combining Reduce results in index order, and the root completes the
//     call and posts the caller's token.
//   - invoke.go, both.go: Invoke and Join; Both and BothOf, the forks
//     with results (g and its argument travel in the task, so BothOf needs
//     no closure). Push g, run f, pop: if g is still
//     there, run it inline (no allocation, no shared write beyond the own
//     deque); if it was stolen, help (own deque, then steal, the thief
//     first) until it is done.
//   - share.go: where a fork's task goes. Forks nested under a task that
//     thieves can already see go on an owner-only private stack and cost
//     no fence; the oldest are moved to the deque when a thief asks or the
//     deque runs empty (Lace's split deque, kept as two structures).
//   - worker.go, steal.go: the worker loop and the victim order (nearest
//     first by topology, randomised within a level).
//   - sleep.go: the sleep and wake protocol (bounded spinning, parking on
//     a per-slot token, no lost wake-ups, no herd), written down there.
//   - pool.go: the pool's life: lazy start, following GOMAXPROCS, Close.
//     A pool of parallelism P runs P-1 worker threads; the calling
//     goroutine is the P-th.
//   - task.go, slot.go: tasks, joins and the seats that run them, with
//     per-seat free lists (objects return to the seat that allocated them)
//     so that steady-state calls allocate nothing.
//   - ticks.go, nanotime.go: the clocks (a cycle counter for grains).
//
// Invariants a reader can rely on:
//
//   - A slot's tasks form one stack: its deque holds the oldest, its
//     private stack the newest; a slot holding tasks offers at least one
//     to thieves unless the pool has parallelism 1 (share.go).
//   - A task is owned by exactly one party at a time: the deque, then
//     whoever popped or stole it (the deque's CAS on top decides), then,
//     for an Invoke task, its waiter again once done is set.
//   - A join is touched after its pending count reaches zero only by the
//     arriver that brought it there.
//   - A frame is recycled only after its owner saw finished, and nobody
//     touches a frame after storing finished.
//   - Every blocking wait re-checks its condition after waking: tokens may
//     be stale, never missing.
//
// All cross-goroutine communication uses sync/atomic, which is
// sequentially consistent in Go; each file says which ordering it relies
// on.
package par
