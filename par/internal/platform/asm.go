//go:build amd64 || arm64

package platform

// getg returns the address of the running goroutine's g (key_$GOARCH.s).
func getg() uintptr

// GoroutineKey identifies the running goroutine in about 2 ns: the address
// of the runtime's g, which belongs to one goroutine for its whole life and
// never moves. A g is reused after its goroutine exits, so a table keyed by
// it must drop a goroutine's entry before the goroutine exits.
func GoroutineKey() uintptr { return getg() }

// FastGoroutineKey reports whether GoroutineKey is the assembly fast path.
const FastGoroutineKey = true

// Ticks reads a cheap monotonic cycle counter (ticks_$GOARCH.s).
func Ticks() int64

// Pause executes the CPU's spin-wait hint n times (pause_$GOARCH.s).
//
//go:noescape
func Pause(n uint32)
