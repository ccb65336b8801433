package main

import (
	"strings"
	"testing"
)

// Catches: the many-callers sweep's rows pairing rounds wrongly (the best
// peer taken over all rounds instead of per round), judging against the
// wrong base, or losing a case.
func TestCallersSweepRows(t *testing.T) {
	text := ""
	add := func(c, impl string, ns ...string) {
		for _, v := range ns {
			text += "BenchmarkCallersSweep/" + c + "/impl=" + impl + "-2 3 " + v + " ns/op\n"
		}
	}
	add("callers=64/n=1000", "seq", "100", "200")
	add("callers=64/n=1000", "par.ForRange", "102", "230")
	add("callers=64/n=1000", "static", "150", "200")
	add("callers=64/n=1000", "atomic", "110", "250")
	rs, err := ParseBench(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	rows := evalCallersSweep(NewSet(rs))
	if len(rows) != 2 {
		t.Fatalf("%d rows; want 2 (against seq, against the best peer)", len(rows))
	}
	// Against seq: 1.02 and 1.15, median 1.085: fails. Against the best
	// peer per round: 102/110 and 230/200, median 1.039: fails.
	if !strings.Contains(rows[0].Measured, "1.08") || rows[0].Verdict == "pass" {
		t.Errorf("against seq: %+v; want 1.08x, failing", rows[0])
	}
	if !strings.Contains(rows[1].Goal, "static, atomic") || !strings.Contains(rows[1].Measured, "1.04") {
		t.Errorf("against the best peer: %+v; want 1.04x over static, atomic", rows[1])
	}
}
