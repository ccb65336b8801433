package main

import (
	"bytes"
	"flag"
	"fmt"
	"strings"
	"testing"
)

// Catches: lost or doubled records, and a wrong merge, against the
// sequential loop, over 100,000 lines (30,000 under the race detector
// without -long).
func TestMatchesSequential(t *testing.T) {
	n := 100_000
	if raceEnabled && !*long {
		n = 30_000
	}
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

// long selects the long runs: TestMemoryIsConstant streams a million lines
// against 100,000, instead of 300,000 against 30,000 (150,000 against
// 15,000 under the race detector), and TestMatchesSequential its 100,000
// lines under the race detector too.
var long = flag.Bool("long", false, "stream a million lines in TestMemoryIsConstant, and full-size runs under the race detector")

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
	switch {
	case *long:
		n = 1_000_000
	case raceEnabled:
		n = 150_000
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
