//go:build !race

package iter

// raceEnabled reports whether the race detector is on; the default run
// shrinks the slowest tests' inputs under it (see longOr).
const raceEnabled = false
