package main

import (
	"math"
	"strings"
)

// Workload describes one workload of the main suite.
type Workload struct {
	Top, Title, Desc string
}

var workloadList = []Workload{
	{"Tiny", "tiny", "n = 1,000, `a[i] = 2*i`: per-call overhead"},
	{"Uniform", "uniform", "n = 10M, `a[i] = math.Sqrt(float64(i))` (no goroutine-per-item peer: 10M goroutines per call)"},
	{"Mandelbrot", "irregular (mandelbrot)", "1024×1024 over [-2.5, 1.5]×[-2, 2], at most 2,000 iterations, parallel over rows"},
	{"Skewed", "skewed", "10,000 items with Pareto(α = 1.2) costs; the largest item is about 3% of the total"},
	{"Fib30", "fib(30), fork at every call", "1,346,268 forks; conc's per-fork pool is left out (about 10 s per call)"},
	{"Fib35", "fib(35), fork above a cutoff", "forks only for n > 15: 17,710 forks"},
	{"Quicksort", "quicksort", "5M random ints, a fork at each partition longer than 32"},
	{"Reduce", "reduce", "sum of 10M float64 in [0, 1); chunked peers add 8·P partial sums in order"},
	{"Nested", "nested (matmul)", "512×512 matrix multiply, parallel over rows and within each row"},
	{"ManyCallers", "many callers", "64 goroutines each running a 10,000-iteration sqrt loop at once; `seq` runs each caller's loop serially"},
	{"TreeWalk", "unbalanced tree walk", "critical binomial tree (UTS-like), ~1.3M nodes, depth ~1,400, a fork at every node's children"},
	{"UTS", "unbalanced tree, nested loops", "geometric tree (UTS-like): 0 or 2 to 2,000 children per node, heavy-tailed, 343,524 nodes of ~0.5 µs, depth 74; " +
		"a parallel loop (`par.For`, `par.ReduceRange`) or fork (`par.BothOf`) over every node's children, nested as deep as the tree; " +
		"`wg-cutoff` starts a goroutine per child above depth 3. Goal: nested For and ReduceRange ≥ 1.8× seq at 2 workers"},
	{"UTSAlloc", "unbalanced tree, a struct per node", "the same tree and walks, allocating a small node struct on the heap at every node"},
}

// Row is one peer of one workload at one GOMAXPROCS.
type Row struct {
	Peer     string
	Name     string // full benchmark name
	Parloop  bool
	Serial   bool // seq or seq-func
	T        float64
	Speedup  float64 // seq's time / T, seq measured in the same run at the same GOMAXPROCS
	VsBest   float64 // T / the best non-parloop parallel peer's time
	Allocs   float64
	Bytes    float64
	CPU      float64
	Samples  int
	Spread   float64 // (max-min)/median of ns/op
	HasStats bool
}

func isParloop(peer string) bool { return strings.HasPrefix(peer, "par.") }
func isSerial(peer string) bool  { return peer == "seq" || peer == "seq-func" }

// rows computes the table of a workload at procs.
func rows(s *Set, top string, procs int) []Row {
	seqT, _ := s.Median(top+"/peer=seq", procs, "ns/op")
	var rs []Row
	best := math.NaN()
	for _, name := range s.Names(top + "/") {
		if !s.Has(name, procs) {
			continue
		}
		peer := nameKey(name, "peer")
		t, _ := s.Median(name, procs, "ns/op")
		r := Row{Peer: peer, Name: name, Parloop: isParloop(peer), Serial: isSerial(peer), T: t, Speedup: seqT / t,
			Samples: s.Count(name, procs)}
		r.Allocs, _ = s.Median(name, procs, "allocs/op")
		r.Bytes, _ = s.Median(name, procs, "B/op")
		r.CPU, _ = s.Median(name, procs, "cpu-ns/op")
		_, r.HasStats = s.Median(name, procs, "imbalance")
		if v := s.Values(name, procs, "ns/op"); len(v) > 1 {
			lo, hi := v[0], v[0]
			for _, x := range v {
				lo, hi = math.Min(lo, x), math.Max(hi, x)
			}
			r.Spread = (hi - lo) / t
		}
		if !r.Parloop && !r.Serial && (math.IsNaN(best) || t < best) {
			best = t
		}
		rs = append(rs, r)
	}
	for i := range rs {
		rs[i].VsBest = rs[i].T / best
	}
	return rs
}

// bestOf returns the fastest row that keep accepts.
func bestOf(rs []Row, keep func(Row) bool) (Row, bool) {
	var b Row
	found := false
	for _, r := range rs {
		if keep(r) && (!found || r.T < b.T) {
			b, found = r, true
		}
	}
	return b, found
}

func peerRow(r Row) bool    { return !r.Parloop && !r.Serial }
func parloopRow(r Row) bool { return r.Parloop }
