package topology

import (
	"io/fs"
	"slices"
	"testing"
	"testing/fstest"
)

// victimCPUs maps VictimOrder's worker indices back to CPU lists, level by
// level, for readable comparisons.
func victimCPUs(top *Topology, cpus []int, self int) []string {
	var out []string
	for _, l := range top.VictimOrder(cpus, self) {
		var c []int
		for _, j := range l {
			c = append(c, cpus[j])
		}
		out = append(out, FormatCPUList(c))
	}
	return out
}

func distinctDomains(top *Topology, l Level, cpus []int) int {
	idx := map[int]int{}
	for i, d := range top.Domains(l) {
		for _, c := range d.CPUs {
			idx[c] = i
		}
	}
	seen := map[int]bool{}
	for _, c := range cpus {
		seen[idx[c]] = true
	}
	return len(seen)
}

// The 64-thread capture: 4 packages of 2 NUMA nodes, each node one L3 over
// 4 compute units of 2 cores sharing an L2 (AMD Opteron 6276).
func TestPlacement64(t *testing.T) {
	top := captureTopology(t, "64amd64-4s2n4ca2co")
	p := top.Placement(64)

	// The first 8 workers take one CPU in each NUMA node, alternating
	// packages; the first 32 one core in each compute unit (L2).
	if want := []int{0, 16, 32, 48, 8, 24, 40, 56}; !slices.Equal(p[:8], want) {
		t.Errorf("Placement(64)[:8] = %v, want %v", p[:8], want)
	}
	for n, l := range map[int]Level{4: LevelPackage, 8: LevelNUMA, 32: LevelL2} {
		if got := distinctDomains(top, l, p[:n]); got != n {
			t.Errorf("first %d workers span %d %v domains, want %d", n, got, l, n)
		}
	}
	// The second core of each compute unit comes only after every first.
	if got := distinctDomains(top, LevelL2, p[32:]); got != 32 {
		t.Errorf("workers 32-63 span %d L2 domains, want 32", got)
	}

	// Worker 0 runs on CPU 0. Nearest first: its compute-unit sibling
	// (L2), the rest of its L3 (which is also its NUMA node), the other
	// node of its package, then the remote nodes at distance 16 (nodes 2,
	// 4, 6), then at 22 (nodes 3, 5, 7), per node0/distance.
	want := []string{"1", "2-7", "8-15", "16-23,32-39,48-55", "24-31,40-47,56-63"}
	if got := victimCPUs(top, p, 0); !slices.Equal(got, want) {
		t.Errorf("victims of worker 0 (CPU 0):\n got  %v\n want %v", got, want)
	}
	// A pool of 8: one worker per node; worker 0's package neighbour is
	// worker 4 (CPU 8).
	p8 := top.Placement(8)
	if got, want := top.VictimOrder(p8, 0), [][]int{{4}, {1, 2, 3}, {5, 6, 7}}; !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("VictimOrder(Placement(8), 0) = %v, want %v", got, want)
	}
	// Two workers on the same CPU (a pool larger than the machine) are
	// nearest of all.
	p65 := top.Placement(65)
	if got := top.VictimOrder(p65, 64); !slices.Equal(got[0], []int{0}) {
		t.Errorf("worker 64 shares CPU 0 with worker 0, but its first level is %v", got[0])
	}
}

// The 128-thread capture: 2 packages of 2 NUMA nodes, each node one L3
// over 8 clusters of 4 cores (Huawei Kunpeng 920).
func TestPlacement128(t *testing.T) {
	top := captureTopology(t, "128arm-2pa2n8cluster4co")
	p := top.Placement(128)
	if want := []int{0, 64, 32, 96, 4, 68, 36, 100}; !slices.Equal(p[:8], want) {
		t.Errorf("Placement(128)[:8] = %v, want %v", p[:8], want)
	}
	for n, l := range map[int]Level{2: LevelPackage, 4: LevelNUMA, 32: LevelCluster} {
		if got := distinctDomains(top, l, p[:n]); got != n {
			t.Errorf("first %d workers span %d %v domains, want %d", n, got, l, n)
		}
	}
	// Worker 0 (CPU 0): its cluster, its L3 (= node 0), node 1 in the same
	// package, then node 2 (distance 32) and node 3 (distance 33).
	want := []string{"1-3", "4-31", "32-63", "64-95", "96-127"}
	if got := victimCPUs(top, p, 0); !slices.Equal(got, want) {
		t.Errorf("victims of worker 0 (CPU 0):\n got  %v\n want %v", got, want)
	}
	// Worker 1 (CPU 64, node 2) sees node 1 at distance 25 before node 0
	// at 32.
	want = []string{"65-67", "68-95", "96-127", "32-63", "0-31"}
	if got := victimCPUs(top, p, 1); !slices.Equal(got, want) {
		t.Errorf("victims of worker 1 (CPU 64):\n got  %v\n want %v", got, want)
	}
	if got := top.Relation(0, 127); got != "remote:33" {
		t.Errorf("Relation(0, 127) = %q", got)
	}
}

