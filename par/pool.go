package par

import (
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/parloop/parloop/par/internal/counters"
	"github.com/parloop/parloop/par/internal/experiment"
	"github.com/parloop/parloop/par/internal/grain"
	"github.com/parloop/parloop/par/internal/platform"
	"github.com/parloop/parloop/par/internal/sleep"
)

// Pool is a set of workers that run the verbs' pieces. The zero value is a
// pool with the default configuration, like NewPool(); Default is the pool
// the verbs use without On.
//
// A pool starts its workers on first use, never at creation or import. Its
// parallelism follows runtime.GOMAXPROCS(0), which Go changes with the
// container's CPU limit, unless Workers(n) fixes it. The goroutine that
// calls a verb runs pieces of its own call, so a pool of parallelism P runs
// P-1 worker threads (none at P = 1). Close stops the workers.
type Pool struct {
	cfg poolConfig
	exp experiment.Set // the experiments (internal/experiment), set at start

	mu      sync.Mutex // serialises start, resize and Close
	started atomic.Bool
	closed  atomic.Bool
	layout  atomic.Pointer[layout]
	solo    atomic.Bool // no worker thread is active (parallelism 1): forks stay private (par/internal/splitdeque)
	workers sync.WaitGroup

	sleep       sleep.List
	callerStats counters.Seat  // pieces run by guests (callers from outside)
	crowdCounts counters.Calls // crowded calls (plain.go), counted with the callers'

	nextResize atomic.Int64 // ticks at which the next GOMAXPROCS check is due
	lastKick   atomic.Int64 // ticks of the last kick (offer.go)
	statsFrom  atomic.Int64 // ticks (platform.Ticks) of the last ResetStats
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

// init gives a zero Pool its empty layout and stats clock; every exported
// method calls it first.
func (p *Pool) init() *layout {
	if l := p.layout.Load(); l != nil {
		return l
	}
	if p.layout.CompareAndSwap(nil, &layout{}) {
		p.statsFrom.CompareAndSwap(0, platform.Ticks())
	}
	return p.layout.Load()
}

var defaultPool struct {
	mu sync.Mutex
	p  atomic.Pointer[Pool]
}

// Default returns the pool used by verbs called without On from outside any
// pool, created on first use. After its Close (a TestMain may) the next call
// starts a new default pool; a *Pool kept from earlier stays closed.
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

// forgetDefault makes a later Default create a new pool if p is Default.
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
	p.exp = experiment.Read()
	if p.cfg.exp != nil {
		p.exp = *p.cfg.exp
	}
	grain.Calibrate()
	p.resizeLocked(p.target())
	p.nextResize.Store(platform.Ticks() + platform.NsToTicks(resizeEvery))
	p.started.Store(true)
}

// maybeResize follows GOMAXPROCS. GOMAXPROCS(0) takes the scheduler's lock,
// so it is read at most once per resizeEvery, and only from slow paths: a
// wake-up, a split, and every resizeCheckCalls-th call on a guest seat.
func (p *Pool) maybeResize() { p.maybeResizeAt(platform.Ticks()) }

// maybeResizeAt is maybeResize at tick now. Only the check inlines, since
// a saturated call asks at every grain's end, often on a fresh goroutine.
func (p *Pool) maybeResizeAt(now int64) {
	if next := p.nextResize.Load(); now >= next {
		p.resizeCheck(next, now)
	}
}

// resizeCheck is maybeResizeAt's slow path: the caller whose CAS from next
// wins reads GOMAXPROCS.
//
//go:noinline
func (p *Pool) resizeCheck(next, now int64) {
	if !p.nextResize.CompareAndSwap(next, now+platform.NsToTicks(resizeEvery)) {
		return
	}
	grain.Calibrate()
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

// resizeLocked publishes a layout for parallelism n, starting new workers
// and waking retired ones that become active; it retires, never stops, the
// rest (worker.go, retired). Called with p.mu held.
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
		noSat:   p.exp.NoSaturation,
	}
	copy(l.workers, old.workers)
	var fresh []*slot
	for i := len(old.workers); i < total; i++ {
		s := newSlot(p, int32(i), true)
		s.cpu = cpus[i]
		l.workers[i] = s
		fresh = append(fresh, s)
	}
	l.victims, l.levels = m.t.VictimOrders(cpus[:total], p.exp.Victims)
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
	// Retired workers that became active park outside the sleeper list.
	for i := 0; i < min(n, len(old.workers)); i++ {
		if i >= old.active {
			l.workers[i].sleeper.Signal()
		}
	}
}

// Close stops the pool's workers and waits for them to exit; it is
// idempotent. Running calls finish their remaining pieces on their callers;
// later calls run on the calling goroutine; after closing Default the next
// call without On starts a new default pool. Close panics if called from a
// body running on p (on a worker, or on a caller running its own pieces),
// which would wait for itself; a call run as a plain loop on its caller
// (at parallelism 1, or crowded) does not count.
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
	p.closed.Store(true) // before the wake-ups below: see par/internal/sleep
	l := p.layout.Load()
	p.mu.Unlock()
	for _, s := range l.workers {
		s.sleeper.Signal()
	}
	p.workers.Wait()
}

// workerMain is a worker goroutine. After a body's runtime.Goexit, when
// the unwinding reaches the deferred call, every frame on the way has done
// its part (pieces arrived, tasks marked done), so a new goroutine takes
// the slot over and runs what is left in its deque.
func (p *Pool) workerMain(s *slot, pin bool) {
	returned := false
	defer func() {
		if !returned { // even when closed: the new goroutine drains the deque, then exits
			p.workers.Add(1)
			go p.workerMain(s, pin)
		}
		p.workers.Done()
	}()
	// A pinned worker exits still locked, so the runtime destroys the thread
	// with its one-CPU mask. An unpinned one is an ordinary goroutine:
	// waking a locked one means waking that very thread (docs/DESIGN.md).
	if pin || p.exp.Locked {
		runtime.LockOSThread()
		if pinned := pin && platform.PinThread(s.cpu) == nil; !pinned {
			defer runtime.UnlockOSThread()
		}
	}
	// A worker runs each task under its call's labels, none between.
	platform.SetProfLabel(nil)
	s.tree = 0
	k := platform.GoroutineKey()
	workers.Put(k, unsafe.Pointer(s))
	defer workers.Delete(k)
	s.run()
	returned = true
}

// Saturation: more goroutines waiting for a P than there are Ps (64
// goroutines calling ForRange on 2 Ps, a busy server), read from
// runtime/metrics at most once per period (platform.Saturated). A thief
// could then run only by taking a P from a waiting goroutine, so no piece
// splits (offer.go), an idle worker parks without spinning (worker.go), and
// a call from outside may run crowded (plain.go). The answer is a hint up
// to a period old: a stale one costs a split or spin made or skipped, never
// a lost wake-up (a parking worker still re-checks) or a wrong result.
// Pools wider than GOMAXPROCS (bodies that block) ignore it: their spare
// workers exist to run while others wait.

// busyElsewhere reports whether l's pool should hold back from offering
// work or spinning because the Ps are saturated (see above).
func (l *layout) busyElsewhere(now int64) bool {
	return !l.wide() && !l.noSat && platform.Saturated(now, l.procs)
}

// wide reports whether the pool has more workers than GOMAXPROCS.
func (l *layout) wide() bool { return l.active > l.procs }
