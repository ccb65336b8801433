// Package rounds times the examples' strategies: it runs them in
// alternated rounds, so that each sees the same machine, and prints each
// one's median time, range and speedup over a baseline paired by round.
package rounds

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
)

// Names parses a -strategy flag: a comma-separated list of names from
// all, or "all" for every one. A name given twice counts once.
func Names(list string, all []string) ([]string, error) {
	if list == "all" {
		return slices.Clone(all), nil
	}
	var names []string
	for _, name := range strings.Split(list, ",") {
		if !slices.Contains(all, name) {
			return nil, fmt.Errorf("-strategy %s: want a comma-separated list of %s, or all", name, strings.Join(all, ","))
		}
		if !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	return names, nil
}

// Run runs n strategies runs times each: in round r, every strategy once,
// starting from strategy r%n, so none is always first after a pause.
// once(i) runs strategy i. Run returns times[i][r], the time of strategy
// i in round r, or the first error once returns.
func Run(n, runs int, once func(i int) error) ([][]time.Duration, error) {
	times := make([][]time.Duration, n)
	for r := range runs {
		for k := range n {
			i := (k + r) % n
			start := time.Now()
			if err := once(i); err != nil {
				return nil, err
			}
			times[i] = append(times[i], time.Since(start))
		}
	}
	return times, nil
}

// Print writes a line per strategy: its name, its median time, with more
// than one round the fastest and slowest, and, if a strategy is named
// base, the median over the rounds of base's time over its own.
func Print(w io.Writer, names []string, times [][]time.Duration, base string) {
	b := slices.Index(names, base)
	width := 0
	for _, name := range names {
		width = max(width, len(name))
	}
	const unit = 10 * time.Microsecond
	for i, name := range names {
		fmt.Fprintf(w, "%-*s %10v", width, name, Median(times[i]).Round(unit))
		if len(times[i]) > 1 {
			fmt.Fprintf(w, "  (%v-%v)", slices.Min(times[i]).Round(unit), slices.Max(times[i]).Round(unit))
		}
		if b >= 0 && i != b {
			ratios := make([]float64, len(times[i]))
			for r := range ratios {
				ratios[r] = times[b][r].Seconds() / times[i][r].Seconds()
			}
			fmt.Fprintf(w, "  %.2fx %s", Median(ratios), base)
		}
		fmt.Fprintln(w)
	}
}

// Median returns the median of xs (the mean of the middle two for an even
// count); xs is not changed. It panics if xs is empty.
func Median[T time.Duration | float64](xs []T) T {
	if len(xs) == 0 {
		panic("rounds: Median: empty xs")
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
