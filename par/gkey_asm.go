//go:build amd64 || arm64

package par

// getg returns the address of the running goroutine's g. Implemented in
// gkey_$GOARCH.s.
func getg() uintptr

// goroutineKey identifies the running goroutine in about 2 ns.
func goroutineKey() uintptr { return getg() }

// fastGoroutineKey reports whether goroutineKey is the assembly fast path.
const fastGoroutineKey = true
