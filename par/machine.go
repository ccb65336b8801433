package par

import (
	"github.com/parloop/parloop/par/internal/topology"
)

// Machine describes the CPUs of a machine: packages, NUMA nodes, caches,
// cores and hardware threads, which of them the process may use, and the
// order in which a pool's workers take them. Pass one to OnMachine to place
// a pool; print it to see it.
type Machine struct {
	t *topology.Topology
	// simulated is true for a machine read from a capture: its CPU ids are
	// not this machine's, so a pool on it never pins threads.
	simulated bool
}

// HostMachine returns the machine this process runs on, read from sysfs and
// procfs with the calling thread's affinity mask and the process's cgroup
// limits. It never fails: without sysfs (or outside Linux) the machine is
// flat, runtime.NumCPU() CPUs with no structure.
func HostMachine() *Machine { return &Machine{t: topology.Host()} }

// ReadMachine reads a captured machine: root is a directory holding the
// machine's "sys" and "proc" trees, or a tar archive of them (.tar.bz2,
// .tar.gz or .tar, such as hwloc's test captures). The affinity mask
// (proc/self/status) and the cgroup cpuset and CPU quota are taken from the
// capture where it has them. The machine is simulated: a pool placed on it
// uses its CPU ids for placement and victim orders but pins nothing.
func ReadMachine(root string) (*Machine, error) {
	fsys, err := topology.OpenRoot(root)
	if err != nil {
		return nil, err
	}
	t, err := topology.Read(fsys)
	if err != nil {
		return nil, err
	}
	return &Machine{t: t, simulated: true}, nil
}

// CPUs returns how many workers the machine can run at once: its usable
// CPUs (online, in the affinity mask and in the cgroup cpuset), capped by
// the cgroup CPU quota rounded up. It is at least 1.
func (m *Machine) CPUs() int { return m.t.Usable() }

// String renders the machine like a small lstopo: a tree of packages, NUMA
// nodes, L3 and L2 domains, clusters, cores and hardware threads (PUs) with
// their OS indexes, followed by NUMA distances and core kinds.
func (m *Machine) String() string { return m.t.String() }

// Summary is exactly "packages=N numa=N l3=N cores=N threads=N", counting
// the parts that hold at least one usable CPU.
func (m *Machine) Summary() string { return m.t.Summary() }
