package main

import (
	"fmt"
	"strings"
	"testing"
)

// Catches: a goal of the iter section computed from the wrong rows or
// judged the wrong way, or a table missing.
func TestWriteIter(t *testing.T) {
	var in strings.Builder
	for round := range 3 {
		line := func(name string, p int, metrics string) {
			sfx := ""
			if p > 1 {
				sfx = fmt.Sprintf("-%d", p)
			}
			fmt.Fprintf(&in, "Benchmark%s%s 1 %s\n", name, sfx, metrics)
		}
		for impl, ns := range map[string]float64{"seq": 1000, "iter": 520, "chan-ordered": 600, "rill-OrderedMap": 1500, "conc-stream": 2000} {
			line("IterSeqMap/impl="+impl, 2, fmt.Sprintf("%v ns/op %v ns/item", ns+float64(round), ns/1000))
		}
		for _, p := range []int{1, 2} {
			for impl, ns := range map[string]float64{"seq": 50, "iter": 70} {
				if p == 2 && impl == "iter" {
					ns = 40
				}
				line("IterSeqMapCheap/impl="+impl, p, fmt.Sprintf("%v ns/op %v ns/item", ns*1e6, ns+float64(round)))
			}
			for impl, ns := range map[string]float64{"seq": 100, "par.ReduceRange": 60, "par.Map+Reduce": 200, "iter": 80} {
				line("IterSlice/impl="+impl, p, fmt.Sprintf("%v ns/op", ns))
			}
		}
		line("IterPgrep/impl=seq", 2, "1000 ns/op")
		line("IterPgrep/impl=iter", 2, "800 ns/op")
		line("IterPgrep/impl=iter+Blocking", 2, "600 ns/op")
		if round == 0 {
			line("IterStream/n=5000000/impl=iter", 2, "100 ns/op 4.2 peak-MB")
			line("IterStream/n=50000000/impl=iter", 2, "1000 ns/op 80 peak-MB")
		}
	}
	rs, err := ParseBench(strings.NewReader(in.String()))
	if err != nil {
		t.Fatal(err)
	}
	s := NewSet(rs)
	var b strings.Builder
	writeIter(&b, s, s, s, s, false, "")
	out := b.String()
	for _, want := range []string{
		"| ordered Map over an `iter.Seq` of 1M items, 1 µs body: `iter` against `seq` | 2 | ≥ 1.80× faster | 1.92× faster |",
		"| ordered Map, 1 µs body: `iter` against `rill-OrderedMap` | 2 | ≥ 3× faster | 2.88× faster | 2.88× – 2.88× | 3 | **FAIL** |",
		"| ordered Map, 1 µs body: `iter` against `conc-stream` | 2 | ≥ 3× faster | 3.84× faster |",
		"| ordered Map over an `iter.Seq`, 50 ns body: cost per item of the sequential-source bridge (`iter` less `seq`) | 1 | ≤ 30 ns | 20.0 ns |",
		"| ordered Map, 50 ns body: `iter` against `seq` | 2 | not slower (≤ 1.03× the time) | 0.80× the time |",
		"| Filter+Map+Reduce over a slice of 10M: `iter` against `par.ReduceRange` (the stages fused in the leaf) | 2 | ≤ 1.10× the time | 1.33× the time | 1.33× – 1.33× | 3 | **FAIL** |",
		"| pgrep over GOROOT/src, warm cache: `iter+Blocking` (examples/pgrep's pipeline) against `seq` | 2 | ≥ 1.80× faster | 1.67× faster |",
		"| pgrep: `iter` (no Blocking: the stage on the pool's worker threads) against `seq` | 2 | – | 1.25× faster |",
		"| streaming 5M generated lines (examples/stream): peak live heap | 2 | < 64 MB | 4.2 MB | – | 1 | pass |",
		"| streaming 50M generated lines (examples/stream): peak live heap | 2 | < 64 MB | 80.0 MB | – | 1 | **FAIL** |",
		"| streaming: peak heap at 50M lines over the peak at 5M (independent of length) | 2 | ≤ 1.50× | 19.05× |",
		"### Ordered Map over an iter.Seq, 1 µs body\n",
		"### pgrep\n",
		"| 50M | 2 | 1 µs | 0 | 80.0 MB |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
	var empty strings.Builder
	writeIter(&empty, NewSet(nil), NewSet(nil), NewSet(nil), NewSet(nil), true, "")
	if empty.Len() != 0 {
		t.Errorf("a section with no numbers:\n%s", empty.String())
	}
}
