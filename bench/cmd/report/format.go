package main

import (
	"fmt"
	"math"
	"strings"
)

// fmtTime renders nanoseconds with a unit that keeps three or four digits.
func fmtTime(ns float64) string {
	switch {
	case math.IsNaN(ns):
		return "–"
	case ns >= 1e9:
		return fmt.Sprintf("%.3g s", ns/1e9)
	case ns >= 1e6:
		return fmt.Sprintf("%.3g ms", ns/1e6)
	case ns >= 1e3:
		return fmt.Sprintf("%.3g µs", ns/1e3)
	default:
		return fmt.Sprintf("%.3g ns", ns)
	}
}

// fmtX renders a ratio as "1.23×".
func fmtX(r float64) string {
	if math.IsNaN(r) || math.IsInf(r, 0) {
		return "–"
	}
	if r >= 100 {
		return fmt.Sprintf("%.0f×", r)
	}
	return fmt.Sprintf("%.2f×", r)
}

// fmtNum renders a count or metric compactly.
func fmtNum(v float64) string {
	switch {
	case math.IsNaN(v):
		return "–"
	case v == math.Trunc(v) && math.Abs(v) < 1e7:
		return fmt.Sprintf("%.0f", v)
	case math.Abs(v) >= 100:
		return fmt.Sprintf("%.0f", v)
	default:
		return fmt.Sprintf("%.3g", v)
	}
}

func fmtPct(v float64) string {
	if math.IsNaN(v) {
		return "–"
	}
	return fmt.Sprintf("%.0f%%", 100*v)
}

// table renders a markdown table.
type table struct {
	head []string
	rows [][]string
}

func (t *table) add(cells ...string) { t.rows = append(t.rows, cells) }

func (t *table) String() string {
	var b strings.Builder
	b.WriteString("| " + strings.Join(t.head, " | ") + " |\n")
	b.WriteString("|" + strings.Repeat(" --- |", len(t.head)) + "\n")
	for _, r := range t.rows {
		for len(r) < len(t.head) {
			r = append(r, "")
		}
		b.WriteString("| " + strings.Join(r, " | ") + " |\n")
	}
	return b.String()
}

// compare words how much faster or slower a is than b (times: lower wins).
// Within ±tie it is a tie.
func compare(a, b, tie float64) string {
	r := a / b
	switch {
	case math.IsNaN(r):
		return "cannot be compared"
	case math.Abs(r-1) <= tie:
		return fmt.Sprintf("ties (%+.1f%%)", 100*(r-1))
	case r < 1:
		return fmt.Sprintf("wins: %s faster (%.0f%% less time)", fmtX(b/a), 100*(1-r))
	default:
		return fmt.Sprintf("loses: %s slower (%.0f%% more time)", fmtX(r), 100*(r-1))
	}
}

// tieBand is the relative difference below which two medians are reported
// as a tie: this machine is shared and noisy.
const tieBand = 0.03
