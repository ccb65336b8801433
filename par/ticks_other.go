//go:build !amd64 && !arm64

package par

// cputicks falls back to the monotonic clock: one tick per nanosecond.
func cputicks() int64 { return nanotime() }
