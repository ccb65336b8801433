//go:build !linux

package main

import "time"

type cpuSnapshot struct {
	machineBusy, ours time.Duration
	at                time.Time
	ok                bool
}

// takeCPUSnapshot is unavailable off Linux: the report then says nothing
// about other processes' load.
func takeCPUSnapshot() cpuSnapshot { return cpuSnapshot{at: time.Now()} }
