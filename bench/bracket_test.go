package bench

import (
	"flag"
	"fmt"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/parloop/parloop/bench/workloads"
	"github.com/parloop/parloop/par"
)

// BenchmarkBracketed measures speedups over the sequential code on a
// machine whose speed changes while it runs: each op runs seq, then each
// row between two runs of seq, and a row's ratio in that op is work × seq /
// row, seq the mean of the two runs around it. A ratio counts only when
// those two runs differ by less than bracketDrift (a change of speed in
// the middle would bias it either way); the metrics are each row's median
// ratio over the ops that counted (<row>-x) and how many did (<row>-kept),
// and each op is logged. work is how many runs of seq a row's run does the
// work of: 2 for a ceiling that runs two sequential runs at once.
//
// Rows: the published trees by the recommended form and the closure form,
// with both ceilings (seq-x2, seq-closures-x2; see BenchmarkPublishedTrees);
// ScopeSpawn's scopes (Scope, ScopeOf) and their bounds without and with
// closures (bound, bound-closures: the loop's halves on two goroutines);
// the crawl's scopes, with two sequential crawls at once as their ceiling. Run with -test.cpu 2
// and -test.benchtime Nx, N the ops; at -test.cpu 1 the trees' rows are the
// two forms alone.
func BenchmarkBracketed(b *testing.B) {
	for _, tc := range publishedTrees {
		b.Run("tree="+tc.name, func(b *testing.B) {
			if testing.Short() {
				b.Skip("a walk takes seconds")
			}
			impls := map[string]treeImpl{}
			for _, im := range treeImpls(tc.cut) {
				impls[im.name] = im
			}
			run := func(name string) func() {
				return checkedWalk(b, tc.name+" "+name, tc.root, tc.nodes, impls[name].count)
			}
			rows := []bracketRow{
				{"seq-x2", 2, run("seq-x2")},
				{"ReduceRangeOf", 1, run("par.ReduceRangeOf")},
				{"seq-closures-x2", 2, run("seq-closures-x2")},
				{"ReduceRange", 1, run("par.ReduceRange")},
			}
			if runtime.GOMAXPROCS(0) == 1 { // no ceilings to measure
				rows = []bracketRow{rows[1], rows[3]}
			}
			bracket(b, run("seq"), rows)
		})
	}
	b.Run("ScopeSpawn", func(b *testing.B) {
		outer := 1000
		if testing.Short() {
			outer = 10
		}
		runs, check := scopeSpawnRuns(outer, 1000)
		checked := func(name string) func() {
			i := slices.IndexFunc(runs, func(r namedRun) bool { return r.name == name })
			return func() {
				runs[i].run()
				if err := check(); err != nil {
					b.Fatalf("%s: %v", name, err)
				}
			}
		}
		bracket(b, checked("seq"), []bracketRow{
			{"bound", 1, checked("bound")},
			{"bound-closures", 1, checked("bound-closures")},
			{"Scope", 1, checked("par.Scope")},
			{"ScopeOf", 1, checked("par.ScopeOf")},
		})
	})
	b.Run("Crawl", func(b *testing.B) {
		c := workloads.NewCrawl(200_000)
		if testing.Short() {
			c = workloads.NewCrawl(20_000)
		}
		want := c.Seq()
		checked := func(name string, f func() int) func() {
			return func() {
				if got := f(); got != want {
					b.Fatalf("%s reached %d nodes, want %d", name, got, want)
				}
			}
		}
		bracket(b, checked("seq", c.Seq), []bracketRow{
			{"seq-x2", 2, checked("seq-x2", func() int { return bothSeq(c.Seq) })},
			{"Scope", 1, checked("par.Scope", func() int { return crawlScope(c) })},
			{"ScopeOf", 1, checked("par.ScopeOf", func() int { return crawlScopeOf(c) })},
		})
	})
}

// bracketDrift is how much the two runs of seq around a row's run may
// differ (as a fraction of the shorter) for the row's ratio to count.
const bracketDrift = 0.05

