package topology

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// memoryNodes builds a synthetic capture of 4 packages of 2 single-thread
// cores, each package with its NUMA node (0 to 3), and two NUMA nodes
// without CPUs, as CXL or HBM memory shows: node 4 (an empty cpulist and
// cpumap, 64 GiB) nearest to node 0, and node 5 (an empty cpumap, no
// cpulist, no meminfo) as far from all. With distances false, no node has
// a distance file.
func memoryNodes(distances bool) map[string]string {
	const cpu, node = "sys/devices/system/cpu/", "sys/devices/system/node/"
	files := map[string]string{
		cpu + "online":         "0-7\n",
		node + "online":        "0-5\n",
		node + "has_cpu":       "0-3\n",
		node + "node4/cpulist": "\n",
		node + "node4/cpumap":  "00000000\n",
		node + "node4/meminfo": "Node 4 MemTotal:       67108864 kB\nNode 4 MemFree:        67000000 kB\n",
		node + "node5/cpumap":  "00000000,00000000\n",
	}
	for n := range 4 {
		dir := fmt.Sprintf("%snode%d/", node, n)
		files[dir+"cpulist"] = fmt.Sprintf("%d-%d\n", 2*n, 2*n+1)
		files[dir+"cpumap"] = fmt.Sprintf("%08x\n", 3<<(2*n))
		files[dir+"meminfo"] = fmt.Sprintf("Node %d MemTotal:       16777216 kB\n", n)
	}
	if distances {
		files[node+"node0/distance"] = "10 21 21 21 14 30\n"
		files[node+"node1/distance"] = "21 10 21 21 24 30\n"
		files[node+"node2/distance"] = "21 21 10 21 24 30\n"
		files[node+"node3/distance"] = "21 21 21 10 24 30\n"
		files[node+"node4/distance"] = "14 24 24 24 10 30\n"
		files[node+"node5/distance"] = "30 30 30 30 30 10\n"
	}
	for c := range 8 {
		top := fmt.Sprintf("%scpu%d/topology/", cpu, c)
		files[top+"physical_package_id"] = fmt.Sprint(c / 2)
		files[top+"package_cpus_list"] = fmt.Sprintf("%d-%d", c/2*2, c/2*2+1)
		files[top+"core_id"] = fmt.Sprint(c % 2)
		files[top+"core_cpus_list"] = fmt.Sprint(c)
	}
	return files
}

// NUMA nodes without CPUs are shown and counted, as hwloc does, with their
// memory size and distances, but hold no CPU domain: placement and victims
// ignore them. 4 nodes with CPUs and 2 without read numa=6, as hwloc
// counts them.
func TestMemoryOnlyNodes(t *testing.T) {
	for _, c := range []struct {
		name      string
		distances bool
		tree      string // the tree lines of String
	}{
		// hwloc attaches a CPU-less node near some nodes (by the
		// distances) to the object holding their CPUs: node 4 to package
		// 0; node 5, equally far from all, to the machine.
		{"with distances", true, `
  NUMANode L#0 (P#5)
  Package L#0 (P#0)
    NUMANode L#1 (P#4 64GiB)
    NUMANode L#2 (P#0 16GiB)
      Core L#0 (P#0) + PU L#0 (P#0)
      Core L#1 (P#1) + PU L#1 (P#1)
  Package L#1 (P#1) + NUMANode L#3 (P#1 16GiB)
    Core L#2 (P#0) + PU L#2 (P#2)
    Core L#3 (P#1) + PU L#3 (P#3)
  Package L#2 (P#2) + NUMANode L#4 (P#2 16GiB)
    Core L#4 (P#0) + PU L#4 (P#4)
    Core L#5 (P#1) + PU L#5 (P#5)
  Package L#3 (P#3) + NUMANode L#5 (P#3 16GiB)
    Core L#6 (P#0) + PU L#6 (P#6)
    Core L#7 (P#1) + PU L#7 (P#7)
NUMA distances (by P#):
  index     0     1     2     3     4     5
      0    10    21    21    21    14    30
      1    21    10    21    21    24    30
      2    21    21    10    21    24    30
      3    21    21    21    10    24    30
      4    14    24    24    24    10    30
      5    30    30    30    30    30    10
`},
		// Without distances nothing says where they are: the machine.
		{"without distances", false, `
  NUMANode L#0 (P#4 64GiB)
  NUMANode L#1 (P#5)
  Package L#0 (P#0) + NUMANode L#2 (P#0 16GiB)
`},
	} {
		t.Run(c.name, func(t *testing.T) {
			top, err := Read(mapFS(memoryNodes(c.distances)))
			if err != nil {
				t.Fatal(err)
			}
			if got, want := top.Summary(), "packages=4 numa=6 l3=0 cores=8 threads=8"; got != want {
				t.Errorf("Summary() = %q, want %q\n%s", got, want, top)
			}
			if got := top.MemoryNodes(); !slices.Equal(got, []int{4, 5}) {
				t.Errorf("MemoryNodes() = %v, want [4 5]", got)
			}
			if m, ok := top.NodeMemory(4); !ok || m != 64<<30 {
				t.Errorf("NodeMemory(4) = %d, %v; want 64 GiB", m, ok)
			}
			if m, ok := top.NodeMemory(5); ok {
				t.Errorf("NodeMemory(5) = %d, true; want unknown (no meminfo)", m)
			}
			if got := domainSets(top, LevelNUMA); !slices.Equal(got, []string{"0-1", "2-3", "4-5", "6-7"}) {
				t.Errorf("NUMA domains %v, want the four nodes with CPUs", got)
			}
			if s := top.String(); !strings.Contains(s, c.tree) {
				t.Errorf("String():\n%s\nwant it to contain:%s", s, c.tree)
			}
			if c.distances {
				if d, ok := top.Distance(4, 0); !ok || d != 14 {
					t.Errorf("Distance(4, 0) = %d, %v; want 14", d, ok)
				}
			}
			checkPlacement(t, top)
			if got := top.Placement(4); !slices.Equal(got, []int{0, 2, 4, 6}) {
				t.Errorf("Placement(4) = %v, want [0 2 4 6]", got)
			}
			checkVictims(t, top, top.Placement(8))
			if r := top.Relation(0, 2); c.distances && r != "remote:21" {
				t.Errorf("Relation(0, 2) = %s, want remote:21", r)
			}
		})
	}
	// The affinity mask leaves node 0 without a usable CPU: nodes 1-3 and
	// the two memory-only nodes remain, and node 4, near only node 0's
	// CPUs, hangs from the machine.
	t.Run("affinity", func(t *testing.T) {
		files := memoryNodes(true)
		files["proc/self/status"] = "Cpus_allowed_list:\t2-7\n"
		top, err := Read(mapFS(files))
		if err != nil {
			t.Fatal(err)
		}
		if got, want := top.Summary(), "packages=3 numa=5 l3=0 cores=6 threads=6"; got != want {
			t.Errorf("Summary() = %q, want %q", got, want)
		}
		want := `
  NUMANode L#0 (P#4 64GiB)
  NUMANode L#1 (P#5)
  Package L#0 (P#1) + NUMANode L#2 (P#1 16GiB)
`
		if s := top.String(); !strings.Contains(s, want) {
			t.Errorf("String():\n%s\nwant it to contain:%s", s, want)
		}
		checkPlacement(t, top)
	})
}

