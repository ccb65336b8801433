// Package crowd paces a crowded call of the parloop scheduler: a call from
// outside the pool, on the default pool, while the Ps are saturated (par's
// pool.go), which runs as a loop on its caller in chunks of 1, 2, 4,
// ... times the Grain hint until it hands the rest, and the fold so far,
// to a framed run, which can split, once the Ps are no longer saturated. A
// hand-over waits at most about as long as the call has run.
//
// A [Watch] looks between chunks. The caller reads the clock on entry when
// the last answer says saturated; the looks load the last answer for the
// first [ClockFrom] cheap indices, then (or after a first chunk of
// [SlowNs]) read the clock, which refreshes it; a chunk of [ChunkNs] stops
// the doubling. A stale "saturated" costs at most one chunk run plainly, a
// stale "not saturated" the framed path.
package crowd

import (
	"github.com/parloop/parloop/par/internal/grain"
	"github.com/parloop/parloop/par/internal/platform"
)

const (
	ClockFrom = 256     // from this many indices on, every look reads the clock
	SlowNs    = 2_000   // a first chunk this long makes every look read the clock
	ChunkNs   = 100_000 // a chunk that lasts this long stops doubling
)

// Watch watches a crowded call between its chunks (see above). The caller
// asks whether the Ps are still saturated: from the last answer
// (platform.SaturatedHint) after a look that did not read the clock, else
// at the tick the look read.
type Watch struct {
	looks int
	clock bool  // the next look reads the clock: the first, then every one once chunks are slow or many indices ran
	fixed bool  // a chunk lasted ChunkNs: the size stays
	t     int64 // ticks at the start or at the last look that read the clock
}

// Start returns the Watch of a call that read the clock at tick now on
// entry.
func Start(now int64) Watch { return Watch{clock: true, t: now} }

// Look is the look after ran indices: it returns whether it read the clock
// (every look does from ClockFrom indices on, or once chunks are slow; the
// first always does), and the tick it read.
func (w *Watch) Look(ran int) (now int64, clocked bool) {
	w.looks++
	if w.clock || ran >= ClockFrom {
		return w.read(ran), true
	}
	return 0, false
}

// read reads the clock for a look after ran indices, and returns the tick.
func (w *Watch) read(ran int) int64 {
	now := platform.Ticks()
	d := now - w.t
	w.t = now
	// After the first look, clock stays set: a later look reads the clock
	// only with clock set or from ClockFrom indices on.
	w.clock = w.looks > 1 || ran >= ClockFrom || d >= platform.NsToTicks(SlowNs)
	if w.looks > 1 && d >= platform.NsToTicks(ChunkNs) {
		w.fixed = true
	}
	return now
}

// Next returns the size of the chunk after one of size, once a look found
// the call still crowded: double, until a chunk lasted ChunkNs.
func (w *Watch) Next(size int) int {
	if w.fixed {
		return size
	}
	return grain.NextChunk(size)
}
