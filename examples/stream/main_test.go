package main

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// Catches: lost or doubled records, and a wrong merge, against the
// sequential loop.
func TestMatchesSequential(t *testing.T) {
	const n = 100_000
	want := newStats()
	for line := range lines(n) {
		if r := parse(line); r.value > 0 {
			add(&want, r)
		}
	}
	var out bytes.Buffer
	if err := run(n, &out); err != nil {
		t.Fatal(err)
	}
	first := strings.SplitN(out.String(), "\n", 2)[0]
	wantLine := fmt.Sprintf("%d lines, %d positive readings, sum %d, sensor s0: %d", n, want.count, want.sum, want.perSensor["s0"])
	if first != wantLine {
		t.Fatalf("got  %q\nwant %q", first, wantLine)
	}
	if !strings.Contains(out.String(), "peak live heap") {
		t.Fatalf("no memory report in %q", out.String())
	}
}

// Catches: memory that grows with the stream (batches piling up between
// the producer and the runners, or results kept): ten times the lines must
// not take much more heap.
func TestMemoryIsConstant(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a million lines")
	}
	peak := func(n int) uint64 {
		stop := peakHeap()
		if _, err := summarise(n); err != nil {
			t.Fatal(err)
		}
		return stop()
	}
	small, large := peak(100_000), peak(1_000_000)
	// A million lines collected would hold at least 36 MB.
	if large > small+16<<20 {
		t.Fatalf("peak heap %d MiB for 1M lines vs %d MiB for 100k: grows with the stream", large>>20, small>>20)
	}
	t.Logf("peak heap: %d KiB for 100k lines, %d KiB for 1M", small>>10, large>>10)
}
