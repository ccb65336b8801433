package par_test

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/parloop/parloop/par"
	"golang.org/x/exp/stats"
)

// Stats' derived figures come from golang.org/x/exp/stats, the reference
// the balance metrics are defined by everywhere (examples/tfidf,
// cmd/parloop-trace); this test recomputes them from the per-participant
// busy times Stats reports.
//
// Catches: a median taken as the upper middle value for an even count of
// participants (or the callers left out of it), a mean over the wrong
// count, and a utilization that does not count the callers as one more
// participant.
func TestStatsDerivedMatchXExpStats(t *testing.T) {
	t.Parallel()
	for _, w := range []int{2, 3, 4} {
		p := newPool(t, par.Workers(w))
		for r := range 3 {
			noHang(t, "For", func() { par.For(3000, func(i int) { spin(2000 + 40*(i%97)) }, par.On(p)) })
			s := p.Stats()
			var busy []float64
			for _, ws := range s.Workers {
				busy = append(busy, float64(ws.Busy))
			}
			if s.Callers.Busy > 0 {
				busy = append(busy, float64(s.Callers.Busy))
			}
			what := fmt.Sprintf("Workers(%d) round %d, busy %v", w, r, busy)
			var sum float64
			for _, b := range busy {
				sum += b
			}
			if sum == 0 {
				t.Fatalf("%s: no busy time after a loop", what)
			}
			most := slices.Max(busy)
			want := map[string][2]float64{
				"Imbalance":   {s.Imbalance, most / stats.Mean(busy)},
				"Straggler":   {s.Straggler, most / stats.Median(busy)},
				"Utilization": {s.Utilization, sum / (float64(len(busy)) * float64(s.Wall))},
			}
			for name, v := range want {
				if math.Abs(v[0]-v[1]) > 1e-9*math.Max(1, math.Abs(v[1])) {
					t.Errorf("%s: %s = %v; x/exp/stats gives %v", what, name, v[0], v[1])
				}
			}
		}
	}
}

// Catches: a String that drops a worker, the callers or a derived figure,
// or renders a figure other than the snapshot's.
func TestStatsString(t *testing.T) {
	s := par.Stats{
		Workers: []par.WorkerStats{
			{Pieces: 12, Steals: 3, FailedSteals: 40, Splits: 5, Busy: 1500 * time.Microsecond, Idle: 2 * time.Millisecond},
			{Pieces: 7, Steals: 1, Splits: 2, Busy: 900 * time.Microsecond},
		},
		Callers:     par.WorkerStats{Pieces: 4, Busy: 3 * time.Millisecond},
		Imbalance:   1.5,
		Straggler:   2,
		Utilization: 0.61,
		StealRate:   0.174,
		Wall:        3 * time.Millisecond,
	}
	out := s.String()
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 5 {
		t.Fatalf("%d lines; want a summary, a header, two workers and the callers:\n%s", len(lines), out)
	}
	for _, want := range []string{"over 3ms", "imbalance 1.50", "straggler 2.00", "utilization 61%", "steal rate 0.174"} {
		if !strings.Contains(lines[0], want) {
			t.Errorf("summary %q lacks %q", lines[0], want)
		}
	}
	for i, want := range [][]string{
		{"worker 0", "12", "3", "40", "5", "1.5ms", "2ms"},
		{"worker 1", "7", "1", "0", "2", "900µs", "0s"},
		{"callers", "4", "0", "0", "0", "3ms", "0s"},
	} {
		if got := strings.Join(strings.Fields(lines[2+i]), " "); got != strings.Join(want, " ") {
			t.Errorf("row %d = %q; want the fields %q", i, lines[2+i], want)
		}
	}
}

