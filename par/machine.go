package par

import (
	"io/fs"
	"sync"

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

// hostOnce is the host machine as pools see it: read once per process, on
// the first pool's start, so that a pool's start and its resizes, made
// under its mutex, never read sysfs again.
var hostOnce = sync.OnceValue(HostMachine)

// ReadMachine reads a captured machine from fsys, whose root holds the
// machine's "sys" and "proc" trees as they were under "/"
// (sys/devices/system/cpu, proc/cpuinfo and so on).
// [github.com/parloop/parloop/par/capture.Open] opens a directory or a tar
// archive of them, such as hwloc's test captures, as an fs.FS; an embed.FS
// or an fstest.MapFS serves as well. The affinity mask (proc/self/status)
// and the cgroup cpuset and CPU quota are taken from the capture where it
// has them. Missing or malformed files fall back as they do for
// HostMachine; a tree with neither sysfs CPU information nor proc/cpuinfo
// is an error. The machine is simulated: a pool placed on it uses its CPU
// ids for placement and victim orders but pins nothing.
func ReadMachine(fsys fs.FS) (*Machine, error) {
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
// their OS indexes, followed by NUMA distances and core kinds. A NUMA node
// without CPUs is a childless "NUMANode L#i (P#n)" line under the part of
// the machine nearest to it.
func (m *Machine) String() string { return m.t.String() }

// Summary is exactly "packages=N numa=N l3=N cores=N threads=N", counting
// the parts that hold at least one usable CPU, and, in numa, the NUMA nodes
// without CPUs too (memory-only tiers such as CXL or HBM, as hwloc counts
// them; placement ignores them).
func (m *Machine) Summary() string { return m.t.Summary() }
