package topology

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
)

// spreadLevels are the levels across which workers are spread, outermost
// first. The core level is handled apart (one thread per core first).
var spreadLevels = [...]Level{LevelPackage, LevelDie, LevelNUMA, LevelL3, LevelCluster, LevelL2}

// spreadOrder returns the usable CPUs in the order workers take them:
// performance kinds before efficiency kinds; within a kind, one hardware
// thread of every core first, spread round-robin across packages, dies,
// NUMA nodes, L3 domains, clusters and L2 domains, then the second thread
// of every core in the same core order, and so on.
func (t *Topology) spreadOrder() []int {
	var out []int
	for k := t.kinds - 1; k >= 0; k-- {
		threads := map[int][]int{} // core domain -> usable CPU ids, sorted
		var firsts []int           // index in t.cpus of each core's first thread
		for i, c := range t.cpus {
			if !c.usable || c.kind != k {
				continue
			}
			d := c.dom[LevelCore]
			if len(threads[d]) == 0 {
				firsts = append(firsts, i)
			}
			threads[d] = append(threads[d], c.id)
		}
		order := t.interleave(firsts, 0)
		for r := 0; ; r++ {
			more := false
			for _, i := range order {
				th := threads[t.cpus[i].dom[LevelCore]]
				if r < len(th) {
					out = append(out, th[r])
					more = true
				}
			}
			if !more {
				break
			}
		}
	}
	return out
}

// interleave orders items (indices into t.cpus, sorted by CPU id) so that
// consecutive items fall in different domains of spreadLevels[depth] as
// long as possible, recursively. Domains take turns in proportion to their
// sizes: item j of a domain holding n items sits at (j+1/2)/n, so any prefix
// of the order gives each domain its fair share (equal domains take plain
// turns), which matters where a cpuset leaves domains of unequal sizes.
func (t *Topology) interleave(items []int, depth int) []int {
	if depth == len(spreadLevels) || len(items) <= 1 {
		return items
	}
	l := spreadLevels[depth]
	var keys []int
	groups := map[int][]int{}
	for _, i := range items {
		d := t.cpus[i].dom[l]
		if _, ok := groups[d]; !ok {
			keys = append(keys, d)
		}
		groups[d] = append(groups[d], i)
	}
	if len(keys) == 1 {
		return t.interleave(items, depth+1)
	}
	type slot struct{ g, j, n int }
	var slots []slot
	lists := make([][]int, len(keys))
	for g, d := range keys {
		lists[g] = t.interleave(groups[d], depth+1)
		for j := range lists[g] {
			slots = append(slots, slot{g, j, len(lists[g])})
		}
	}
	slices.SortFunc(slots, func(a, b slot) int {
		// (2a.j+1)/(2a.n) against (2b.j+1)/(2b.n).
		return cmp.Or(cmp.Compare((2*a.j+1)*b.n, (2*b.j+1)*a.n), cmp.Compare(a.g, b.g))
	})
	out := make([]int, len(slots))
	for i, s := range slots {
		out[i] = lists[s.g][s.j]
	}
	return out
}

// Placement returns the OS CPU ids on which n workers should run, in spread
// order: one per physical core first, across packages, NUMA nodes and cache
// domains, then the SMT siblings, with efficiency cores last. Only usable
// CPUs are returned (online, in the affinity mask and the cgroup cpuset),
// and only the first Usable() of them, so that a CPU quota is respected;
// when n exceeds that, ids repeat in the same order.
func (t *Topology) Placement(n int) []int {
	if n <= 0 {
		return []int{}
	}
	u := min(t.Usable(), len(t.spread))
	out := make([]int, n)
	if u == 0 { // only a zero Topology has no usable CPU
		return out
	}
	for i := range out {
		out[i] = t.spread[i%u]
	}
	return out
}

// victimLevels are the levels a victim may share with a thief, innermost
// first (the order breaks ties between levels with the same CPUs).
var victimLevels = [...]Level{LevelCore, LevelL2, LevelCluster, LevelL3, LevelNUMA, LevelDie, LevelPackage}

var relNames = [numLevels]string{
	LevelCore: "core", LevelL2: "l2", LevelCluster: "cluster", LevelL3: "l3",
	LevelNUMA: "numa", LevelDie: "die", LevelPackage: "package",
}