// Catches: a Total that leaves out the callers, a worker or a counter.
func TestStatsTotal(t *testing.T) {
	s := par.Stats{
		Workers: []par.WorkerStats{
			{Pieces: 12, Steals: 3, FailedSteals: 40, Splits: 5, Busy: 1500 * time.Microsecond, Idle: 2 * time.Millisecond},
			{Pieces: 7, Steals: 1, Splits: 2, Busy: 900 * time.Microsecond},
		},
		Callers: par.WorkerStats{Pieces: 4, Steals: 2, FailedSteals: 1, Splits: 1, Busy: 3 * time.Millisecond, Idle: time.Microsecond},
	}
	want := par.WorkerStats{Pieces: 23, Steals: 6, FailedSteals: 41, Splits: 8, Busy: 5400 * time.Microsecond, Idle: 2001 * time.Microsecond}
	if got := s.Total(); got != want {
		t.Errorf("Total() = %+v; want %+v", got, want)
	}
}

// BenchmarkStatsBusyOverWall reports, over loops on a 3-worker pool, the
// largest busy time of a worker over the wall time since the reset, and
// the largest utilization: busy time is counted in cycle-counter ticks and
// Wall in nanoseconds, so each should read at most 1 but for the ticks'
// calibration.
func BenchmarkStatsBusyOverWall(b *testing.B) {
	p := newPool(b, par.Workers(3))
	var most, util float64
	for range b.N {
		p.ResetStats()
		par.For(2000, func(int) { spin(10000) }, par.On(p))
		s := p.Stats()
		for _, w := range s.Workers {
			most = max(most, float64(w.Busy)/float64(s.Wall))
		}
		util = max(util, s.Utilization)
	}
	b.ReportMetric(most, "max-busy/wall")
	b.ReportMetric(util, "max-utilization")
}

// A worker adds its busy time and pieces in stretches, when it runs out of
// work (and every 64 pieces), not after each task: once a loop is over and
// the workers idle, what they ran must show.
//
// Catches: a stretch never published when a worker goes idle (its time and
// pieces lost, or held until some later call).
func TestWorkerBusyPublishedWhenIdle(t *testing.T) {
	t.Parallel()
	p := newPool(t, par.Workers(2))
	var onWorker atomic.Int64
	noHang(t, "Scope", func() {
		caller := goid()
		par.Scope(func(s *par.Spawner) {
			for range 200 {
				s.Go(func() {
					spin(20000)
					if goid() != caller {
						onWorker.Add(1)
					}
				})
			}
		}, par.On(p))
	})
	if onWorker.Load() == 0 {
		t.Skip("no task ran on a worker")
	}
	deadline := time.Now().Add(hangLimit)
	for {
		st := p.Stats()
		var busy time.Duration
		var pieces int64
		for _, w := range st.Workers {
			busy += w.Busy
			pieces += w.Pieces
		}
		if busy > 0 && pieces >= onWorker.Load() {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("workers ran %d tasks; Stats shows Busy %v and %d pieces %v after the call", onWorker.Load(), busy, pieces, hangLimit)
		}
		time.Sleep(time.Millisecond)
	}
}

// ResetStats restarts every worker's clocks: a worker parked since before
// the reset, woken after it, counts its idle time from the reset, so no
// worker shows more Busy or Idle time than the Wall since.
//
// Catches: a park (or busy stretch) under way at the reset counted whole.
func TestResetStatsCutsParksUnderWay(t *testing.T) {
	t.Parallel()
	p := newPool(t, par.Workers(2))
	par.For(64, func(int) { spin(2000) }, par.On(p)) // the workers have started
	time.Sleep(200 * time.Millisecond)               // and parked
	p.ResetStats()
	for range 20 { // wake them: their parks end
		par.For(64, func(int) { spin(2000) }, par.On(p))
	}
	time.Sleep(10 * time.Millisecond) // and park again, publishing their busy time
	st := p.Stats()
	for i, w := range st.Workers {
		if w.Idle > st.Wall || w.Busy > st.Wall {
			t.Errorf("worker %d: Idle %v, Busy %v, more than the %v since ResetStats", i, w.Idle, w.Busy, st.Wall)
		}
	}
}
