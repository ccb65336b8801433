package main

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Result is one line of `go test -bench` output.
type Result struct {
	// Name is the benchmark's name without "Benchmark" and without the
	// GOMAXPROCS suffix, e.g. "Tiny/peer=seq".
	Name    string
	Procs   int                // GOMAXPROCS of the run (the -N suffix; none means 1)
	Iters   int64              // b.N
	Metrics map[string]float64 // unit -> value: "ns/op", "B/op", "allocs/op", custom ones
}

// Top is the benchmark function's name, e.g. "Tiny".
func (r Result) Top() string { return strings.SplitN(r.Name, "/", 2)[0] }

// Key returns the value of a "key=value" element of the name ("" if absent).
func (r Result) Key(k string) string { return nameKey(r.Name, k) }

func nameKey(name, k string) string {
	for _, part := range strings.Split(name, "/") {
		if v, ok := strings.CutPrefix(part, k+"="); ok {
			return v
		}
	}
	return ""
}

// renamed maps rows of older raw outputs to their names now: iter's
// Limit option is Blocking.
var renamed = strings.NewReplacer("/impl=iter+Limit", "/impl=iter+Blocking")

var procsSuffix = regexp.MustCompile(`^(.*)-(\d+)$`)

// ParseBench reads benchmark result lines, ignoring every other line
// (headers, PASS, logs). It fails on a line that starts like a result but
// does not parse, so that a format change is noticed rather than ignored.
func ParseBench(r io.Reader) ([]Result, error) {
	var out []Result
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for line := 1; sc.Scan(); line++ {
		f := strings.Fields(sc.Text())
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") {
			continue
		}
		iters, err := strconv.ParseInt(f[1], 10, 64)
		if err != nil {
			continue // "BenchmarkX ... --- FAIL" and similar
		}
		if len(f)%2 != 0 {
			return nil, fmt.Errorf("line %d: odd number of value/unit fields: %q", line, sc.Text())
		}
		res := Result{Procs: 1, Iters: iters, Metrics: map[string]float64{}}
		name := strings.TrimPrefix(f[0], "Benchmark")
		if m := procsSuffix.FindStringSubmatch(name); m != nil {
			name = m[1]
			res.Procs, _ = strconv.Atoi(m[2])
		}
		res.Name = renamed.Replace(name)
		for i := 2; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				return nil, fmt.Errorf("line %d: value %q: %v", line, f[i], err)
			}
			res.Metrics[f[i+1]] = v
		}
		out = append(out, res)
	}
	return out, sc.Err()
}

// Set groups the samples of each (name, procs).
type Set struct {
	samples map[setKey][]Result
	names   []string // in order of first appearance
	procs   []int    // sorted
}

type setKey struct {
	name  string
	procs int
}

// NewSet groups results.
func NewSet(rs []Result) *Set {
	s := &Set{samples: map[setKey][]Result{}}
	seen := map[string]bool{}
	for _, r := range rs {
		k := setKey{r.Name, r.Procs}
		s.samples[k] = append(s.samples[k], r)
		if !seen[r.Name] {
			seen[r.Name] = true
			s.names = append(s.names, r.Name)
		}
		if !slices.Contains(s.procs, r.Procs) {
			s.procs = append(s.procs, r.Procs)
		}
	}
	sort.Ints(s.procs)
	return s
}

// Procs lists the GOMAXPROCS values present, ascending.
func (s *Set) Procs() []int { return s.procs }

// MaxProcs is the largest GOMAXPROCS present (0 if none).
func (s *Set) MaxProcs() int {
	if len(s.procs) == 0 {
		return 0
	}
	return s.procs[len(s.procs)-1]
}

// Names lists the names under prefix ("Tiny/" lists Tiny's sub-benchmarks).
func (s *Set) Names(prefix string) []string {
	var out []string
	for _, n := range s.names {
		if strings.HasPrefix(n, prefix) {
			out = append(out, n)
		}
	}
	return out
}

// Values is every sample of unit for (name, procs), in run order.
func (s *Set) Values(name string, procs int, unit string) []float64 {
	var v []float64
	for _, r := range s.samples[setKey{name, procs}] {
		if x, ok := r.Metrics[unit]; ok {
			v = append(v, x)
		}
	}
	return v
}

// Median is the median of unit for (name, procs); ok is false when there is
// no sample.
func (s *Set) Median(name string, procs int, unit string) (float64, bool) {
	v := s.Values(name, procs, unit)
	if len(v) == 0 {
		return math.NaN(), false
	}
	return median(v), true
}

// Has tells whether (name, procs) has a sample.
func (s *Set) Has(name string, procs int) bool { return len(s.samples[setKey{name, procs}]) > 0 }

// Count is the number of samples of (name, procs).
func (s *Set) Count(name string, procs int) int { return len(s.samples[setKey{name, procs}]) }

func median(v []float64) float64 {
	c := slices.Clone(v)
	slices.Sort(c)
	n := len(c)
	if n%2 == 1 {
		return c[n/2]
	}
	return (c[n/2-1] + c[n/2]) / 2
}

// PairedRatios divides the i-th sample of a by the i-th sample of b. The
// goal benchmarks run a and b in turn, so sample i of each comes from the
// same round.
func (s *Set) PairedRatios(a, b string, procs int, unit string) []float64 {
	return pairedRatios(s.Values(a, procs, unit), s.Values(b, procs, unit))
}

// PairedRatiosProcs divides the i-th sample of name at procs a by its i-th
// sample at procs b: the report runs one process per GOMAXPROCS in each
// round, so sample i of each comes from the same round.
func (s *Set) PairedRatiosProcs(name string, a, b int, unit string) []float64 {
	return pairedRatios(s.Values(name, a, unit), s.Values(name, b, unit))
}

// pairedRatios divides x[i] by y[i] for the samples both have, skipping a
// zero divisor.
func pairedRatios(x, y []float64) []float64 {
	n := min(len(x), len(y))
	r := make([]float64, 0, n)
	for i := 0; i < n; i++ {
		if y[i] != 0 {
			r = append(r, x[i]/y[i])
		}
	}
	return r
}
