//go:build !linux

package topology

import "runtime"

// Host returns the topology of the machine the process runs on. Outside
// Linux there is no sysfs to read, so it is Flat(runtime.NumCPU()).
func Host() *Topology { return Flat(runtime.NumCPU()) }
