package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// contendedShare is the share of the machine taken by other processes above
// which a phase's parallel timings are flagged as unreliable.
const contendedShare = 0.15

// cpuSpan is the CPU time other processes used over some wall time.
type cpuSpan struct {
	other, wall time.Duration
	ok          bool
}

func spanOf(a, b cpuSnapshot) cpuSpan {
	if !a.ok || !b.ok {
		return cpuSpan{wall: b.at.Sub(a.at)}
	}
	other := (b.machineBusy - a.machineBusy) - (b.ours - a.ours)
	return cpuSpan{other: max(other, 0), wall: b.at.Sub(a.at), ok: true}
}

func (s *cpuSpan) add(t cpuSpan) {
	s.ok = s.wall == 0 && t.ok || s.ok && t.ok
	s.other += t.other
	s.wall += t.wall
}

// share is the other processes' CPU time as a share of the machine.
func (s cpuSpan) share() float64 {
	if !s.ok || s.wall <= 0 {
		return 0
	}
	return float64(s.other) / (float64(s.wall) * float64(runtime.NumCPU()))
}

func (s cpuSpan) String() string {
	if !s.ok {
		return "unknown"
	}
	return fmt.Sprintf("%.0f%% of the machine (%v of CPU time by other processes in %v)",
		100*s.share(), s.other.Round(time.Second), s.wall.Round(time.Second))
}

// phaseLoad reads the other-process share recorded for a phase.
func phaseLoad(raw, phase string) (share float64, text string, ok bool) {
	b, err := os.ReadFile(filepath.Join(raw, phase+".load"))
	if err != nil {
		return 0, "", false
	}
	text = strings.TrimSpace(string(b))
	pct, _, found := strings.Cut(text, "%")
	if !found {
		return 0, text, false
	}
	v, err := strconv.ParseFloat(pct, 64)
	if err != nil {
		return 0, text, false
	}
	return v / 100, text, true
}

// contentionWarning is a markdown warning for the phases that ran while
// other processes took a large share of the machine, or "".
func contentionWarning(raw string, phases ...string) string {
	var bad []string
	for _, ph := range phases {
		if share, _, ok := phaseLoad(raw, ph); ok && share > contendedShare {
			bad = append(bad, fmt.Sprintf("`%s` (%.0f%%)", ph, 100*share))
		}
	}
	if len(bad) == 0 {
		return ""
	}
	return fmt.Sprintf("> **Contended:** other processes took more than %.0f%% of the machine during %s. "+
		"On 2 cores that comes out of the parallel runs first, so the speedups and parallel ratios below "+
		"understate what the code does on an idle machine. The serial timings are less affected.\n\n",
		100*contendedShare, strings.Join(bad, ", "))
}
