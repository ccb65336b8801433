package par

import _ "unsafe" // for go:linkname

// nanotime is the runtime's monotonic clock, the one time.Now reads, without
// building a time.Time. runtime.nanotime is one of the symbols the Go
// toolchain keeps reachable by linkname for existing packages.
//
//go:linkname nanotime runtime.nanotime
func nanotime() int64
