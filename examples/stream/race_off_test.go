//go:build !race

package main

// raceEnabled reports whether the race detector is on; the tests stream
// fewer lines under it without -long.
const raceEnabled = false
