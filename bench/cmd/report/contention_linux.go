package main

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// cpuSnapshot is the machine's busy CPU time and this process's and its
// children's CPU time, to tell how much CPU other processes took during a
// phase: on a shared machine that is what spoils parallel timings.
type cpuSnapshot struct {
	machineBusy time.Duration // all CPUs, from /proc/stat
	ours        time.Duration // this process and its waited-for children
	at          time.Time
	ok          bool
}

func takeCPUSnapshot() cpuSnapshot {
	s := cpuSnapshot{at: time.Now()}
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return s
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line)
	if len(f) < 9 || f[0] != "cpu" {
		return s
	}
	var ticks int64
	for i, v := range f[1:9] {
		if i == 3 || i == 4 { // idle, iowait
			continue
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return s
		}
		ticks += n
	}
	const userHZ = 100 // USER_HZ, 100 on every Linux architecture Go supports
	s.machineBusy = time.Duration(ticks) * time.Second / userHZ
	for _, who := range []int{syscall.RUSAGE_SELF, syscall.RUSAGE_CHILDREN} {
		var ru syscall.Rusage
		if syscall.Getrusage(who, &ru) != nil {
			return s
		}
		s.ours += time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	s.ok = true
	return s
}
