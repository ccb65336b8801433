package bench

// The iter rows over the examples' workloads: BenchmarkIterPgrep
// (examples/pgrep's) and BenchmarkIterStream (examples/stream's); the
// other iter rows are in iter_test.go.

import (
	"bytes"
	"context"
	"fmt"
	"hash/fnv"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/metrics"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/parloop/parloop/iter"
	"github.com/parloop/parloop/par"
)

// grepFiles yields the regular files under dir in lexical order (the walk
// of examples/pgrep).
func grepFiles(dir string) iter.Seq[string] {
	return func(yield func(string) bool) {
		filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err == nil && d.Type().IsRegular() && !yield(path) {
				return filepath.SkipAll
			}
			return nil
		})
	}
}

// grepBufs holds the buffers grepFile reads files into (examples/pgrep's
// buffers): a file's contents are dropped once searched, so a buffer serves
// many files.
var grepBufs = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// grepFile returns the lines of the file at path that re matches, as
// "path:n:line\n", and nothing for a file with a NUL byte (examples/pgrep's
// search).
func grepFile(re *regexp.Regexp, path string) []byte {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	buf := grepBufs.Get().(*bytes.Buffer)
	defer grepBufs.Put(buf)
	buf.Reset()
	_, err = buf.ReadFrom(f)
	f.Close()
	data := buf.Bytes()
	if err != nil || bytes.IndexByte(data, 0) >= 0 {
		return nil
	}
	var out []byte
	for n := 1; len(data) > 0; n++ {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		if re.Match(line) {
			out = append(out, path...)
			out = append(out, ':')
			out = strconv.AppendInt(out, int64(n), 10)
			out = append(out, ':')
			out = append(out, line...)
			out = append(out, '\n')
		}
	}
	return out
}

// BenchmarkIterPgrep is examples/pgrep's workload: grep -rn of
// `func [A-Z]\w*Seq` over $(go env GOROOT)/src, or $PARLOOP_PGREP_DIR if
// set (its first 2,000 files under -short), the walk sequential, the files read and searched by an
// ordered iter pipeline (impl=iter) or by the loop (impl=seq), the output
// hashed in the walk's order and checked against the loop's, with the
// stage given Blocking as in examples/pgrep (impl=iter+Blocking) and
// without (impl=iter, the stage on the pool's worker threads). The page cache is
// warm after the first run (one untimed run before each impl). Target at 2
// workers: iter+Blocking at least 1.8× faster than seq.
func BenchmarkIterPgrep(b *testing.B) {
	dir := os.Getenv("PARLOOP_PGREP_DIR") // another tree, for a machine without Go
	if dir == "" {
		goroot, err := exec.Command("go", "env", "GOROOT").Output()
		if err != nil {
			b.Skip("go env GOROOT:", err)
		}
		dir = filepath.Join(strings.TrimSpace(string(goroot)), "src")
	}
	if _, err := os.Stat(dir); err != nil {
		b.Skip("no GOROOT/src:", err)
	}
	re := regexp.MustCompile(`func [A-Z]\w*Seq`)
	files := grepFiles(dir)
	if testing.Short() {
		all := slices.Collect(files)
		files = slices.Values(all[:min(len(all), 2000)])
	}
	impls := []struct {
		name string
		run  func() uint64
	}{
		{"seq", func() uint64 {
			h := fnv.New64a()
			for path := range files {
				h.Write(grepFile(re, path))
			}
			return h.Sum64()
		}},
		{"iter", func() uint64 {
			h := fnv.New64a()
			for out, err := range iter.Map(iter.From(files), func(path string) []byte { return grepFile(re, path) }).All() {
				if err != nil {
					panic(err)
				}
				h.Write(out)
			}
			return h.Sum64()
		}},
		// The stage reads files: given Blocking, as the package documents for
		// a stage that does I/O, the pipeline runs on goroutines of its own.
		{"iter+Blocking", func() uint64 {
			h := fnv.New64a()
			limit := iter.Blocking(2 * runtime.GOMAXPROCS(0))
			for out, err := range iter.Map(iter.From(files), func(path string) []byte { return grepFile(re, path) }, limit).All() {
				if err != nil {
					panic(err)
				}
				h.Write(out)
			}
			return h.Sum64()
		}},
	}
	want := impls[0].run() // warms the page cache
	for _, impl := range impls {
		b.Run("impl="+impl.name, func(b *testing.B) {
			impl.run()
			m := start(b, poolFor(impl.name != "seq"))
			for range b.N {
				if got := impl.run(); got != want {
					b.Fatalf("%s: output differs from the sequential run's", impl.name)
				}
			}
			m.stop()
		})
	}
}

// streamRecord is a parsed line of examples/stream.
type streamRecord struct {
	sensor string
	value  int
}

type streamStats struct {
	count, sum int
	perSensor  map[string]int
}

// streamLines yields n lines "id sensor reading", made as they are asked
// for (examples/stream's source).
func streamLines(n int) iter.Seq[string] {
	return func(yield func(string) bool) {
		for i := range n {
			x := uint64(i)*0x9e3779b97f4a7c15 + 1
			x ^= x >> 29
			if !yield(fmt.Sprintf("%d s%d %d", i, i%13, int(x%1000)-500)) {
				return
			}
		}
	}
}

// peakHeapSampler samples the live heap every millisecond until the
// returned function is called, which returns the largest sample.
func peakHeapSampler() func() uint64 {
	var peak atomic.Uint64
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() {
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(s)
			peak.Store(max(peak.Load(), s[0].Value.Uint64()))
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	})
	return func() uint64 {
		cancel()
		wg.Wait()
		return peak.Load()
	}
}

// BenchmarkIterStream is examples/stream's pipeline, From over generated
// lines, Map(parse), Filter(positive), Fold into counts per sensor, over
// n = 5M and 50M lines (200k and 2M under -short), with the peak live heap
// sampled every millisecond (runtime/metrics) as peak-MB. Target at 2
// workers: peak heap under 64 MB, and about the same at both lengths.
func BenchmarkIterStream(b *testing.B) {
	for _, n := range []int{shortOr(5_000_000, 200_000), shortOr(50_000_000, 2_000_000)} {
		b.Run(fmt.Sprintf("n=%d/impl=iter", n), func(b *testing.B) {
			runtime.GC()
			m := start(b, par.Default())
			peak := uint64(0)
			for range b.N {
				stop := peakHeapSampler()
				recs := iter.Map(iter.From(streamLines(n)), func(line string) streamRecord {
					f := strings.Fields(line)
					v, _ := strconv.Atoi(f[2])
					return streamRecord{f[1], v}
				}).Filter(func(r streamRecord) bool { return r.value > 0 })
				s, err := iter.Fold(recs, func() streamStats { return streamStats{perSensor: map[string]int{}} },
					func(s *streamStats, r streamRecord) {
						s.count++
						s.sum += r.value
						s.perSensor[r.sensor]++
					},
					func(a, b streamStats) streamStats {
						a.count += b.count
						a.sum += b.sum
						for k, v := range b.perSensor {
							a.perSensor[k] += v
						}
						return a
					})
				peak = max(peak, stop())
				check(b, err)
				if s.count < n/3 || s.count > 2*n/3 || len(s.perSensor) != 13 {
					b.Fatalf("%d positive readings in %d lines, %d sensors", s.count, n, len(s.perSensor))
				}
			}
			m.stop()
			b.ReportMetric(float64(peak)/(1<<20), "peak-MB")
		})
	}
}
