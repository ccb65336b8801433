//go:build linux

package topology

import (
	"os"
	"runtime"

	"golang.org/x/sys/unix"
)

// Host returns the topology of the machine the process runs on: Read over
// os.DirFS("/"), with the affinity mask of the calling thread from
// sched_getaffinity. It never fails: where sysfs cannot be read, it returns
// Flat(runtime.NumCPU()). Call it before pinning the calling thread, since
// a pinned thread's mask is one CPU.
func Host() *Topology {
	t, err := read(os.DirFS("/"), readOptions{affinity: schedAffinity})
	if err != nil {
		return Flat(runtime.NumCPU())
	}
	return t
}

// schedAffinity returns the calling thread's affinity mask. The kernel
// refuses a mask smaller than its own (EINVAL), so larger ones are tried.
func schedAffinity() ([]int, bool) {
	for _, size := range []int{1024, 8192, MaxCPUs} {
		set := unix.NewCPUSet(size)
		if err := unix.SchedGetaffinityDynamic(0, set); err != nil {
			continue
		}
		var out []int
		for c := range size {
			if set.IsSet(c) {
				out = append(out, c)
			}
		}
		return out, len(out) > 0
	}
	return nil, false
}
