//go:build linux

package platform

import "golang.org/x/sys/unix"

// PinThread restricts the calling OS thread to cpu. The caller holds
// runtime.LockOSThread.
func PinThread(cpu int) error {
	var set unix.CPUSet
	set.Set(cpu)
	return unix.SchedSetaffinity(0, &set)
}
