package topology

// insertOrder is the order in which hwloc's Linux backend (look_sysfscpu)
// makes one CPU's objects: its core, package, cluster and die, then its
// caches by index (L2 before L3). An object conflicts only with objects
// made before it, so the order decides which of two conflicting ones stays.
var insertOrder = [...]Level{LevelCore, LevelPackage, LevelCluster, LevelDie, LevelL2, LevelL3}

// resolve turns the CPU sets reported for every level into domains, by
// hwloc's rules (see "Conflicting reports" in the package documentation):
// a domain is made by the first CPU of the set it reports, a package, die
// or cluster only by a CPU first in its own core, cluster and die, and a
// domain that overlaps one made before it without nesting, or one of its
// own level, is dropped. Without conflicting reports this is the plain
// partition of the CPUs by what they report. NUMA nodes, whose sets
// readNodes has made disjoint, are made by the first rule alone: hwloc
// inserts them after the CPUs' objects and never drops one for
// overlapping those. resolve returns the domains of every level, in
// increasing order of their first CPU, and where[l][i], the index of the
// domain of CPU b.ids[i] at level l, or -1 for none.
func (b *builder) resolve() (doms [numLevels][]domain, where [numLevels][]int) {
	pos := make(map[int]int, len(b.ids)) // CPU id -> index in b.ids
	for i, c := range b.ids {
		pos[c] = i
	}
	for l := range numLevels {
		where[l] = make([]int, len(b.ids))
		for i := range where[l] {
			where[l][i] = -1
		}
	}
	// first reports whether c comes first in the set it reports at level
	// l (the sets hold online CPUs only, sorted: see report). notFirst
	// reports whether c reports a set at level l without coming first in
	// it, a cluster or die of one CPU excepted, as hwloc ignores those.
	first := func(l Level, c int) bool {
		s := b.sets[l][c]
		return len(s) > 0 && s[0] == c
	}
	notFirst := func(l Level, c int) bool {
		s, ok := b.sets[l][c]
		return ok && !first(l, c) && (l == LevelCore || len(s) != 1)
	}
	for _, c := range b.ids {
		for _, l := range insertOrder {
			switch l {
			case LevelPackage, LevelDie:
				if notFirst(LevelCluster, c) || notFirst(LevelDie, c) {
					continue
				}
				fallthrough
			case LevelCluster:
				if notFirst(LevelCore, c) {
					continue
				}
			}
			s := b.sets[l][c]
			if !first(l, c) || b.conflicts(s, l, pos, doms, where) {
				continue
			}
			for _, o := range s {
				where[l][pos[o]] = len(doms[l])
			}
			doms[l] = append(doms[l], domain{id: b.osid[l][c], cpus: s})
		}
		if first(LevelNUMA, c) {
			s := b.sets[LevelNUMA][c]
			for _, o := range s {
				where[LevelNUMA][pos[o]] = len(doms[LevelNUMA])
			}
			doms[LevelNUMA] = append(doms[LevelNUMA], domain{id: b.osid[LevelNUMA][c], cpus: s})
		}
	}
	return doms, where
}

// conflicts reports whether the set s, a candidate domain of level l,
// overlaps a domain made before it without either holding the other, or
// overlaps a domain of level l. Domains of one level are disjoint, so each
// CPU of s is in at most one domain per level and the check costs
// O(len(s)) per level.
func (b *builder) conflicts(s []int, l Level, pos map[int]int, doms [numLevels][]domain, where [numLevels][]int) bool {
	for _, m := range insertOrder {
		shared := map[int]int{} // domain index at level m -> CPUs of s in it
		for _, c := range s {
			if d := where[m][pos[c]]; d >= 0 {
				shared[d]++
			}
		}
		if m == l && len(shared) > 0 {
			return true
		}
		for d, n := range shared {
			if n < len(s) && n < len(doms[m][d].cpus) {
				return true
			}
		}
	}
	return false
}
