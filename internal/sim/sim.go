// Package sim reaches par's captured-machine simulation, which is not part
// of par's public API, from this module's tools and examples: reading a
// machine from a capture (see internal/capture) and describing where a
// pool's workers would run on it. par fills in the functions when it is
// initialised, so a program that uses them imports par too.
package sim

import "io/fs"

// Machine is a *par.Machine.
type Machine interface {
	String() string  // like a small lstopo
	Summary() string // "packages=N numa=N l3=N cores=N threads=N"
	CPUs() int       // the usable CPUs
}

var (
	// ReadMachine reads a captured machine from fsys, whose root holds the
	// machine's "sys" and "proc" trees as they were under "/". The machine
	// is simulated: a pool on it uses its CPU ids and pins nothing.
	ReadMachine func(fsys fs.FS) (Machine, error)
	// Placement describes where the workers of a pool of parallelism n
	// (n-1 worker threads and the caller) run on m: one line per worker.
	Placement func(m Machine, n int) string
)
