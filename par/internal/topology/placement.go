package topology

import (
	"cmp"
	"fmt"
	"math"
	"slices"
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
	for i := range out {
		out[i] = t.spread[i%u]
	}
	return out
}

// Victim classes, nearest first. Remote CPUs are further ordered by NUMA
// distance.
const (
	relCore    = iota // the same core: an SMT sibling (or the same CPU)
	relL2             // the same cluster or the same L2
	relL3             // the same L3
	relNUMA           // the same NUMA node
	relDie            // the same die
	relPackage        // the same package
	relRemote         // another package
)

var relNames = [...]string{"core", "l2", "l3", "numa", "die", "package", "remote"}

const unknownDistance = math.MaxInt32

// relation classifies CPU b as seen from CPU a.
func (t *Topology) relation(a, b int) (class, dist int) {
	ia, oka := t.index[a]
	ib, okb := t.index[b]
	if a == b {
		return relCore, 0
	}
	if !oka || !okb {
		return relRemote, unknownDistance
	}
	ca, cb := &t.cpus[ia], &t.cpus[ib]
	same := func(l Level) bool { return ca.dom[l] >= 0 && ca.dom[l] == cb.dom[l] }
	switch {
	case same(LevelCore):
		return relCore, 0
	case same(LevelCluster) || same(LevelL2):
		return relL2, 0
	case same(LevelL3):
		return relL3, 0
	case same(LevelNUMA):
		return relNUMA, 0
	case same(LevelDie) && same(LevelPackage):
		return relDie, 0
	case same(LevelPackage):
		return relPackage, 0
	}
	na, nb := ca.dom[LevelNUMA], cb.dom[LevelNUMA]
	if na >= 0 && nb >= 0 {
		if d, ok := t.dist[[2]int{t.domains[LevelNUMA][na].id, t.domains[LevelNUMA][nb].id}]; ok {
			return relRemote, d
		}
	}
	return relRemote, unknownDistance
}

// Relation names how CPU b relates to CPU a, nearest first: "core" (SMT
// siblings), "l2" (same cluster or L2), "l3", "numa", "die", "package", or
// "remote" followed by the NUMA distance where known ("remote:22").
func (t *Topology) Relation(a, b int) string {
	c, d := t.relation(a, b)
	if c == relRemote && d != unknownDistance {
		return fmt.Sprintf("remote:%d", d)
	}
	return relNames[c]
}

// VictimOrder returns, for the worker at index self of a pool placed on cpus
// (OS CPU ids, as returned by Placement), the indices of the other workers
// grouped by distance, nearest level first: SMT siblings, then the same
// cluster or L2, the same L3, the same NUMA node, the same die, the same
// package, then other packages by increasing NUMA distance. Empty levels are
// omitted and indices within a level are in increasing order (the scheduler
// randomises within a level). Workers on the same CPU as self count as SMT
// siblings; CPUs this topology does not know are the most remote. self out
// of range gives nil.
func (t *Topology) VictimOrder(cpus []int, self int) [][]int {
	if self < 0 || self >= len(cpus) {
		return nil
	}
	type key struct{ class, dist int }
	levels := map[key][]int{}
	for j, c := range cpus {
		if j == self {
			continue
		}
		cl, d := t.relation(cpus[self], c)
		k := key{cl, d}
		levels[k] = append(levels[k], j)
	}
	keys := make([]key, 0, len(levels))
	for k := range levels {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(x, y key) int {
		return cmp.Or(cmp.Compare(x.class, y.class), cmp.Compare(x.dist, y.dist))
	})
	out := make([][]int, len(keys))
	for i, k := range keys {
		out[i] = levels[k]
	}
	return out
}
