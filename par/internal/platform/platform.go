// Package platform holds what the scheduler needs from the machine and the
// Go runtime below the portable standard library: the running goroutine's
// identity, a cheap cycle counter, the spin-wait hint, thread pinning, and
// the goroutine's pprof label set. Nothing here knows about pools or calls.
package platform

import (
	"runtime"
	"sync/atomic"
	"unsafe"
)

// SlowGoroutineKey returns the running goroutine's id, parsed from the
// "goroutine N [" header that runtime.Stack writes first: about 1 µs, on
// every architecture. Ids are never reused.
func SlowGoroutineKey() uintptr {
	var buf [64]byte
	n := runtime.Stack(buf[:], false)
	b := buf[:n]
	const prefix = "goroutine "
	var id uintptr
	if len(b) > len(prefix) {
		for _, c := range b[len(prefix):] {
			if c < '0' || c > '9' {
				break
			}
			id = id*10 + uintptr(c-'0')
		}
	}
	if id == 0 {
		panic("platform: unexpected runtime.Stack header " + string(b))
	}
	return id
}

// Nanotime is the runtime's monotonic clock, the one time.Now reads,
// without building a time.Time (a symbol the toolchain keeps reachable by
// linkname for existing packages).
//
//go:linkname Nanotime runtime.nanotime
func Nanotime() int64

// ProfLabel returns the running goroutine's pprof label set (one pointer in
// the runtime's g, installed by pprof.Do and pprof.SetGoroutineLabels), and
// SetProfLabel replaces it. They are the runtime's functions, reached by the
// linkname runtime/pprof itself uses ("Do not remove or change the type
// signature", runtime/proflabel.go); par's label tests check them on every
// Go version CI builds with.
//
//go:linkname ProfLabel runtime/pprof.runtime_getProfLabel
func ProfLabel() unsafe.Pointer

//go:linkname SetProfLabel runtime/pprof.runtime_setProfLabel
func SetProfLabel(labels unsafe.Pointer)

// The cycle counter's rate is calibrated against Nanotime lazily, once at
// least calibrateAfter has passed since the package was initialised; until
// then it is assumed to be defaultTicksPerNs, which only scales durations
// (the callers use ticks to size work, never for correctness).
const (
	defaultTicksPerNs = 3 << 10 // fixed point, 1/1024ths
	calibrateAfter    = 2_000_000
)

var (
	calibNs, calibTicks int64
	ticksPerNs          atomic.Int64 // 1/1024ths of a tick per ns; 0 until calibrated
)

func init() { calibNs, calibTicks = Nanotime(), Ticks() }

// Calibrate measures the tick rate once enough time has passed, and
// reports whether this call did (the caller then recomputes what it keeps
// in ticks). Cheap after the first success: one load.
func Calibrate() bool {
	if ticksPerNs.Load() != 0 {
		return false
	}
	dn := Nanotime() - calibNs
	if dn < calibrateAfter {
		return false
	}
	r := (Ticks() - calibTicks) << 10 / dn
	return r > 0 && ticksPerNs.CompareAndSwap(0, r)
}

func rate() int64 {
	if r := ticksPerNs.Load(); r != 0 {
		return r
	}
	return defaultTicksPerNs
}

// NsToTicks converts a duration in ns to ticks.
func NsToTicks(ns int64) int64 { return ns * rate() >> 10 }

// TicksToNs converts a tick count to ns, without overflow for any count
// of ticks since a pool started (a Stats' Wall months later).
func TicksToNs(t int64) int64 {
	r := rate()
	return t/r<<10 + t%r<<10/r
}
