package main

import (
	"fmt"
	"strings"
	"testing"
)

func TestWriteWeighted(t *testing.T) {
	var in strings.Builder
	for round := range 3 {
		for _, p := range []int{1, 2} {
			sfx := ""
			if p > 1 {
				sfx = fmt.Sprintf("-%d", p)
			}
			for impl, ns := range map[string]float64{"seq": 100, "static": 80, "static-weighted": 55, "par.For": 52, "par.For+Weighted": 50, "par.For+Weighted-wrong": 60} {
				fmt.Fprintf(&in, "BenchmarkWeighted/work=skewed/impl=%s%s 1 %v ns/op 1 allocs/op\n", impl, sfx, ns/float64(p)+float64(round))
			}
			for impl, ns := range map[string]float64{"seq": 100, "par.Fold": 50, "par.ReduceRange": 150} {
				fmt.Fprintf(&in, "BenchmarkFoldDocs/impl=%s%s 1 %v ns/op %d maps/op\n", impl, sfx, ns, p)
			}
			for _, impl := range []string{"seq-func", "par.For", "par.For+Track", "par.For+tracing", "seq", "par.ForRange"} {
				fmt.Fprintf(&in, "BenchmarkTraceOff/work=tiny/impl=%s%s 1 %v ns/op\n", impl, sfx, 1000+len(impl))
			}
		}
	}
	rs, err := ParseBench(strings.NewReader(in.String()))
	if err != nil {
		t.Fatal(err)
	}
	s := NewSet(rs)
	var b strings.Builder
	writeWeighted(&b, s, s, "")
	out := b.String()
	for _, want := range []string{
		"| skewed items: `par.For+Weighted` against `static` (equal chunks by count) | 2 | faster | 1.58× faster |",
		"| word counts: maps made per call by `par.Fold` (one per worker, the caller included) | 2 | ≤ 2 | 2 (largest 2) |",
		"| word counts over skewed documents: `par.Fold` against `par.ReduceRange` (a map per piece) | 2 | faster | 3.00× faster |",
		"| tiny | `par.For` | 2 | 1.01 µs |",
		"### Weighted partitioning: skewed\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
}
