package par

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// Pool is a set of workers that run the verbs' pieces. The zero value is not
// usable; create pools with NewPool, or use Default.
//
// A pool starts its workers on first use, never at creation or import. Its
// parallelism is one per usable CPU: it follows runtime.GOMAXPROCS(0),
// which Go changes at run time when the container's CPU limit changes;
// Workers(n) fixes it instead. The goroutine that calls a verb always runs
// pieces of its own call, so, as in oneTBB's arenas, a pool of parallelism
// P runs P-1 worker threads and the caller is the P-th: no CPU is
// oversubscribed while the caller works, and at P = 1 everything runs on
// the caller with no thread at all. Close stops the workers; a closed pool still
// accepts calls and runs them on the calling goroutine.
type Pool struct {
	cfg poolConfig

	mu      sync.Mutex // serialises start, resize and Close
	started atomic.Bool
	closed  atomic.Bool
	layout  atomic.Pointer[layout]
	solo    atomic.Bool // no worker thread is active (parallelism 1): forks stay private (share.go)
	workers sync.WaitGroup

	sleep       sleepState
	callerStats slotStats // pieces run by guests (callers from outside)

	lastResize atomic.Int64 // cputicks of the last GOMAXPROCS check
	statsFrom  atomic.Int64 // nanotime of the last ResetStats
}

// layout is the immutable description of the started workers. Resizing
// publishes a new layout; readers load it once per steal round.
type layout struct {
	workers    []*slot   // every started worker, index == id
	active     int       // workers[:active] run; the rest are retired and park
	victims    [][]int32 // per worker: victim ids, nearest first (see steal.go)
	allWorkers []int32   // the active workers' ids, the victims of guests
	levels     [][]int   // per worker: end offsets of each distance level in victims
	machine    *Machine
}

// NewPool returns a pool configured by opts. It starts no goroutine.
func NewPool(opts ...PoolOption) *Pool {
	c := defaultPoolConfig()
	for _, o := range opts {
		o(&c)
	}
	p := &Pool{cfg: c}
	p.layout.Store(&layout{})
	p.statsFrom.Store(nanotime())
	return p
}

var defaultPool struct {
	mu sync.Mutex
	p  atomic.Pointer[Pool]
}

// Default returns the pool used by verbs called without On from outside any
// pool. It is created on first use.
func Default() *Pool {
	if p := defaultPool.p.Load(); p != nil {
		return p
	}
	defaultPool.mu.Lock()
	defer defaultPool.mu.Unlock()
	if p := defaultPool.p.Load(); p != nil {
		return p
	}
	p := NewPool()
	defaultPool.p.Store(p)
	return p
}

// closeDefaultPool closes the default pool and forgets it, so that tests can
// check for leaked goroutines; a later Default creates a new pool.
func closeDefaultPool() {
	defaultPool.mu.Lock()
	p := defaultPool.p.Swap(nil)
	defaultPool.mu.Unlock()
	if p != nil {
		p.Close()
	}
}

// Workers returns the pool's parallelism: its worker threads plus the
// calling goroutine.
func (p *Pool) Workers() int {
	if p.started.Load() {
		return p.layout.Load().active + 1
	}
	return p.target()
}

// target is the parallelism the pool should have now.
func (p *Pool) target() int {
	if p.cfg.workers > 0 {
		return p.cfg.workers
	}
	return runtime.GOMAXPROCS(0)
}

// ensureStarted starts the workers on first use.
func (p *Pool) ensureStarted() {
	if p.started.Load() {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.started.Load() || p.closed.Load() {
		return
	}
	calibrateTicks()
	p.resizeLocked(p.target())
	p.lastResize.Store(cputicks())
	p.started.Store(true)
}

// maybeResize follows GOMAXPROCS. GOMAXPROCS(0) takes the scheduler's lock,
// so it is read at most once per resizeEvery, and only from slow paths: a
// wake-up, a split, and every resizeCheckCalls-th call on a guest seat.
func (p *Pool) maybeResize() {
	now := cputicks()
	last := p.lastResize.Load()
	if now-last < nsToTicks(resizeEvery) || !p.lastResize.CompareAndSwap(last, now) {
		return
	}
	calibrateTicks()
	if p.cfg.workers > 0 {
		return
	}
	n := runtime.GOMAXPROCS(0)
	if n-1 == p.layout.Load().active {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.closed.Load() {
		p.resizeLocked(n)
	}
}

const (
	resizeEvery      = 10_000_000 // 10 ms
	resizeCheckCalls = 64
)

// resizeLocked publishes a layout for parallelism n (n-1 active workers), starting workers
// that do not exist yet and waking retired ones that become active. Workers
// are never stopped by a resize, only retired: a retired worker finishes
// what it holds, drains its own deque and parks until it is active again or
// the pool closes. Called with p.mu held.
func (p *Pool) resizeLocked(n int) {
	n = max(n-1, 0) // worker threads; the caller is the n-th
	old := p.layout.Load()
	m := old.machine
	if m == nil {
		m = p.cfg.machine
		if m == nil {
			m = HostMachine()
		}
	}
	total := max(n, len(old.workers))
	cpus := m.t.Placement(total)
	l := &layout{
		workers: make([]*slot, total),
		active:  n,
		machine: m,
	}
	copy(l.workers, old.workers)
	var fresh []*slot
	for i := len(old.workers); i < total; i++ {
		s := newSlot(p, int32(i), true)
		s.cpu = cpus[i]
		l.workers[i] = s
		fresh = append(fresh, s)
	}
	l.victims, l.levels = victimOrders(m, cpus[:total], n, p.cfg.victims)
	for i := 0; i < n; i++ {
		l.allWorkers = append(l.allWorkers, int32(i))
	}
	p.layout.Store(l)
	p.solo.Store(n == 0)
	pin := p.cfg.pinning && !m.simulated
	for _, s := range fresh {
		p.workers.Add(1)
		go p.workerMain(s, pin)
	}
	// Retired workers that became active are parked outside the sleeper
	// list; a token wakes them (they re-check the layout).
	for i := 0; i < min(n, len(old.workers)); i++ {
		if i >= old.active {
			l.workers[i].signal()
		}
	}
}

// Close stops the pool's workers and waits for them to exit. Calls already
// running finish; their remaining pieces run on their callers. Verbs called
// on a closed pool run on the calling goroutine. Close is idempotent.
func (p *Pool) Close() {
	p.mu.Lock()
	if p.closed.Load() {
		p.mu.Unlock()
		return
	}
	p.closed.Store(true) // before the wake-ups below: see sleep.go
	l := p.layout.Load()
	p.mu.Unlock()
	for _, s := range l.workers {
		s.signal()
	}
	p.workers.Wait()
}

// workerMain is the body of a worker goroutine.
func (p *Pool) workerMain(s *slot, pin bool) {
	defer p.workers.Done()
	runtime.LockOSThread()
	// A pinned thread must never run other goroutines: a pinned worker exits
	// while still locked, so the runtime destroys the thread with its one-CPU
	// mask. An unpinned worker hands its thread back.
	if pinned := pin && pinThread(s.cpu) == nil; !pinned {
		defer runtime.UnlockOSThread()
	}
	registerWorker(s)
	defer unregisterWorker()
	s.run()
}
