package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Catches: the A/B and experiment tables of the lent machine's run pairing
// a version with the wrong baseline (another GOMAXPROCS, or the first
// label of the file instead of the first of its P), or losing a label.
func TestScalingSectionsPairByP(t *testing.T) {
	dir := t.TempDir()
	line := func(name string, p, ns int) string {
		suffix := ""
		if p > 1 {
			suffix = "-" + strconv.Itoa(p)
		}
		return "Benchmark" + name + suffix + " \t 5 \t " + strconv.Itoa(ns) + " ns/op\n"
	}
	ab := "=== old P=16 round 1\n" + line("Mandelbrot/peer=par.For", 16, 100) +
		"=== new P=16 round 1\n" + line("Mandelbrot/peer=par.For", 16, 90) +
		"=== old P=8 round 1\n" + line("Mandelbrot/peer=par.For", 8, 200) +
		"=== new P=8 round 1\n" + line("Mandelbrot/peer=par.For", 8, 220)
	if err := os.WriteFile(filepath.Join(dir, "ab.txt"), []byte(ab), 0o644); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	writeScalingSections(&b, dir, "ab.txt", "", "A/B")
	out := b.String()
	for _, want := range []string{"| benchmark | old P=16 | new P=16 | old P=8 | new P=8 |", "(0.90×)", "(1.10×)", "ratio to the first column of the same P"} {
		if !strings.Contains(out, want) {
			t.Errorf("A/B table lacks %q:\n%s", want, out)
		}
	}
	exp := "=== experiment default round 1\n" + line("Skewed/peer=par.For", 16, 100) +
		"=== experiment spinners=all round 1\n" + line("Skewed/peer=par.For", 16, 120)
	if err := os.WriteFile(filepath.Join(dir, "exp.txt"), []byte(exp), 0o644); err != nil {
		t.Fatal(err)
	}
	b.Reset()
	writeScalingSections(&b, dir, "exp.txt", "experiment", "Policies")
	if out := b.String(); !strings.Contains(out, "| default | spinners=all |") || !strings.Contains(out, "(1.20×)") {
		t.Errorf("experiment table:\n%s", out)
	}
}

// Catches: the section's noise statement not measured from the run (a fixed
// figure), or computed across GOMAXPROCS instead of within one.
func TestSeqSpreadIsMeasuredWithinEachP(t *testing.T) {
	text := "BenchmarkUniform/peer=seq-16 5 100 ns/op\nBenchmarkUniform/peer=seq-16 5 150 ns/op\n" +
		"BenchmarkUniform/peer=seq-8 5 1000 ns/op\nBenchmarkUniform/peer=seq-8 5 1100 ns/op\n"
	rs, err := ParseBench(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	got := seqSpread(NewSet(rs))
	if !strings.Contains(got, "differed by 30% (median") || !strings.Contains(got, "up to 50%") {
		t.Errorf("seqSpread = %q, want a median of 30%% (10%% and 50%%) and a largest of 50%%", got)
	}
}
