package topology

import (
	"fmt"
	"math"
	"slices"
)

// Level names a kind of CPU domain.
type Level int

// The domain levels, from the largest to the smallest.
const (
	LevelPackage Level = iota // a physical package (socket)
	LevelDie                  // a die inside a package, where the kernel reports one
	LevelNUMA                 // a NUMA node
	LevelL3                   // CPUs sharing an L3 cache
	LevelCluster              // a cluster of cores (Arm clusters, Intel E-core modules)
	LevelL2                   // CPUs sharing an L2 cache
	LevelCore                 // a physical core (its hardware threads)
	numLevels
)

var levelNames = [numLevels]string{"Package", "Die", "NUMANode", "L3Cache", "Cluster", "L2Cache", "Core"}

// String returns the lstopo name of the level.
func (l Level) String() string {
	if l < 0 || l >= numLevels {
		return fmt.Sprintf("Level(%d)", int(l))
	}
	return levelNames[l]
}

// Domain is a set of CPUs that share one part of the machine.
type Domain struct {
	Level Level
	// ID is the OS index where the kernel gives one (physical_package_id,
	// die_id, node number, cluster_id, cache id, core_id), else -1. Core,
	// die and cluster ids are unique only within their package.
	ID int
	// CPUs are the usable CPUs of the domain, sorted.
	CPUs []int
}

// cpu is one online CPU.
type cpu struct {
	id     int
	usable bool
	kind   int            // efficiency rank: 0 is the slowest kind
	dom    [numLevels]int // index into Topology.domains[level], -1 for none
}

// domain is a domain over the online CPUs.
type domain struct {
	id   int
	cpus []int // online CPUs, sorted
}

// Topology describes the CPUs of one machine: which are online and usable,
// how they group into cores, clusters, caches, NUMA nodes, dies and
// packages, and which are efficiency cores. A Topology is immutable and safe
// for concurrent use.
type Topology struct {
	cpus    []cpu       // online CPUs, sorted by id
	index   map[int]int // CPU id -> index in cpus
	domains [numLevels][]domain
	// dist holds NUMA distances keyed by node ids; missing pairs are
	// unknown.
	dist     map[[2]int]int
	memNodes []int          // NUMA nodes without CPUs (memory only), sorted
	nodeMem  map[int]uint64 // NUMA node -> memory size in bytes, where known
	kinds    int            // number of distinct core kinds (at least 1)
	offline  []int          // present but not online
	affinity []int          // affinity mask, nil when unknown
	cpuset   []int          // cgroup cpuset, nil when none
	quota    float64        // cgroup CPU quota in CPUs, 0 when none
	flat     bool
	notes    []string // fallbacks taken while reading, for String
	spread   []int    // usable CPU ids in spread order
}

// Flat returns a topology of n CPUs, numbered 0..n-1, with no structure:
// each CPU is its own core, all are in one package and one NUMA node, and no
// cache is known. n < 1 counts as 1.
func Flat(n int) *Topology {
	if n < 1 {
		n = 1
	}
	n = min(n, MaxCPUs)
	ids := make([]int, n)
	for i := range ids {
		ids[i] = i
	}
	b := newBuilder(ids)
	b.flat = true
	return b.finish()
}

// CPUs returns the usable CPU ids (online, in the affinity mask and in the
// cgroup cpuset), sorted.
func (t *Topology) CPUs() []int {
	var out []int
	for _, c := range t.cpus {
		if c.usable {
			out = append(out, c.id)
		}
	}
	return out
}

// Online returns the online CPU ids, sorted, usable or not.
func (t *Topology) Online() []int {
	out := make([]int, len(t.cpus))
	for i, c := range t.cpus {
		out[i] = c.id
	}
	return out
}

// Offline returns the ids of CPUs that are present but offline.
func (t *Topology) Offline() []int { return slices.Clone(t.offline) }

// Usable returns how many workers the machine can run at once: the number
// of usable CPUs, capped by the cgroup CPU quota rounded up
// (ceil(quota/period)). It is at least 1.
func (t *Topology) Usable() int {
	n := len(t.spread)
	if t.quota > 0 {
		q := int(math.Ceil(t.quota - 1e-9))
		n = min(n, max(q, 1))
	}
	return max(n, 1)
}

// Quota returns the cgroup CPU quota in CPUs (quota/period), or 0 when there
// is none.
func (t *Topology) Quota() float64 { return t.quota }

// IsFlat reports whether the topology carries no structure because none
// could be read (Flat, or a tree without sysfs).
func (t *Topology) IsFlat() bool { return t.flat }