// bracketRow is a row of BenchmarkBracketed: its run does the work of
// work runs of seq.
type bracketRow struct {
	name string
	work float64
	run  func()
}

// bracket runs b.N ops of seq and rows, each row between two runs of seq,
// and reports each row's median ratio and count (see BenchmarkBracketed).
// The rows' order rotates from op to op: in one order every op, the second
// of two runs of the same walk measured 6% faster than the first.
func bracket(b *testing.B, seq func(), rows []bracketRow) {
	warm(par.Default())
	timed := func(f func()) float64 {
		t0 := time.Now()
		f()
		return float64(time.Since(t0))
	}
	ratios := make([][]float64, len(rows))
	b.ResetTimer()
	for op := range b.N {
		before := timed(seq)
		line := fmt.Sprintf("op %d: seq %.0f ms", op, before/1e6)
		for j := range rows {
			i := (op + j) % len(rows)
			r := rows[i]
			t := timed(r.run)
			after := timed(seq)
			ratio, note := r.work*(before+after)/2/t, ""
			if max(before, after) <= (1+bracketDrift)*min(before, after) {
				ratios[i] = append(ratios[i], ratio)
			} else {
				note = ", dropped"
			}
			line += fmt.Sprintf(", %s %.0f ms (%.3f×%s), seq %.0f ms", r.name, t/1e6, ratio, note, after/1e6)
			before = after
		}
		b.Log(line)
	}
	b.StopTimer()
	for i, r := range rows {
		med := 0.0
		if rs := ratios[i]; len(rs) > 0 {
			slices.Sort(rs)
			med = (rs[(len(rs)-1)/2] + rs[len(rs)/2]) / 2
		}
		b.ReportMetric(med, r.name+"-x")
		b.ReportMetric(float64(len(ratios[i])), r.name+"-kept")
	}
}

// checkedWalk returns a run of count over root that fails b, naming the
// walk, unless it counts nodes nodes.
func checkedWalk(b *testing.B, walk string, root workloads.SHA1Node, nodes int, count func(workloads.SHA1Node) int) func() {
	return func() {
		if got := count(root); got != nodes {
			b.Fatalf("%s: %d nodes, want %d", walk, got, nodes)
		}
	}
}

// abExperiment is BenchmarkBracketedAB's experiment (a PARLOOP_EXPERIMENT
// setting); empty skips it.
var abExperiment = flag.String("ab.exp", "", "BenchmarkBracketedAB: the experiment setting to compare with the default")

// BenchmarkBracketedAB is a heuristic's A/B on the published trees by
// ReduceRangeOf, bracketed as BenchmarkBracketed is: each op walks the tree
// on a pool with the defaults (row default) and on one with -ab.exp (row
// exp), each between two sequential walks. It needs -tags
// parloop_experiments; run with -test.cpu 2 -test.benchtime Nx -ab.exp
// setting.
func BenchmarkBracketedAB(b *testing.B) {
	if *abExperiment == "" || !experimentsBuilt {
		b.Skip("needs -ab.exp and -tags parloop_experiments")
	}
	pools := []*par.Pool{newExperimentPool("default"), newExperimentPool(*abExperiment)}
	defer func() {
		for _, p := range pools {
			p.Close()
		}
	}()
	for _, tc := range publishedTrees {
		b.Run("tree="+tc.name, func(b *testing.B) {
			if testing.Short() {
				b.Skip("a walk takes seconds")
			}
			on := func(row string, p *par.Pool) bracketRow {
				return bracketRow{row, 1, checkedWalk(b, tc.name+" "+row, tc.root, tc.nodes, func(n workloads.SHA1Node) int {
					return 1 + par.ReduceRangeOf(n.Kids(), n, 0, treeKidsOf, addInt, par.On(p))
				})}
			}
			seq := checkedWalk(b, tc.name+" seq", tc.root, tc.nodes, workloads.SHA1Node.Count)
			bracket(b, seq, []bracketRow{on("default", pools[0]), on("exp", pools[1])})
		})
	}
}
