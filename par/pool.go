package par

import (
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/parloop/parloop/par/internal/platform"
)

// Pool is a set of workers that run the verbs' pieces. The zero value is a
// pool with the default configuration, like NewPool(); Default is the pool
// the verbs use without On.
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
	exp experiment // the experiments (experiment.go), set at start

	mu      sync.Mutex // serialises start, resize and Close
	started atomic.Bool
	closed  atomic.Bool
	layout  atomic.Pointer[layout]
	solo    atomic.Bool // no worker thread is active (parallelism 1): forks stay private (share.go)
	workers sync.WaitGroup

	sleep       sleepState
	callerStats slotStats   // pieces run by guests (callers from outside)
	crowdCounts crowdCounts // crowded calls (plain.go), counted with the callers'

	nextResize atomic.Int64 // ticks at which the next GOMAXPROCS check is due
	lastKick   atomic.Int64 // ticks of the last kick (offer.go)
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
	procs      int  // runtime.GOMAXPROCS(0) when the layout was made (it bounds spinning)
	noSat      bool // the saturation=off experiment
}

// NewPool returns a pool configured by opts. It starts no goroutine.
func NewPool(opts ...PoolOption) *Pool {
	var c poolConfig
	for _, o := range opts {
		if o == nil {
			panic("par: NewPool called with a nil PoolOption")
		}
		o(&c)
	}
	p := &Pool{cfg: c}
	p.init()
	return p
}

// init gives a zero Pool its empty layout and its stats clock. Every
// exported method and ensureStarted call it first; it is idempotent.
func (p *Pool) init() *layout {
	if l := p.layout.Load(); l != nil {
		return l
	}
	if p.layout.CompareAndSwap(nil, &layout{}) {
		p.statsFrom.CompareAndSwap(0, platform.Nanotime())
	}
	return p.layout.Load()
}

var defaultPool struct {
	mu sync.Mutex
	p  atomic.Pointer[Pool]
}

// Default returns the pool used by verbs called without On from outside any
// pool. It is created on first use. Closing it is allowed (a test's
// TestMain may, to check that nothing is left running): the next call that
// needs the default pool then starts a new one, while a *Pool kept from an
// earlier Default stays closed.
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

// forgetDefault makes a later Default create a new pool if p is the
// default one.
func forgetDefault(p *Pool) {
	defaultPool.mu.Lock()
	defaultPool.p.CompareAndSwap(p, nil)
	defaultPool.mu.Unlock()
}

// Workers returns the pool's parallelism: its worker threads plus the
// calling goroutine.
func (p *Pool) Workers() int {
	p.init()
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
	return min(runtime.GOMAXPROCS(0), MaxWorkers)
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
	p.init()
	p.exp = experiments()
	if p.cfg.exp != nil {
		p.exp = *p.cfg.exp
	}
	calibrate()
	p.resizeLocked(p.target())
	p.nextResize.Store(platform.Ticks() + platform.NsToTicks(resizeEvery))
	p.started.Store(true)
}

// maybeResize follows GOMAXPROCS. GOMAXPROCS(0) takes the scheduler's lock,
// so it is read at most once per resizeEvery, and only from slow paths: a
// wake-up, a split, and every resizeCheckCalls-th call on a guest seat.
func (p *Pool) maybeResize() { p.maybeResizeAt(platform.Ticks()) }

// maybeResizeAt is maybeResize for a caller that has just read the clock.
// The check is small enough to inline and the rest is a call of its own:
// a saturated call asks at every grain's end (worthSplitting), often on a
// fresh goroutine whose 2 KB stack the rest's frame would make the runtime
// grow and copy (about 4 µs a goroutine, measured with 512 callers).
func (p *Pool) maybeResizeAt(now int64) {
	if next := p.nextResize.Load(); now >= next {
		p.resizeCheck(next, now)
	}
}

// resizeCheck is maybeResizeAt's slow path: one caller per resizeEvery
// (the one whose CAS from next wins) reads GOMAXPROCS.
//
//go:noinline
func (p *Pool) resizeCheck(next, now int64) {
	if !p.nextResize.CompareAndSwap(next, now+platform.NsToTicks(resizeEvery)) {
		return
	}
	calibrate()
	if p.cfg.workers > 0 {
		return
	}
	n := min(runtime.GOMAXPROCS(0), MaxWorkers)
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
			m = hostOnce()
		}
	}
	total := max(n, len(old.workers))
	cpus := m.t.Placement(total)
	l := &layout{
		workers: make([]*slot, total),
		active:  n,
		machine: m,
		procs:   runtime.GOMAXPROCS(0),
		noSat:   p.exp.noSaturation,
	}
	copy(l.workers, old.workers)
	var fresh []*slot
	for i := len(old.workers); i < total; i++ {
		s := newSlot(p, int32(i), true)
		s.cpu = cpus[i]
		l.workers[i] = s
		fresh = append(fresh, s)
	}
	l.victims, l.levels = victimOrders(m, cpus[:total], p.exp.victims)
	for i := 0; i < n; i++ {
		l.allWorkers = append(l.allWorkers, int32(i))
	}
	p.layout.Store(l)
	p.solo.Store(n == 0)
	pin := p.cfg.pinned() && !m.simulated
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
//
// Close panics if it is called from a body that runs on p (on one of its
// workers, or on the goroutine of a call to p that is running its own
// pieces): it would wait for its own thread. A call that runs as a plain
// loop on its caller (at parallelism 1, or while the machine is crowded,
// see par/plain.go) waits for nobody, and Close from its body closes the
// pool. Closing the default pool makes the next call without On start a
// new default pool (see Default).
func (p *Pool) Close() {
	p.init()
	k := platform.GoroutineKey()
	if s := lookupWorker(k); s != nil && s.pool == p {
		panic("par: Pool.Close called from a body running on that pool's worker: it would wait for itself; close the pool after the call returns")
	}
	if s := seatOf(k); s != nil && s.pool == p {
		panic("par: Pool.Close called from a body of a call running on that pool: it would wait for the call; close the pool after the call returns")
	}
	forgetDefault(p)
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

// workerMain is the body of a worker goroutine. A body that calls
// runtime.Goexit on a worker kills the goroutine; by the time the unwinding
// reaches this function's deferred call every frame on the way has done
// its part (pieces arrived at their joins, tasks marked done), so a new
// goroutine takes the slot over and runs what is left in its deque. The
// pool keeps its parallelism, and Close still waits for every worker.
func (p *Pool) workerMain(s *slot, pin bool) {
	returned := false
	defer func() {
		if !returned { // even when closed: the new goroutine drains the deque, then exits
			p.workers.Add(1)
			go p.workerMain(s, pin)
		}
		p.workers.Done()
	}()
	// A pinned worker locks its thread and exits still locked, so the
	// runtime destroys the thread with its one-CPU mask. An unpinned worker
	// is an ordinary goroutine: waking one locked to its thread costs a
	// wake-up of that very thread (docs/DESIGN.md).
	if pin || p.exp.locked {
		runtime.LockOSThread()
		if pinned := pin && platform.PinThread(s.cpu) == nil; !pinned {
			defer runtime.UnlockOSThread()
		}
	}
	// A goroutine inherits its creator's pprof labels; a worker runs each
	// task under the labels of the call it belongs to, and none between.
	platform.SetProfLabel(nil)
	s.tree = 0
	k := platform.GoroutineKey()
	workers.Put(k, unsafe.Pointer(s))
	defer workers.Delete(k)
	s.run()
	returned = true
}
