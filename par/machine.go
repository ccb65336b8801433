package par

// STUB: owned by the topology work; replaced by the real exported wrapper.

import "github.com/parloop/parloop/par/internal/topology"

// Machine describes the CPUs of a machine: packages, NUMA nodes, caches,
// cores and hardware threads.
type Machine struct {
	t *topology.Topology
}

// HostMachine returns the machine this process runs on.
func HostMachine() *Machine { return &Machine{t: topology.Host()} }

// String renders the machine like a small lstopo.
func (m *Machine) String() string { return m.t.String() }

// Summary is "packages=N numa=N l3=N cores=N threads=N", counting usable parts.
func (m *Machine) Summary() string { return m.t.Summary() }
