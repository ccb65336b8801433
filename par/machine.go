package par

import (
	"io/fs"
	"sync"

	"github.com/parloop/parloop/internal/sim"
	"github.com/parloop/parloop/par/internal/topology"
)

// Machine describes the CPUs of a machine: packages, NUMA nodes, caches,
// cores and hardware threads, which of them the process may use, and the
// order in which a pool's workers take them. Print it to see it.
type Machine struct {
	t         *topology.Topology
	simulated bool // read from a capture: its CPU ids are not ours, so never pinned
}

// HostMachine returns the machine this process runs on, read from sysfs and
// procfs with the calling thread's affinity mask and cgroup limits; without
// sysfs (or outside Linux), a flat machine of runtime.NumCPU() CPUs.
func HostMachine() *Machine { return &Machine{t: topology.Host()} }

// hostOnce is the host machine as pools see it, read once per process, so
// that no start or resize reads sysfs under a pool's mutex again.
var hostOnce = sync.OnceValue(HostMachine)

// readMachine reads a captured, simulated machine (sim.ReadMachine).
func readMachine(fsys fs.FS) (*Machine, error) {
	t, err := topology.Read(fsys)
	if err != nil {
		return nil, err
	}
	return &Machine{t: t, simulated: true}, nil
}

// placement describes where a pool of parallelism n places workers on m.
func placement(m *Machine, n int, pinned bool) string {
	return m.t.DescribePlacement(n, pinned && !m.simulated)
}

func init() {
	sim.ReadMachine = func(fsys fs.FS) (sim.Machine, error) {
		m, err := readMachine(fsys)
		if err != nil {
			return nil, err
		}
		return m, nil
	}
	sim.Placement = func(m sim.Machine, n int) string { return placement(m.(*Machine), n, defaultPinning) }
}

// CPUs returns how many workers the machine can run at once: its usable
// CPUs (online, in the affinity mask and in the cgroup cpuset), capped by
// the cgroup CPU quota rounded up. It is at least 1.
func (m *Machine) CPUs() int { return m.t.Usable() }

// String renders the machine like a small lstopo: a tree of packages, NUMA
// nodes, L3 and L2 domains, clusters, cores and hardware threads (PUs) with
// their OS indexes, then NUMA distances and core kinds. A NUMA node without
// CPUs is a childless "NUMANode L#i (P#n)" line under its nearest part.
func (m *Machine) String() string { return m.t.String() }

// Summary is exactly "packages=N numa=N l3=N cores=N threads=N", counting
// the parts that hold at least one usable CPU, and, in numa, the NUMA nodes
// without CPUs too (memory-only tiers such as CXL or HBM, as hwloc counts
// them; placement ignores them).
func (m *Machine) Summary() string { return m.t.Summary() }