// Hybrid: performance cores first, their SMT siblings next, efficiency
// cores last, spread across their two clusters.
func TestPlacementHybrid(t *testing.T) {
	top := captureTopology(t, "20em64t-hybrid-1p6c2t+2ca4co1t")
	want := []int{0, 2, 4, 6, 8, 10, 1, 3, 5, 7, 9, 11, 12, 16, 13, 17, 14, 18, 15, 19}
	if got := top.Placement(20); !slices.Equal(got, want) {
		t.Errorf("Placement(20) = %v, want %v", got, want)
	}
	// An E-core sees its module (cluster and L2) first.
	if got := victimCPUs(top, want, 12); !slices.Equal(got, []string{"13-15", "0-11,16-19"}) {
		t.Errorf("victims of CPU 12: %v", got)
	}
}

// overlay serves the files of top, else those of base.
type overlay struct {
	top  fstest.MapFS
	base fs.FS
}

func (o overlay) Open(name string) (fs.File, error) {
	if _, ok := o.top[name]; ok {
		return o.top.Open(name)
	}
	return o.base.Open(name)
}

// The affinity mask, cgroup v2 cpuset and quota of a capture restrict
// placement.
func TestPlacementRestricted(t *testing.T) {
	base := captureFS(t, "64amd64-4s2n4ca2co")
	fsys := overlay{fstest.MapFS{
		"proc/self/status":    {Data: []byte("Name:\tx\nCpus_allowed:\tffff\nCpus_allowed_list:\t0-3,8-11,16-63\n")},
		"proc/self/cgroup":    {Data: []byte("0::/job/step\n")},
		"proc/self/mountinfo": {Data: []byte("40 30 0:37 /job /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n")},
		// The mount's root is /job, so the process's cgroup /job/step is
		// at sys/fs/cgroup/step.
		"sys/fs/cgroup/step/cpuset.cpus.effective": {Data: []byte("8-31\n")},
		"sys/fs/cgroup/step/cpu.max":               {Data: []byte("max 100000\n")},
		"sys/fs/cgroup/cpu.max":                    {Data: []byte("250000 100000\n")},
	}, base}
	top, err := Read(fsys)
	if err != nil {
		t.Fatal(err)
	}
	if got := FormatCPUList(top.CPUs()); got != "8-11,16-31" {
		t.Errorf("usable CPUs %s, want 8-11,16-31", got)
	}
	if top.Quota() != 2.5 || top.Usable() != 3 {
		t.Errorf("Quota() = %v, Usable() = %d; want 2.5, 3", top.Quota(), top.Usable())
	}
	// Package 1 has 16 of the 20 usable CPUs, so it takes the first turns.
	if got, want := top.Placement(5), []int{16, 24, 8, 16, 24}; !slices.Equal(got, want) {
		t.Errorf("Placement(5) = %v, want %v", got, want)
	}
	if got := top.Summary(); got != "packages=2 numa=3 l3=3 cores=20 threads=20" {
		t.Errorf("Summary() = %q", got)
	}
}

func TestFlat(t *testing.T) {
	top := Flat(4)
	if got := top.Summary(); got != "packages=1 numa=1 l3=0 cores=4 threads=4" {
		t.Errorf("Summary() = %q", got)
	}
	if got := top.Placement(6); !slices.Equal(got, []int{0, 1, 2, 3, 0, 1}) {
		t.Errorf("Placement(6) = %v", got)
	}
	if got := top.VictimOrder([]int{0, 1, 2, 3}, 2); !slices.EqualFunc(got, [][]int{{0, 1, 3}}, slices.Equal) {
		t.Errorf("VictimOrder = %v", got)
	}
	if !top.IsFlat() || Flat(0).Usable() != 1 || Flat(-3).Usable() != 1 {
		t.Error("Flat(n < 1) is not one CPU")
	}
	// CPUs the topology does not know are the most remote.
	if got := top.VictimOrder([]int{0, 99, 1}, 0); !slices.EqualFunc(got, [][]int{{2}, {1}}, slices.Equal) {
		t.Errorf("VictimOrder with an unknown CPU = %v", got)
	}
}

func TestHost(t *testing.T) {
	top := Host()
	if top.Usable() < 1 || len(top.CPUs()) < 1 || len(top.Placement(3)) != 3 {
		t.Fatalf("Host() has no usable CPU:\n%s", top)
	}
	checkPlacement(t, top)
	checkVictims(t, top, top.Placement(top.Usable()+1))
	t.Logf("%s\n%s", top, top.Summary())
}
