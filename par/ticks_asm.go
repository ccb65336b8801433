//go:build amd64 || arm64

package par

// cputicks reads a cheap monotonic cycle counter (ticks_$GOARCH.s).
func cputicks() int64