// Domains returns the domains of level l that hold at least one usable CPU,
// each with its usable CPUs, in order of their lowest CPU id. The domains
// of a level are disjoint; a CPU may be in none of them (a machine without
// L3, or conflicting reports: see the package documentation), except at
// LevelCore, where every CPU is in one.
func (t *Topology) Domains(l Level) []Domain {
	if l < 0 || l >= numLevels {
		return nil
	}
	var out []Domain
	for _, d := range t.domains[l] {
		var u []int
		for _, id := range d.cpus {
			if t.cpus[t.index[id]].usable {
				u = append(u, id)
			}
		}
		if len(u) > 0 {
			out = append(out, Domain{Level: l, ID: d.id, CPUs: u})
		}
	}
	return out
}

// Kind returns the rank of CPU id's core kind: 0 for the slowest kind
// (efficiency cores), up to Kinds()-1 for the fastest (performance cores).
// A machine with one kind of core has rank 0 everywhere. An unknown id gets
// -1.
func (t *Topology) Kind(id int) int {
	i, ok := t.index[id]
	if !ok {
		return -1
	}
	return t.cpus[i].kind
}

// Kinds returns the number of distinct core kinds.
func (t *Topology) Kinds() int { return t.kinds }

// Distance returns the NUMA distance between nodes a and b as the kernel
// reports it (10 for a node to itself), and false where it is unknown.
func (t *Topology) Distance(a, b int) (int, bool) {
	d, ok := t.dist[[2]int{a, b}]
	return d, ok
}

// MemoryNodes returns the OS indexes of the NUMA nodes that have memory but
// no CPU (CXL, HBM or persistent-memory tiers), sorted. They are part of the
// machine, as in hwloc, but no domain of Domains: placement and victim
// orders ignore them.
func (t *Topology) MemoryNodes() []int { return slices.Clone(t.memNodes) }

// NodeMemory returns the memory size of NUMA node n in bytes, as its
// sysfs meminfo gives it (MemTotal), and false where that is unknown.
func (t *Topology) NodeMemory(n int) (uint64, bool) {
	m, ok := t.nodeMem[n]
	return m, ok
}

// Summary returns exactly "packages=N numa=N l3=N cores=N threads=N",
// counting the packages, NUMA nodes, L3 domains and cores that hold at least
// one usable CPU, and the usable CPUs (hardware threads). The one exception
// is that numa also counts the memory-only nodes (MemoryNodes), whose memory
// is usable although they hold no CPU, as hwloc counts them. It does not
// apply the CPU quota, which limits how many CPUs run at once but not
// which.
func (t *Topology) Summary() string {
	return fmt.Sprintf("packages=%d numa=%d l3=%d cores=%d threads=%d",
		len(t.Domains(LevelPackage)), len(t.Domains(LevelNUMA))+len(t.memNodes), len(t.Domains(LevelL3)),
		len(t.Domains(LevelCore)), len(t.spread))
}

// memLocality returns the usable CPUs a memory-only node is near, by
// hwloc's rule for CPU-less nodes without HMAT initiators: the CPUs of the
// other nodes at the smallest distance from it, provided that distance is
// larger than its distance to itself and not shared by all the other
// nodes; otherwise (or where a distance is unknown) nil, the whole machine.
func (t *Topology) memLocality(n int) []int {
	type node struct {
		id   int
		cpus []int
	}
	// The rule looks at every node, as hwloc does before the affinity
	// mask and cgroup restrict the CPUs; the result keeps the usable ones.
	var others []node
	for _, d := range t.domains[LevelNUMA] {
		if d.id >= 0 && d.id != n {
			var u []int
			for _, c := range d.cpus {
				if t.cpus[t.index[c]].usable {
					u = append(u, c)
				}
			}
			others = append(others, node{d.id, u})
		}
	}
	for _, m := range t.memNodes {
		if m != n {
			others = append(others, node{m, nil})
		}
	}
	self, ok := t.dist[[2]int{n, n}]
	if !ok || len(others) == 0 {
		return nil
	}
	best, nb := math.MaxInt, 0
	for _, o := range others {
		d, ok := t.dist[[2]int{n, o.id}]
		if !ok {
			return nil
		}
		switch {
		case d < best:
			best, nb = d, 1
		case d == best:
			nb++
		}
	}
	if best <= self || nb == len(others) {
		return nil
	}
	var out []int
	for _, o := range others {
		if t.dist[[2]int{n, o.id}] == best {
			out = append(out, o.cpus...)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
