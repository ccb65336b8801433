package topology

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// domainSets renders the domains of a level as sorted FormatCPUList strings.
func domainSets(top *Topology, l Level) []string {
	var out []string
	for _, d := range top.Domains(l) {
		out = append(out, FormatCPUList(d.CPUs))
	}
	slices.Sort(out)
	return out
}

// TestCaptures reads every capture and compares it with hwloc's view: the
// number of packages, NUMA nodes, L3 domains, cores and hardware threads and
// which CPUs share each one, plus L2 domains, clusters, core kinds and NUMA
// distances where hwloc shows them.
//
// "Usable" follows hwloc: offline CPUs are absent (offline-cpu0-node0 has
// CPUs 0-3 and 21-23 offline, and node0 is absent from its sysfs, so CPUs
// 4,6,...,20 belong to no NUMA node and numa=1, as in its console); CPUs
// outside the cgroup cpuset are absent (32amd64-4s2n4c-cgroup2 is limited
// to CPUs 0-5 by cgroup/unified/.../cpuset.cpus.effective, found through
// proc/mounts and proc/self/cpuset). In that capture's XML, packages 1 and 2
// and NUMA nodes 2 to 5 are present with an empty cpuset, because the
// cgroup allows their memory (cpuset.mems.effective is 0-5) but none of
// their CPUs: they are left out of the expected counts, since no worker can
// run there. No capture has proc/self/status, so none restricts the
// affinity mask. There is no deviation from hwloc's CPU sets.
func TestCaptures(t *testing.T) {
	type row struct {
		name      string
		want, got string
	}
	var rows []row
	prefetchCaptures(t)
	for _, name := range captureNames(t) {
		t.Run(name, func(t *testing.T) {
			e := loadExpected(t, name)
			top := captureTopology(t, name)

			want := hwlocSummary(e)
			if got := top.Summary(); got != want {
				t.Errorf("Summary() = %q, want %q", got, want)
			}
			rows = append(rows, row{name, want, top.Summary()})
			compareWithHwloc(t, top, e)
			if s := top.String(); !strings.Contains(s, "Machine (") || strings.Count(s, "PU L#") != len(top.CPUs()) {
				t.Errorf("String() lacks the machine or some PUs:\n%s", s)
			}
		})
	}
	var b strings.Builder
	for _, r := range rows {
		mark := "ok"
		if r.want != r.got {
			mark = "MISMATCH"
		}
		fmt.Fprintf(&b, "\n%-34s expected %-44s found %-44s %s", r.name, r.want, r.got, mark)
	}
	t.Log(b.String())
}

// hwlocSummary is the summary line of hwloc's view.
func hwlocSummary(e *expected) string {
	return fmt.Sprintf("packages=%d numa=%d l3=%d cores=%d threads=%d",
		e.count("Package"), e.count("NUMANode"), e.count("L3Cache"), e.count("Core"), e.count("PU"))
}

// compareWithHwloc checks which CPUs share each package, NUMA node, L3,
// L2 and core, the PUs, the clusters, core kinds, memory-only NUMA nodes
// and NUMA distances against hwloc's view.
func compareWithHwloc(t *testing.T, top *Topology, e *expected) {
	t.Helper()
	for _, c := range []struct {
		typ   string
		level Level
	}{
		{"Package", LevelPackage},
		{"NUMANode", LevelNUMA},
		{"L3Cache", LevelL3},
		{"L2Cache", LevelL2},
		{"Core", LevelCore},
	} {
		if got := domainSets(top, c.level); !slices.Equal(got, e.sets[c.typ]) {
			t.Errorf("%s sets:\n got  %v\n want %v", c.typ, got, e.sets[c.typ])
		}
	}
	var pus []string
	for _, c := range top.CPUs() {
		pus = append(pus, FormatCPUList([]int{c}))
	}
	slices.Sort(pus)
	if !slices.Equal(pus, e.sets["PU"]) {
		t.Errorf("PUs: got %v, want %v", pus, e.sets["PU"])
	}
	if got := top.MemoryNodes(); !slices.Equal(got, e.memNodes) {
		t.Errorf("MemoryNodes() = %v, want %v", got, e.memNodes)
	}
	// hwloc shows a cluster only where it differs from the L2 and the
	// core; each one it shows must be one of ours.
	clusters := domainSets(top, LevelCluster)
	for _, s := range e.sets["Group(Cluster)"] {
		if !slices.Contains(clusters, s) {
			t.Errorf("cluster %s missing from %v", s, clusters)
		}
	}
	checkKinds(t, top, e)
	for k, v := range e.dist {
		if got, ok := top.Distance(k[0], k[1]); !ok || got != v {
			t.Errorf("Distance(%d, %d) = %d, %v; want %d", k[0], k[1], got, ok, v)
		}
	}
}

