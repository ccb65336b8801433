//go:build !race

package par_test

// raceEnabled reports whether the race detector is on; it changes allocation
// counts, so the allocation tests skip under it.
const raceEnabled = false
