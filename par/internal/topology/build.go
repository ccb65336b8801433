package topology

import (
	"slices"
)

// builder collects what the readers found, CPU by CPU, and turns it into a
// consistent Topology: every level becomes a partition of the online CPUs,
// whatever contradictions the files hold.
type builder struct {
	ids    []int // online CPUs, sorted
	online map[int]bool
	// sets[l][c] is the set of CPUs that CPU c reports for level l (nil:
	// none reported); osid[l][c] is the OS id of that domain (-1: unknown).
	sets [numLevels]map[int][]int
	osid [numLevels]map[int]int

	kind   map[int]int
	nkinds int
	dist   map[[2]int]int
	// normalized caches onlineSorted's results.
	normalized map[sliceKey][]int
	// memNodes are the NUMA nodes without CPUs, by OS index; nodeMem
	// holds the memory size of the nodes whose meminfo gives it, in bytes.
	memNodes []int
	nodeMem  map[int]uint64

	offline, affinity, cpuset []int
	quota                     float64
	flat                      bool
	notes                     []string
}

func newBuilder(online []int) *builder {
	ids := slices.Clone(online)
	slices.Sort(ids)
	ids = slices.Compact(ids)
	b := &builder{ids: ids, online: toSet(ids), kind: map[int]int{}, nkinds: 1, dist: map[[2]int]int{}, nodeMem: map[int]uint64{}, normalized: map[sliceKey][]int{}}
	for l := range numLevels {
		b.sets[l] = map[int][]int{}
		b.osid[l] = map[int]int{}
	}
	return b
}

// report records that CPU c belongs, at level l, to the domain holding
// cpus, whose OS id is id (-1 when unknown). Only the online CPUs of cpus
// are kept, sorted.
func (b *builder) report(l Level, c int, cpus []int, id int) {
	if !b.online[c] {
		return
	}
	b.sets[l][c] = b.onlineSorted(cpus)
	b.osid[l][c] = id
}

// sliceKey identifies a slice by its array and length.
type sliceKey struct {
	first *int
	n     int
}

// onlineSorted returns the online CPUs of s, sorted and without
// duplicates (s itself when it is already so). The fallbacks report one
// slice for many CPUs (every online CPU, for a machine without package
// information): each slice is looked at once, so that reading stays
// linear in the size of the files.
func (b *builder) onlineSorted(s []int) []int {
	if len(s) == 0 {
		return s
	}
	k := sliceKey{&s[0], len(s)}
	if out, ok := b.normalized[k]; ok {
		return out
	}
	out := b.normalize(s)
	b.normalized[k] = out
	return out
}

func (b *builder) normalize(s []int) []int {
	ok := true
	for i, c := range s {
		if !b.online[c] || i > 0 && s[i-1] >= c {
			ok = false
			break
		}
	}
	if ok {
		return s
	}
	var out []int
	for _, c := range s {
		if b.online[c] {
			out = append(out, c)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// groupByID reports, for every CPU in ids whose key is known, the set of
// CPUs in ids sharing its key. It is the fallback where only *_id files
// exist: keys must already include the enclosing domain (core_id is unique
// only within a package and die).
func (b *builder) groupByID(l Level, keys map[int][3]int, osid map[int]int) {
	groups := map[[3]int][]int{}
	for _, c := range b.ids {
		if k, ok := keys[c]; ok {
			groups[k] = append(groups[k], c)
		}
	}
	for _, c := range b.ids {
		if k, ok := keys[c]; ok {
			if _, done := b.sets[l][c]; !done {
				id, ok := osid[c]
				if !ok {
					id = -1
				}
				b.report(l, c, groups[k], id)
			}
		}
	}
}

func (b *builder) note(s string) { b.notes = append(b.notes, s) }

func (b *builder) finish() *Topology {
	if len(b.ids) == 0 {
		// Nothing online could be read: one CPU, as runtime.NumCPU never
		// reports less.
		b.ids, b.online = []int{0}, map[int]bool{0: true}
		b.note("no online CPU found; assuming one")
	}
	// Defaults for the levels every CPU must have where nothing was
	// reported: one package, one NUMA node (hwloc always has at least
	// one), and, after resolve, its own core.
	fillAll := func(l Level, id int) {
		for _, c := range b.ids {
			if _, ok := b.sets[l][c]; ok {
				return
			}
		}
		for _, c := range b.ids {
			b.report(l, c, b.ids, id)
		}
	}
	fillAll(LevelPackage, -1)
	for _, c := range b.ids { // a CPU with no package info joins the others'
		if _, ok := b.sets[LevelPackage][c]; !ok {
			var rest []int
			for _, o := range b.ids {
				if _, ok := b.sets[LevelPackage][o]; !ok {
					rest = append(rest, o)
				}
			}
			for _, o := range rest {
				b.report(LevelPackage, o, rest, -1)
			}
			break
		}
	}
	// The default node is node 0, unless that is a memory-only node.
	defNode := 0
	if slices.Contains(b.memNodes, 0) {
		defNode = -1
	}
	fillAll(LevelNUMA, defNode)

	t := &Topology{
		index:    make(map[int]int, len(b.ids)),
		dist:     b.dist,
		memNodes: b.memNodes,
		nodeMem:  b.nodeMem,
		kinds:    max(b.nkinds, 1),
		offline:  b.offline,
		affinity: b.affinity,
		cpuset:   b.cpuset,
		quota:    b.quota,
		flat:     b.flat,
		notes:    b.notes,
	}
	t.cpus = make([]cpu, len(b.ids))
	for i, c := range b.ids {
		t.index[c] = i
		t.cpus[i] = cpu{id: c, kind: b.kind[c]}
	}
	doms, where := b.resolve()
	b.ownCores(&doms[LevelCore], where[LevelCore])
	t.domains = doms
	for l := range numLevels {
		for i, d := range where[l] {
			t.cpus[i].dom[l] = d
		}
	}
	t.markUsable(b)
	t.spread = t.spreadOrder()
	return t
}

// ownCores makes every CPU that is in no core (it reported none, or its
// report made no core) a core of its own, with the core_id it reported,
// and renumbers the cores in order of their lowest CPU. where is indexed
// like b.ids.
func (b *builder) ownCores(cores *[]domain, where []int) {
	doms := *cores
	for i, c := range b.ids {
		if where[i] < 0 {
			id, ok := b.osid[LevelCore][c]
			if !ok {
				id = -1
			}
			where[i] = len(doms)
			doms = append(doms, domain{id: id, cpus: []int{c}})
		}
	}
	order := make([]int, len(doms))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(x, y int) int { return doms[x].cpus[0] - doms[y].cpus[0] })
	renum := make([]int, len(doms))
	sorted := make([]domain, len(doms))
	for n, o := range order {
		renum[o] = n
		sorted[n] = doms[o]
	}
	for i := range where {
		where[i] = renum[where[i]]
	}
	*cores = sorted
}

// markUsable sets the usable flag: online, in the affinity mask and in the
// cgroup cpuset. Restrictions that would leave nothing are ignored.
func (t *Topology) markUsable(b *builder) {
	aff, cs := toSet(b.affinity), toSet(b.cpuset)
	n := 0
	for i := range t.cpus {
		id := t.cpus[i].id
		u := (b.affinity == nil || aff[id]) && (b.cpuset == nil || cs[id])
		t.cpus[i].usable = u
		if u {
			n++
		}
	}
	if n == 0 {
		for i := range t.cpus {
			t.cpus[i].usable = true
		}
		if b.affinity != nil || b.cpuset != nil {
			t.notes = append(t.notes, "affinity mask and cpuset leave no online CPU; ignored")
		}
	}
}
