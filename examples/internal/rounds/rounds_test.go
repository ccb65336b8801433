package rounds

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
)

// Catches: a list parsed wrongly (unknown names accepted, duplicates kept,
// "all" not expanded).
func TestNames(t *testing.T) {
	all := []string{"a", "b", "c"}
	for list, want := range map[string][]string{"all": all, "b": {"b"}, "c,a,c": {"c", "a"}} {
		if got, err := Names(list, all); err != nil || !slices.Equal(got, want) {
			t.Errorf("Names(%q) = %q, %v; want %q", list, got, err, want)
		}
	}
	for _, list := range []string{"", "d", "a,,b", "all,a"} {
		if _, err := Names(list, all); err == nil {
			t.Errorf("Names(%q) accepted it", list)
		}
	}
}

// Catches: rounds that always start with the same strategy, miss one, or
// go on after an error.
func TestRunAlternates(t *testing.T) {
	var order []int
	times, err := Run(3, 3, func(i int) error { order = append(order, i); return nil })
	if err != nil || !slices.Equal(order, []int{0, 1, 2, 1, 2, 0, 2, 0, 1}) {
		t.Fatalf("order %v, err %v", order, err)
	}
	for i, ts := range times {
		if len(ts) != 3 {
			t.Errorf("strategy %d has %d times, want 3", i, len(ts))
		}
	}
	calls := 0
	boom := errors.New("boom")
	if _, err := Run(2, 5, func(i int) error { calls++; return boom }); err != boom || calls != 1 {
		t.Errorf("Run after an error: err %v, %d calls", err, calls)
	}
}

// Catches: medians of even counts, speedups inverted or not paired by
// round.
func TestPrint(t *testing.T) {
	ms := time.Millisecond
	var b bytes.Buffer
	Print(&b, []string{"par", "seq"}, [][]time.Duration{{10 * ms, 20 * ms, 40 * ms}, {20 * ms, 60 * ms, 40 * ms}}, "seq")
	want := "par   20ms  (10ms-40ms)  2.00x seq\nseq   40ms  (20ms-60ms)\n"
	if got := strings.Join(strings.Fields(b.String()), " "); got != strings.Join(strings.Fields(want), " ") {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
	if m := Median([]float64{4, 1, 3, 2}); m != 2.5 {
		t.Errorf("Median of 1..4 = %v, want 2.5", m)
	}
}
