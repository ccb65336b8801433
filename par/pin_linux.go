//go:build linux

package par

import "golang.org/x/sys/unix"

// pinThread restricts the calling OS thread (tid 0) to cpu. The caller holds
// runtime.LockOSThread.
func pinThread(cpu int) error {
	var set unix.CPUSet
	set.Set(cpu)
	return unix.SchedSetaffinity(0, &set)
}

// defaultPinning is decided by measurement (bench/RESULTS.md).
const defaultPinning = false
