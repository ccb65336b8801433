package par

// Saturation: whether the Go scheduler has more goroutines waiting for a P
// than there are Ps (64 goroutines calling ForRange at once on 2 Ps, or a
// server keeping every P busy). Then offering work gains nothing, since a
// thief could only run by taking a P from a goroutine waiting for it: a
// piece does not split (offer.go), an idle worker parks without spinning
// (worker.go), and a call from outside may run crowded (plain.go).
//
// The answer comes from runtime/metrics, read at most once per period
// (platform.Saturated).
//
// Ordering: the answer and the period are hints. A reader may act on an
// answer up to one period old; the cost is one split or spin made or
// skipped that a fresh answer would have decided otherwise, never a lost
// wake-up (a worker that parks still re-checks, sleep.go) or a wrong
// result. Pools wider than GOMAXPROCS (bodies that block) do not consult
// it: their spare workers exist to run while others wait.

import "github.com/parloop/parloop/par/internal/platform"

// busyElsewhere reports whether layout l's pool should hold back from
// offering work or spinning because the Ps are saturated: only for pools no
// wider than GOMAXPROCS (see above).
func (l *layout) busyElsewhere(now int64) bool {
	return !l.wide() && !l.noSat && platform.Saturated(now, l.procs)
}

// wide reports whether the pool has more workers than GOMAXPROCS (a pool
// for bodies that block): such a pool ignores saturation, and its unlocked
// spinners yield (sleep.go).
func (l *layout) wide() bool { return l.active > l.procs }
