//go:build !amd64 && !arm64

package platform

// GoroutineKey identifies the running goroutine: without the assembly fast
// path, by the goroutine id (about 1 µs, correct).
func GoroutineKey() uintptr { return SlowGoroutineKey() }

const FastGoroutineKey = false

// Ticks falls back to the monotonic clock: one tick per nanosecond.
func Ticks() int64 { return Nanotime() }

var pauseSink uint32

// Pause busy-waits for about n short steps.
func Pause(n uint32) {
	for i := uint32(0); i < n; i++ {
		pauseSink += i
	}
}
