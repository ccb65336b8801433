// Package topology reads the CPU topology of a Linux machine from sysfs and
// procfs and derives worker placement and victim orders from it.
//
// STUB: the real implementation replaces this file. The exported API below is
// the contract the scheduler in package par relies on.
package topology

import (
	"fmt"
	"io/fs"
	"runtime"
)

// Topology describes the usable CPUs of one machine.
type Topology struct {
	cpus []int
}

// Flat returns a topology of n CPUs, numbered 0..n-1, with no structure.
func Flat(n int) *Topology {
	if n < 1 {
		n = 1
	}
	t := &Topology{cpus: make([]int, n)}
	for i := range t.cpus {
		t.cpus[i] = i
	}
	return t
}

// Read reads a topology from fsys, whose root is a machine's "/".
func Read(fsys fs.FS) (*Topology, error) {
	return Flat(runtime.NumCPU()), nil
}

// Host returns the topology of the machine the process runs on. It never
// fails: where sysfs cannot be read the topology is flat.
func Host() *Topology { return Flat(runtime.NumCPU()) }

// Placement returns the OS CPU ids on which n workers should run, in spread
// order. If n exceeds the usable CPUs, ids repeat.
func (t *Topology) Placement(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = t.cpus[i%len(t.cpus)]
	}
	return out
}

// VictimOrder returns, for the worker at index self of a pool placed on cpus,
// the indices of the other workers grouped by distance, nearest level first.
func (t *Topology) VictimOrder(cpus []int, self int) [][]int {
	var lvl []int
	for i := range cpus {
		if i != self {
			lvl = append(lvl, i)
		}
	}
	return [][]int{lvl}
}

// String renders the topology as a small lstopo-like tree.
func (t *Topology) String() string { return t.Summary() }

// Summary is "packages=N numa=N l3=N cores=N threads=N", counting usable parts.
func (t *Topology) Summary() string {
	return fmt.Sprintf("packages=1 numa=1 l3=1 cores=%d threads=%d", len(t.cpus), len(t.cpus))
}
