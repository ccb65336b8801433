package peers

import (
	"runtime"
	"sync"

	"github.com/parloop/parloop/bench/workloads"
	"github.com/parloop/parloop/par"
	"github.com/sourcegraph/conc/pool"
	"golang.org/x/sync/errgroup"
)

// ForkPeer is one way of running fork-join recursion. The recursive
// workloads are written once against workloads.Joiner; a peer supplies the
// joiner.
type ForkPeer struct {
	Name    string
	Parloop bool
	// HandCutoff: the peer forks only above the workload's hand-tuned
	// cutoff and recurses serially below it, the usual way a goroutine per
	// fork is made affordable. Other peers fork wherever the workload does.
	HandCutoff bool
	Open       func() (join workloads.Joiner, close func())
}

func openJoin(j workloads.Joiner) func() (workloads.Joiner, func()) {
	return func() (workloads.Joiner, func()) { return j, func() {} }
}

// Forks returns the fork-join peers, parloop's last.
func Forks() []ForkPeer {
	return []ForkPeer{
		{Name: "seq-func", Open: openJoin(workloads.SeqJoin)},
		{Name: "wg", Open: openJoin(WaitGroupJoin)},
		{Name: "wg-cutoff", HandCutoff: true, Open: openJoin(WaitGroupJoin)},
		{Name: "errgroup", Open: openErrgroupJoin},
		{Name: "conc", Open: openJoin(ConcPoolJoin)},
		{Name: "par.Join", Parloop: true, Open: openJoin(ParJoin)},
	}
}

// ParJoin is par.Join as a workloads.Joiner: par.Join takes options, so it
// is not a func(f, g func()) value itself.
func ParJoin(f, g func()) { par.Join(f, g) }

// WaitGroupJoin runs f on a new goroutine and g on this one.
func WaitGroupJoin(f, g func()) {
	var wg sync.WaitGroup
	wg.Go(f)
	g()
	wg.Wait()
}

// ConcPoolJoin runs f in a conc pool made for this fork and g on this
// goroutine. The pool is unbounded: a pool with WithMaxGoroutines shared by
// the whole recursion deadlocks once every slot holds a parent waiting for
// its children.
func ConcPoolJoin(f, g func()) {
	p := pool.New()
	p.Go(f)
	g()
	p.Wait()
}

// openErrgroupJoin shares one errgroup with SetLimit(GOMAXPROCS) across the
// recursion: a fork that gets a slot (TryGo) runs f on a goroutine, one that
// does not runs it inline. Blocking Go would deadlock for the same reason as
// a bounded conc pool.
func openErrgroupJoin() (workloads.Joiner, func()) {
	var grp errgroup.Group
	grp.SetLimit(runtime.GOMAXPROCS(0))
	join := func(f, g func()) {
		var wg sync.WaitGroup
		wg.Add(1)
		if !grp.TryGo(func() error { f(); wg.Done(); return nil }) {
			f()
			g()
			return
		}
		g()
		wg.Wait()
	}
	return join, func() { _ = grp.Wait() }
}
