package par

// Saturation: whether the Go scheduler has more goroutines waiting for a P
// than there are Ps (64 goroutines calling ForRange at once on 2 Ps, or a
// busy server). Then a thief could only run by taking a P from a waiting
// goroutine, so a piece does not split (offer.go), an idle worker parks
// without spinning (worker.go), and a call from outside may run crowded
// (plain.go). The answer comes from runtime/metrics, read at most once per
// period (platform.Saturated).
//
// Ordering: the answer is a hint up to one period old; a stale one costs a
// split or spin made or skipped, never a lost wake-up (a parking worker
// still re-checks, par/internal/sleep) or a wrong result. Pools wider than GOMAXPROCS
// (bodies that block) ignore it: their spare workers exist to run while
// others wait.

import "github.com/parloop/parloop/par/internal/platform"

// busyElsewhere reports whether l's pool should hold back from offering
// work or spinning because the Ps are saturated (see above).
func (l *layout) busyElsewhere(now int64) bool {
	return !l.wide() && !l.noSat && platform.Saturated(now, l.procs)
}

// wide reports whether the pool has more workers than GOMAXPROCS.
func (l *layout) wide() bool { return l.active > l.procs }
