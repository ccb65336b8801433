package main

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// utsSet returns a set of n rounds of the tree walk at 2 workers, seq at
// seqNs and par.For at forNs.
func utsSet(t *testing.T, n int, seqNs, forNs float64) *Set {
	t.Helper()
	var in strings.Builder
	for range n {
		fmt.Fprintf(&in, "BenchmarkUTS/peer=seq-2 3 %v ns/op\nBenchmarkUTS/peer=par.For-2 3 %v ns/op\n", seqNs, forNs)
	}
	rs, err := ParseBench(strings.NewReader(in.String()))
	if err != nil {
		t.Fatal(err)
	}
	return NewSet(rs)
}

// The tree walk's goal rows come from phase paired when it ran, else from
// the main suite (raw outputs from before the phase).
func TestTreeGoalPrefersPairedPhase(t *testing.T) {
	main, paired := utsSet(t, 3, 150e6, 100e6), utsSet(t, 10, 150e6, 80e6)
	row := func(trees *Set) GoalRow {
		for _, r := range evalRows(trees, NewSet(nil), NewSet(nil), NewSet(nil)) {
			if strings.Contains(r.Goal, "`par.For` against seq") && !strings.Contains(r.Goal, "heap-allocated") {
				return r
			}
		}
		t.Fatal("no tree walk goal row")
		return GoalRow{}
	}
	if r := row(pairedOr(paired, main, "UTS/peer=seq")); r.Samples != 10 || r.Verdict != "pass" || r.Measured != "1.88× faster" {
		t.Errorf("with phase paired: %+v, want 10 samples, 1.88× faster, pass", r)
	}
	if r := row(pairedOr(NewSet(nil), main, "UTS/peer=seq")); r.Samples != 3 || r.Verdict != "**FAIL**" {
		t.Errorf("without phase paired: %+v, want the main suite's 3 samples, FAIL", r)
	}
}

// The full run on two or more CPUs has phase paired, with the tree walks
// and Filter+Map+Reduce at 2 workers, in as many rounds as the goals; the
// report reads it.
func TestPairedPhase(t *testing.T) {
	ps := phases(false, []int{1, 2}, 3, 10, 3, "50ms", "50ms")
	i := slices.IndexFunc(ps, func(p Phase) bool { return p.Name == "paired" })
	if i < 0 {
		t.Fatal("no phase paired")
	}
	p := ps[i]
	if !slices.Equal(p.Benches, []string{"UTS", "UTSAlloc", "IterSlice", "LongFirstItem", "CallersSweep"}) || !slices.Equal(p.CPU, []int{2}) || p.Rounds != 10 || p.Benchtime != "3x" {
		t.Errorf("phase paired: %+v", p)
	}
	if !slices.Contains(phaseNames, "paired") {
		t.Error("the report does not read phase paired")
	}
	if slices.ContainsFunc(phases(false, []int{1}, 3, 10, 3, "50ms", "50ms"), func(p Phase) bool { return p.Name == "paired" }) {
		t.Error("phase paired on one CPU")
	}
}