const unknownDistance = math.MaxInt32

// relKey says how far a victim is from a thief: the number of CPUs in the
// smallest domain they share (its level names it), or, for CPUs sharing no
// domain, the NUMA distance. Keys compare nearest first.
type relKey struct {
	size  int   // CPUs in the smallest shared domain; MaxInt32 when none
	level Level // that domain's level; numLevels when none
	dist  int   // NUMA distance when none is shared
}

func (k relKey) compare(o relKey) int {
	return cmp.Or(cmp.Compare(k.size, o.size), cmp.Compare(k.level, o.level), cmp.Compare(k.dist, o.dist))
}

// relation says how CPU b relates to CPU a: through the smallest domain
// they share, as the lowest common ancestor in hwloc's tree. On the usual
// machine that gives the order SMT sibling, cluster or L2, L3, NUMA node,
// then the rest of the package; where a NUMA node spans several packages
// (16em64t-4s2c2t), the package comes before the node.
func (t *Topology) relation(a, b int) relKey {
	if a == b {
		return relKey{size: 0, level: LevelCore}
	}
	ia, oka := t.index[a]
	ib, okb := t.index[b]
	if !oka || !okb {
		return relKey{unknownDistance, numLevels, unknownDistance}
	}
	ca, cb := &t.cpus[ia], &t.cpus[ib]
	best := relKey{unknownDistance, numLevels, 0}
	for _, l := range victimLevels {
		if d := ca.dom[l]; d >= 0 && d == cb.dom[l] {
			if n := len(t.domains[l][d].cpus); n < best.size {
				best = relKey{n, l, 0}
			}
		}
	}
	if best.level != numLevels {
		return best
	}
	best.dist = unknownDistance
	if na, nb := ca.dom[LevelNUMA], cb.dom[LevelNUMA]; na >= 0 && nb >= 0 {
		if d, ok := t.dist[[2]int{t.domains[LevelNUMA][na].id, t.domains[LevelNUMA][nb].id}]; ok {
			best.dist = d
		}
	}
	return best
}

// Relation names how CPU b relates to CPU a by the smallest domain they
// share: "core" (SMT siblings, or the same CPU), "l2", "cluster", "l3",
// "numa", "die" or "package"; CPUs that share none are "remote", followed
// by their NUMA distance where it is known ("remote:22").
func (t *Topology) Relation(a, b int) string {
	k := t.relation(a, b)
	switch {
	case k.level < numLevels:
		return relNames[k.level]
	case k.dist != unknownDistance:
		return fmt.Sprintf("remote:%d", k.dist)
	}
	return "remote"
}

// VictimOrder returns, for the worker at index self of a pool placed on cpus
// (OS CPU ids, as returned by Placement), the indices of the other workers
// grouped by distance, nearest level first. A level is the smallest domain
// a worker shares with self (see Relation): on the usual machine its SMT
// siblings, then its cluster or L2, its L3, its NUMA node, its die, its
// package; workers sharing none of these follow, grouped by increasing NUMA
// distance. Empty levels are omitted and indices within a level are in
// increasing order (the scheduler randomises within a level). Workers on
// the same CPU as self are in the first level; CPUs this topology does not
// know are the most remote. self out of range gives nil.
func (t *Topology) VictimOrder(cpus []int, self int) [][]int {
	if self < 0 || self >= len(cpus) {
		return nil
	}
	levels := map[relKey][]int{}
	for j, c := range cpus {
		if j != self {
			k := t.relation(cpus[self], c)
			levels[k] = append(levels[k], j)
		}
	}
	keys := make([]relKey, 0, len(levels))
	for k := range levels {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, relKey.compare)
	out := make([][]int, len(keys))
	for i, k := range keys {
		out[i] = levels[k]
	}
	return out
}

// DescribePlacement renders where a pool of parallelism n (n-1 worker
// threads and its caller) runs its workers on t: a header line, then one
// line per worker with its CPU.
func (t *Topology) DescribePlacement(n int, pinned bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "pool: parallelism %d = %d worker threads + the calling goroutine, pinned=%v\n", n, n-1, pinned)
	for i, c := range t.Placement(n - 1) {
		fmt.Fprintf(&b, "  worker %d: cpu %d\n", i, c)
	}
	return b.String()
}
