package par

import (
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/parloop/parloop/internal/capture"
)

// capturesDir holds hwloc's captured machines (see its README.md); tests
// read the tarballs in place, and a missing one fails them.
const capturesDir = "internal/topology/testdata"

func readCapture(t *testing.T, name string) *Machine {
	t.Helper()
	fsys, err := capture.Open(filepath.Join(capturesDir, name+".tar.gz"))
	if err != nil {
		t.Fatalf("capture %s: %v", name, err)
	}
	m, err := readMachine(fsys)
	if err != nil {
		t.Fatalf("ReadMachine(%s): %v", name, err)
	}
	return m
}

// Catches, on the real 64- and 128-thread topologies with simulated CPU
// ids: a pool that pins threads of a simulated machine, places two workers
// on one CPU or outside the machine, puts SMT siblings before every core has
// a worker, steals in an order other than the topology's nearest-first
// levels, or miscounts work with 63 and 127 workers on 2 real cores.
// The 128-thread machine's pool of 127 workers adds most of a second under
// the race detector, so it is left to -long.
func TestPoolOnCapturedTopologies(t *testing.T) {
	for _, c := range []struct {
		name        string
		cores       int    // physical cores (one worker each before any sibling)
		firstVictim string // relation of worker 0's nearest victims
		long        bool   // only under -long
	}{
		{"64amd64-4s2n4ca2co", 64, "l2", false},
		{"128arm-2pa2n8cluster4co", 128, "cluster", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.long && !longRun() {
				t.Skip("under -long")
			}
			m := readCapture(t, c.name)
			n := m.CPUs()
			p := NewPool(func(c *poolConfig) { c.machine = m }, Workers(n), Pinning(true))
			defer p.Close()

			var hits atomic.Int64
			seen := make([]atomic.Int32, 10_000)
			if longRun() {
				seen = make([]atomic.Int32, 100_000)
			}
			For(len(seen), func(i int) { seen[i].Add(1); hits.Add(1) }, On(p))
			for i := range seen {
				if seen[i].Load() != 1 {
					t.Fatalf("index %d ran %d times", i, seen[i].Load())
				}
			}

			if !strings.Contains(p.Placement(), "pinned=false") {
				t.Errorf("a pool on a simulated machine claims pinned threads:\n%s", p.Placement())
			}
			l := p.layout.Load()
			if len(l.workers) != n-1 {
				t.Fatalf("%d worker threads for parallelism %d; want %d", len(l.workers), n, n-1)
			}
			cpus := make([]int, len(l.workers))
			for i, w := range l.workers {
				cpus[i] = w.cpu
			}
			if d := slices.Compact(slices.Sorted(slices.Values(cpus))); len(d) != len(cpus) {
				t.Errorf("workers share CPUs: %v", cpus)
			}
			for _, cpu := range cpus {
				if !slices.Contains(m.t.CPUs(), cpu) {
					t.Errorf("worker placed on CPU %d, which the machine does not have", cpu)
				}
			}
			// One worker per core first: the first min(cores, workers)
			// workers have no SMT sibling among them.
			for i := 0; i < min(c.cores, len(cpus)); i++ {
				for j := 0; j < i; j++ {
					if m.t.Relation(cpus[i], cpus[j]) == "core" {
						t.Errorf("workers %d and %d are SMT siblings (CPUs %d, %d) before every core has a worker", j, i, cpus[j], cpus[i])
					}
				}
			}
			// The pool steals in the topology's order, level by level.
			for i := range cpus {
				want := m.t.VictimOrder(cpus, i)
				start := 0
				for k, end := range l.levels[i] {
					got := make([]int, 0, end-start)
					for _, id := range l.victims[i][start:end] {
						got = append(got, int(id))
					}
					if !slices.Equal(got, want[k]) {
						t.Fatalf("worker %d level %d: victims %v; the topology says %v", i, k, got, want[k])
					}
					start = end
				}
			}
			if rel := m.t.Relation(cpus[0], cpus[l.victims[0][0]]); rel != c.firstVictim {
				t.Errorf("worker 0's nearest victim shares %q with it; want %q", rel, c.firstVictim)
			}
		})
	}
}