// checkKinds compares the core kinds with hwloc's, where it lists several.
func checkKinds(t *testing.T, top *Topology, e *expected) {
	t.Helper()
	if e.kinds == nil {
		if top.Kinds() != 1 {
			t.Errorf("Kinds() = %d, want 1", top.Kinds())
		}
		return
	}
	if top.Kinds() != len(e.kinds) {
		t.Fatalf("Kinds() = %d, want %d", top.Kinds(), len(e.kinds))
	}
	for k, want := range e.kinds {
		var got []int
		for _, c := range top.CPUs() {
			if top.Kind(c) == k {
				got = append(got, c)
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("kind %d: got %s, want %s", k, FormatCPUList(got), FormatCPUList(want))
		}
	}
}

// TestCaptureInvariants checks, on every capture, the properties placement
// and victim orders must have whatever the machine.
func TestCaptureInvariants(t *testing.T) {
	for _, name := range captureNames(t) {
		t.Run(name, func(t *testing.T) {
			top := captureTopology(t, name)
			checkPlacement(t, top)
			checkVictims(t, top, top.Placement(top.Usable()))
		})
	}
}

// checkPlacement: a full placement is a permutation of the usable CPUs,
// faster kinds first, and within a kind every core's first thread comes
// before any core's second one; a longer one repeats it.
func checkPlacement(t *testing.T, top *Topology) {
	t.Helper()
	n := top.Usable()
	p := top.Placement(n)
	if got, want := slices.Sorted(slices.Values(p)), top.CPUs(); n == len(want) && !slices.Equal(got, want) {
		t.Fatalf("Placement(%d) = %v is not a permutation of %v", n, p, want)
	}
	coreOf := map[int]int{}
	for i, d := range top.Domains(LevelCore) {
		for _, c := range d.CPUs {
			coreOf[c] = i
		}
	}
	seen := map[int]int{} // core -> threads placed so far
	round := 0
	kind := top.Kinds()
	for i, c := range p {
		k := top.Kind(c)
		if k > kind {
			t.Fatalf("Placement: CPU %d (kind %d) after a kind-%d CPU, at %d: %v", c, k, kind, i, p)
		}
		if k < kind {
			kind, round = k, 0
		}
		r := seen[coreOf[c]]
		if r < round {
			t.Fatalf("Placement: CPU %d is thread %d of its core but comes after a thread %d, at %d: %v", c, r, round, i, p)
		}
		round = r
		seen[coreOf[c]]++
	}
	long := top.Placement(2*n + 1)
	for i, c := range long {
		if c != p[i%n] {
			t.Fatalf("Placement(%d)[%d] = %d, want %d", 2*n+1, i, c, p[i%n])
		}
	}
	if len(top.Placement(0)) != 0 || len(top.Placement(-1)) != 0 {
		t.Error("Placement of no worker is not empty")
	}
}

// checkVictims: each worker's levels hold every other worker exactly once,
// the workers of a level all relate to self the same way, and levels go
// from near to far.
func checkVictims(t *testing.T, top *Topology, cpus []int) {
	t.Helper()
	for self := range cpus {
		levels := top.VictimOrder(cpus, self)
		var all []int
		var prev *relKey
		for _, l := range levels {
			if len(l) == 0 {
				t.Fatalf("worker %d: empty level in %v", self, levels)
			}
			rel := top.Relation(cpus[self], cpus[l[0]])
			for _, j := range l {
				if r := top.Relation(cpus[self], cpus[j]); r != rel {
					t.Fatalf("worker %d: level mixes %s and %s", self, rel, r)
				}
			}
			k := top.relation(cpus[self], cpus[l[0]])
			for _, j := range l {
				if top.relation(cpus[self], cpus[j]) != k {
					t.Fatalf("worker %d: level %v mixes relations", self, l)
				}
			}
			if prev != nil && prev.compare(k) >= 0 {
				t.Fatalf("worker %d: levels out of order: %v", self, levels)
			}
			prev = &k
			all = append(all, l...)
		}
		slices.Sort(all)
		if len(all) != len(cpus)-1 || slices.Contains(all, self) || len(slices.Compact(slices.Clone(all))) != len(all) {
			t.Fatalf("worker %d: victims %v do not cover the %d others once", self, levels, len(cpus)-1)
		}
	}
	if top.VictimOrder(cpus, -1) != nil || top.VictimOrder(cpus, len(cpus)) != nil {
		t.Error("VictimOrder out of range is not nil")
	}
}
