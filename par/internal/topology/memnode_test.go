package topology

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// memoryNodes builds a synthetic capture of 2 packages of 4 single-thread
// cores, each with its NUMA node (0 and 1), and two NUMA nodes without
// CPUs, as CXL or HBM memory shows: node 2 (an empty cpulist) nearest to
// node 0, and node 3 (an empty cpumap, no cpulist) as far from all. With
// distances false, no node has a distance file.
func memoryNodes(distances bool) map[string]string {
	const cpu, node = "sys/devices/system/cpu/", "sys/devices/system/node/"
	files := map[string]string{
		cpu + "online":            "0-7\n",
		node + "online":           "0-3\n",
		node + "has_memory":       "0-3\n",
		node + "has_cpu":          "0-1\n",
		node + "node0/cpulist":    "0-3\n",
		node + "node1/cpulist":    "4-7\n",
		node + "node2/cpulist":    "\n",
		node + "node2/cpumap":     "00000000\n",
		node + "node3/cpumap":     "00000000,00000000\n",
		node + "node2/meminfo":    "Node 2 MemTotal:       67108864 kB\n",
		node + "node3/has_memory": "",
	}
	if distances {
		files[node+"node0/distance"] = "10 21 14 30\n"
		files[node+"node1/distance"] = "21 10 24 30\n"
		files[node+"node2/distance"] = "14 24 10 30\n"
		files[node+"node3/distance"] = "30 30 30 10\n"
	}
	for c := range 8 {
		top := fmt.Sprintf("%scpu%d/topology/", cpu, c)
		files[top+"physical_package_id"] = fmt.Sprint(c / 4)
		files[top+"package_cpus_list"] = fmt.Sprintf("%d-%d", c/4*4, c/4*4+3)
		files[top+"core_id"] = fmt.Sprint(c % 4)
		files[top+"core_cpus_list"] = fmt.Sprint(c)
	}
	return files
}

// NUMA nodes without CPUs are shown and counted, as hwloc does, but hold
// no CPU domain: placement and victims ignore them.
func TestMemoryOnlyNodes(t *testing.T) {
	for _, c := range []struct {
		name      string
		distances bool
		tree      string // the tree lines of String
	}{
		// hwloc attaches a CPU-less node near some nodes (by the
		// distances) to the object holding their CPUs: node 2 to package
		// 0; node 3, equally far from all, to the machine.
		{"with distances", true, `
  NUMANode L#0 (P#3)
  Package L#0 (P#0)
    NUMANode L#1 (P#2)
    NUMANode L#2 (P#0)
      Core L#0 (P#0) + PU L#0 (P#0)
      Core L#1 (P#1) + PU L#1 (P#1)
      Core L#2 (P#2) + PU L#2 (P#2)
      Core L#3 (P#3) + PU L#3 (P#3)
  Package L#1 (P#1) + NUMANode L#3 (P#1)
    Core L#4 (P#0) + PU L#4 (P#4)
    Core L#5 (P#1) + PU L#5 (P#5)
    Core L#6 (P#2) + PU L#6 (P#6)
    Core L#7 (P#3) + PU L#7 (P#7)
NUMA distances (by P#):
  index     0     1     2     3
      0    10    21    14    30
      1    21    10    24    30
      2    14    24    10    30
      3    30    30    30    10
`},
		// Without distances nothing says where they are: the machine.
		{"without distances", false, `
  NUMANode L#0 (P#2)
  NUMANode L#1 (P#3)
  Package L#0 (P#0) + NUMANode L#2 (P#0)
`},
	} {
		t.Run(c.name, func(t *testing.T) {
			top, err := Read(mapFS(memoryNodes(c.distances)))
			if err != nil {
				t.Fatal(err)
			}
			if got, want := top.Summary(), "packages=2 numa=4 l3=0 cores=8 threads=8"; got != want {
				t.Errorf("Summary() = %q, want %q\n%s", got, want, top)
			}
			if got := top.MemoryNodes(); !slices.Equal(got, []int{2, 3}) {
				t.Errorf("MemoryNodes() = %v, want [2 3]", got)
			}
			if got := domainSets(top, LevelNUMA); !slices.Equal(got, []string{"0-3", "4-7"}) {
				t.Errorf("NUMA domains %v, want [0-3 4-7]", got)
			}
			if s := top.String(); !strings.Contains(s, c.tree) {
				t.Errorf("String():\n%s\nwant it to contain:%s", s, c.tree)
			}
			if c.distances {
				if d, ok := top.Distance(2, 0); !ok || d != 14 {
					t.Errorf("Distance(2, 0) = %d, %v; want 14", d, ok)
				}
			}
			checkPlacement(t, top)
			if got := top.Placement(2); !slices.Equal(got, []int{0, 4}) {
				t.Errorf("Placement(2) = %v, want [0 4]", got)
			}
			checkVictims(t, top, top.Placement(8))
			if r := top.Relation(0, 4); c.distances && r != "remote:21" {
				t.Errorf("Relation(0, 4) = %s, want remote:21", r)
			}
		})
	}
	// The affinity mask leaves node 0 without a usable CPU: node 1 and the
	// two memory-only nodes remain, and node 2, near only node 0's CPUs,
	// hangs from the machine.
	t.Run("affinity", func(t *testing.T) {
		files := memoryNodes(true)
		files["proc/self/status"] = "Cpus_allowed_list:\t4-7\n"
		top, err := Read(mapFS(files))
		if err != nil {
			t.Fatal(err)
		}
		if got, want := top.Summary(), "packages=1 numa=3 l3=0 cores=4 threads=4"; got != want {
			t.Errorf("Summary() = %q, want %q", got, want)
		}
		want := `
  NUMANode L#0 (P#2)
  NUMANode L#1 (P#3)
  Package L#0 (P#1) + NUMANode L#2 (P#1)
`
		if s := top.String(); !strings.Contains(s, want) {
			t.Errorf("String():\n%s\nwant it to contain:%s", s, want)
		}
		checkPlacement(t, top)
	})
}
