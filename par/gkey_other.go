//go:build !amd64 && !arm64

package par

// goroutineKey identifies the running goroutine. On architectures without
// the assembly fast path it parses the goroutine id out of runtime.Stack,
// which costs about a microsecond but is correct.
func goroutineKey() uintptr { return slowGoroutineKey() }

const fastGoroutineKey = false
