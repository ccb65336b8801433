// Command stream runs a parallel pipeline over a stream of text records
// generated on the fly (50 million lines by default, about 1.5 GB of text,
// more than collecting them first would comfortably allow), parses and
// filters them, and folds them into summary statistics, showing that the
// pipeline's memory stays constant: it prints the peak heap it sampled.
//
//	go run ./examples/stream -n 50000000
//
// The source is an iter.Seq pulled by one producer in batches; at most
// iter.Window batches are alive at once, so the heap does not grow with -n.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/parloop/parloop/iter"
)

func main() {
	n := flag.Int("n", 50_000_000, "number of lines to generate")
	flag.Parse()
	if err := run(*n, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "stream:", err)
		os.Exit(1)
	}
}

// lines yields n records "id sensor reading", made up as they are asked for.
func lines(n int) iter.Seq[string] {
	return func(yield func(string) bool) {
		for i := range n {
			if !yield(fmt.Sprintf("%d s%d %d", i, i%13, reading(i))) {
				return
			}
		}
	}
}

// reading is a made-up sensor reading in [-500, 500) for record i.
func reading(i int) int {
	x := uint64(i)*0x9e3779b97f4a7c15 + 1
	x ^= x >> 29
	return int(x%1000) - 500
}

type record struct {
	sensor string
	value  int
}

// parse splits a record line.
func parse(line string) record {
	f := strings.Fields(line)
	v, _ := strconv.Atoi(f[2])
	return record{f[1], v}
}

// stats summarises the positive readings.
type stats struct {
	count     int
	sum       int
	perSensor map[string]int
}

func newStats() stats { return stats{perSensor: map[string]int{}} }

func add(s *stats, r record) {
	s.count++
	s.sum += r.value
	s.perSensor[r.sensor]++
}

func merge(a, b stats) stats {
	a.count += b.count
	a.sum += b.sum
	for k, v := range b.perSensor {
		a.perSensor[k] += v
	}
	return a
}

// summarise runs the pipeline over n generated lines.
func summarise(n int) (stats, error) {
	records := iter.Map(iter.From(lines(n)), parse).Filter(func(r record) bool { return r.value > 0 })
	return iter.Fold(records, newStats, add, merge)
}

// peakHeap samples the live heap every millisecond until stop is called,
// and then returns the largest sample.
func peakHeap() (stop func() uint64) {
	var peak atomic.Uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(s)
			peak.Store(max(peak.Load(), s[0].Value.Uint64()))
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() uint64 {
		close(done)
		wg.Wait()
		return peak.Load()
	}
}

func run(n int, w io.Writer) error {
	stop := peakHeap()
	start := time.Now()
	s, err := summarise(n)
	elapsed := time.Since(start)
	peak := stop()
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "%d lines, %d positive readings, sum %d, sensor s0: %d\n", n, s.count, s.sum, s.perSensor["s0"])
	fmt.Fprintf(w, "peak live heap %.1f MiB in %v (the lines alone, collected, would take over %.0f MiB)\n",
		float64(peak)/(1<<20), elapsed.Round(time.Millisecond), float64(n)*(16+20)/(1<<20))
	return nil
}