// hwloc's rules for the node files: the cpumap decides (an empty one makes
// a memory-only node whatever cpulist says), a node whose CPUs overlap a
// lower-numbered node's is ignored, one whose CPUs are all offline is
// memory-only, and one without a readable CPU set is ignored.
func TestNodeRules(t *testing.T) {
	const cpu, node = "sys/devices/system/cpu/", "sys/devices/system/node/"
	files := map[string]string{
		cpu + "online":         "0-5\n",
		cpu + "present":        "0-7\n",
		node + "node0/cpumap":  "03\n",
		node + "node1/cpumap":  "0c\n",
		node + "node2/cpumap":  "06\n",  // overlaps nodes 0 and 1
		node + "node3/cpumap":  "00\n",  // empty mask ...
		node + "node3/cpulist": "4-5\n", // ... wins over the list
		node + "node4/cpulist": "4-5\n",
		node + "node5/cpumap":  "c0\n", // CPUs 6-7, offline
		node + "node6/cpumap":  "zz\n",
		node + "node6/meminfo": "Node 6 MemTotal: 1024 kB\n",
		node + "node4/meminfo": "Node 4 MemTotal: 3145728 kB\n",
		node + "node1/meminfo": "garbage\n",
	}
	top, err := Read(mapFS(files))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := domainSets(top, LevelNUMA), []string{"0-1", "2-3", "4-5"}; !slices.Equal(got, want) {
		t.Errorf("NUMA domains %v, want %v", got, want)
	}
	var ids []int
	for _, d := range top.Domains(LevelNUMA) {
		ids = append(ids, d.ID)
	}
	if !slices.Equal(ids, []int{0, 1, 4}) {
		t.Errorf("NUMA domain ids %v, want [0 1 4]", ids)
	}
	if got := top.MemoryNodes(); !slices.Equal(got, []int{3, 5}) {
		t.Errorf("MemoryNodes() = %v, want [3 5]", got)
	}
	if got, want := top.Summary(), "packages=1 numa=5 l3=0 cores=6 threads=6"; got != want {
		t.Errorf("Summary() = %q, want %q", got, want)
	}
	for n, want := range map[int]uint64{4: 3 << 30, 1: 0, 6: 0} {
		if got, ok := top.NodeMemory(n); got != want || ok != (want > 0) {
			t.Errorf("NodeMemory(%d) = %d, %v; want %d", n, got, ok, want)
		}
	}
	s := top.String()
	for _, want := range []string{"NUMA node 2 overlaps a lower-numbered node; ignored", "NUMANode L#4 (P#4 3072MiB)"} {
		if !strings.Contains(s, want) {
			t.Errorf("String() lacks %q:\n%s", want, s)
		}
	}
	checkPlacement(t, top)
}

func TestFormatBytes(t *testing.T) {
	for n, want := range map[uint64]string{
		512: "1KiB", 1 << 10: "1KiB", 10<<20 - 1: "10240KiB", 10 << 20: "10MiB",
		996 << 20: "996MiB", 3 << 30: "3072MiB", 10 << 30: "10GiB", 95<<30 + 600<<20: "96GiB",
		10 << 40: "10TiB", 1 << 50: "1024TiB",
	} {
		if got := formatBytes(n); got != want {
			t.Errorf("formatBytes(%d) = %q, want %q", n, got, want)
		}
	}
}
