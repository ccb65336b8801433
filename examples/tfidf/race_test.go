//go:build race

package main

// raceEnabled reports whether the tests run under the race detector, which
// makes the build some 30 times slower.
const raceEnabled = true
