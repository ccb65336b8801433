package topology

import (
	"slices"
	"testing"
)

// checkVictimOrders checks what every policy promises of each worker's
// victims: itself left out, every other worker exactly once, and levels
// whose end offsets increase up to the list's end (a lone worker has no
// victims, and the random policy's one level is then empty).
func checkVictimOrders(t *testing.T, name string, victims [][]int32, levels [][]int, n int) {
	t.Helper()
	if len(victims) != n || len(levels) != n {
		t.Fatalf("%s: %d victim lists and %d level lists for %d workers", name, len(victims), len(levels), n)
	}
	for i := range n {
		seen := make([]int, n)
		for _, v := range victims[i] {
			if v < 0 || int(v) >= n {
				t.Fatalf("%s: worker %d: victim %d out of range", name, i, v)
			}
			seen[v]++
		}
		for j, k := range seen {
			if j == i && k != 0 {
				t.Errorf("%s: worker %d steals from itself", name, i)
			}
			if j != i && k != 1 {
				t.Errorf("%s: worker %d lists worker %d %d times, want once", name, i, j, k)
			}
		}
		if n == 1 {
			continue
		}
		prev := 0
		for _, end := range levels[i] {
			if end <= prev || end > len(victims[i]) {
				t.Errorf("%s: worker %d: level ends %v do not increase within %d victims", name, i, levels[i], len(victims[i]))
				break
			}
			prev = end
		}
		if prev != len(victims[i]) {
			t.Errorf("%s: worker %d: levels %v end at %d, not at its %d victims", name, i, levels[i], prev, len(victims[i]))
		}
	}
}

// Catches: a victim list that holds its own worker, misses or repeats one,
// or levels that do not cut it in order; a random policy with more than
// one level, or a nearest one that departs from VictimOrder.
func TestVictimOrders(t *testing.T) {
	tops := map[string]*Topology{"flat8": Flat(8), "64amd64": captureTopology(t, "64amd64-4s2n4ca2co")}
	for name, top := range tops {
		for _, n := range []int{1, 2, 5, 8, len(top.CPUs())} {
			cpus := top.Placement(n)
			v, l := top.VictimOrders(cpus, VictimsRandom)
			checkVictimOrders(t, name+" random", v, l, n)
			for i := range n {
				if n > 1 && len(l[i]) != 1 {
					t.Errorf("%s random, %d workers: worker %d has levels %v, want one", name, n, i, l[i])
				}
			}
			v, l = top.VictimOrders(cpus, VictimsNearest)
			checkVictimOrders(t, name+" nearest", v, l, n)
			for i := range n {
				start := 0
				for k, lvl := range top.VictimOrder(cpus, i) {
					got := make([]int, 0, len(lvl))
					for _, id := range v[i][start:l[i][k]] {
						got = append(got, int(id))
					}
					if !slices.Equal(got, lvl) {
						t.Errorf("%s nearest, %d workers: worker %d level %d = %v, VictimOrder says %v", name, n, i, k, got, lvl)
					}
					start = l[i][k]
				}
			}
		}
	}
}

// Catches: nearest-first lost on a real machine. On the 64-thread capture
// (AMD Opteron 6276: 4 packages of 2 NUMA nodes, each an L3 over 4
// compute units of 2 cores sharing an L2), worker 0 on CPU 0 steals first
// from its compute-unit sibling, then the rest of its L3, then the other
// node of its package, then the remote nodes by distance.
func TestVictimOrdersNearestFirst(t *testing.T) {
	top := captureTopology(t, "64amd64-4s2n4ca2co")
	cpus := top.Placement(64)
	v, l := top.VictimOrders(cpus, VictimsNearest)
	var got []string
	start := 0
	for _, end := range l[0] {
		var c []int
		for _, id := range v[0][start:end] {
			c = append(c, cpus[id])
		}
		got = append(got, FormatCPUList(c))
		start = end
	}
	want := []string{"1", "2-7", "8-15", "16-23,32-39,48-55", "24-31,40-47,56-63"}
	if !slices.Equal(got, want) {
		t.Errorf("worker 0's victims by level:\n got  %v\n want %v", got, want)
	}
}
