package main

import (
	"bytes"
	"flag"
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

// long selects the long run of TestMemoryIsConstant: a million lines
// against 100,000, instead of 300,000 against 30,000.
var long = flag.Bool("long", false, "stream a million lines in TestMemoryIsConstant")

// Catches: memory that grows with the stream (batches piling up between
// the producer and the runners, or results kept): ten times the lines must
// not take much more heap. A line collected holds at least 36 bytes, so
// keeping the extra lines would add at least 36·0.9·n bytes; the bound is
// half of that.
func TestMemoryIsConstant(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 300,000 lines")
	}
	n := 300_000
	if *long {
		n = 1_000_000
	}
	peak := func(n int) uint64 {
		stop := peakHeap()
		if _, err := summarise(n); err != nil {
			t.Fatal(err)
		}
		return stop()
	}
	small, large := peak(n/10), peak(n)
	if bound := uint64(36 * 9 * n / 20); large > small+bound {
		t.Fatalf("peak heap %d KiB for %d lines vs %d KiB for %d: grows with the stream", large>>10, n, small>>10, n/10)
	}
	t.Logf("peak heap: %d KiB for %d lines, %d KiB for %d", small>>10, n/10, large>>10, n)
}
