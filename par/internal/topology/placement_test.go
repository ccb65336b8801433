package topology

import (
	"fmt"
	"io/fs"
	"slices"
	"strings"
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

// A synthetic machine with dies and clusters: 2 packages of 2 dies of 2
// clusters of 2 cores, each core 1 thread, and only *_id files for cores,
// so that core_id (unique only within a die) must be combined with the
// package and die.
func TestDiesAndClusters(t *testing.T) {
	files := map[string]string{"sys/devices/system/cpu/online": "0-15\n"}
	for c := range 16 {
		top := "sys/devices/system/cpu/cpu" + itoa(c) + "/topology/"
		pkg, die, cl := c/8, c/4, c/2
		files[top+"physical_package_id"] = itoa(pkg)
		files[top+"die_id"] = itoa(die % 2)
		files[top+"die_cpus_list"] = itoa(die*4) + "-" + itoa(die*4+3)
		files[top+"cluster_id"] = itoa(cl)
		files[top+"cluster_cpus_list"] = itoa(cl*2) + "-" + itoa(cl*2+1)
		files[top+"core_id"] = itoa(c % 4) // repeats in every die
		files[top+"package_cpus_list"] = itoa(pkg*8) + "-" + itoa(pkg*8+7)
	}
	top, err := Read(mapFS(files))
	if err != nil {
		t.Fatal(err)
	}
	if got := top.Summary(); got != "packages=2 numa=1 l3=0 cores=16 threads=16" {
		t.Errorf("Summary() = %q", got)
	}
	p := top.Placement(16)
	if want := []int{0, 8, 4, 12, 2, 10, 6, 14, 1, 9, 5, 13, 3, 11, 7, 15}; !slices.Equal(p, want) {
		t.Errorf("Placement(16) = %v, want %v", p, want)
	}
	// Nearest first: the cluster, the die, the package, then the one NUMA
	// node (the kernel gave no node file) that spans both packages.
	want := []string{"1", "2-3", "4-7", "8-15"}
	if got := victimCPUs(top, p, 0); !slices.Equal(got, want) {
		t.Errorf("victims of CPU 0 = %v, want %v", got, want)
	}
	for b, rel := range map[int]string{1: "cluster", 3: "die", 5: "package", 9: "numa"} {
		if got := top.Relation(0, b); got != rel {
			t.Errorf("Relation(0, %d) = %q, want %q", b, got, rel)
		}
	}
	// With a NUMA node per package, the other package is remote.
	files["sys/devices/system/node/node0/cpulist"] = "0-7"
	files["sys/devices/system/node/node1/cpulist"] = "8-15"
	files["sys/devices/system/node/node0/distance"] = "10 21"
	files["sys/devices/system/node/node1/distance"] = "21 10"
	if top, err = Read(mapFS(files)); err != nil {
		t.Fatal(err)
	}
	if got := victimCPUs(top, p, 0); !slices.Equal(got, want) {
		t.Errorf("victims of CPU 0 = %v, want %v", got, want)
	}
	if got := top.Relation(0, 9); got != "remote:21" {
		t.Errorf("Relation(0, 9) = %q", got)
	}
}

func itoa(i int) string { return FormatCPUList([]int{i}) }

// Where one NUMA node spans several packages, a thief tries its package
// (its L3, or the package itself where there is no L3) before the node.
func TestVictimsNodeSpansPackages(t *testing.T) {
	top := captureTopology(t, "16em64t-4s2c2t")
	for b, rel := range map[int]string{8: "core", 4: "l3", 1: "numa"} {
		if got := top.Relation(0, b); got != rel {
			t.Errorf("16em64t: Relation(0, %d) = %q, want %q", b, got, rel)
		}
	}
	top = captureTopology(t, "8em64t-2s4c-asymcaches")
	for b, rel := range map[int]string{6: "l2", 4: "package", 1: "numa"} {
		if got := top.Relation(2, b); got != rel {
			t.Errorf("8em64t: Relation(2, %d) = %q, want %q", b, got, rel)
		}
	}
}

// Core kinds from Intel's PMU directories, else from cpu_capacity.
func TestKindSources(t *testing.T) {
	const cpu = "sys/devices/system/cpu/"
	for name, files := range map[string]map[string]string{
		"cpu_core/cpu_atom": {
			cpu + "online": "0-3", "sys/devices/cpu_core/cpus": "0-1\n", "sys/devices/cpu_atom/cpus": "2-3\n",
			cpu + "cpu0/cpu_capacity": "1", cpu + "cpu1/cpu_capacity": "1", cpu + "cpu2/cpu_capacity": "9", cpu + "cpu3/cpu_capacity": "9",
		},
		"cpu_capacity": {
			cpu + "online": "0-3", "sys/devices/cpu_core/cpus": "0-1\n", // no cpu_atom: not hybrid PMUs
			cpu + "cpu0/cpu_capacity": "1024", cpu + "cpu1/cpu_capacity": "1024", cpu + "cpu2/cpu_capacity": "446", cpu + "cpu3/cpu_capacity": "446",
		},
	} {
		top, err := Read(mapFS(files))
		if err != nil {
			t.Fatal(err)
		}
		if top.Kinds() != 2 || top.Kind(0) != 1 || top.Kind(3) != 0 {
			t.Errorf("%s: Kinds() = %d, Kind(0) = %d, Kind(3) = %d", name, top.Kinds(), top.Kind(0), top.Kind(3))
		}
		if got := top.Placement(4); !slices.Equal(got, []int{0, 1, 2, 3}) {
			t.Errorf("%s: Placement(4) = %v", name, got)
		}
	}
}

func TestDescribePlacement(t *testing.T) {
	top := Flat(4)
	got := top.DescribePlacement(3, true)
	want := "pool: parallelism 3 = 2 worker threads + the calling goroutine, pinned=true\n"
	for i, c := range top.Placement(2) {
		want += fmt.Sprintf("  worker %d: cpu %d\n", i, c)
	}
	if got != want {
		t.Fatalf("DescribePlacement(3, true) =\n%s\nwant\n%s", got, want)
	}
	if lines := strings.Count(top.DescribePlacement(1, false), "\n"); lines != 1 {
		t.Fatalf("parallelism 1 described in %d lines, want the header alone", lines)
	}
}
