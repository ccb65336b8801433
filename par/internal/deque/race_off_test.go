//go:build !race

package deque

// raceEnabled reports whether the race detector is on (race_on_test.go).
const raceEnabled = false
