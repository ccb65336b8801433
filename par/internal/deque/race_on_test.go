//go:build race

package deque

// raceEnabled reports whether the race detector is on. The schedule
// explorations run one actor at a time, handing over through channels, so
// the detector can report nothing there; under it, the default run explores
// only the witnesses (see TestSchedulesExhaustive).
const raceEnabled = true
