//go:build race

package freelist

// raceEnabled reports whether the race detector is on; under it a
// sync.Pool drops a quarter of what it is given, at random.
const raceEnabled = true
