package bench

// The classic work-stealing experiments, run on the real runtime: a
// granularity sweep, victim selection, back-off on and off. The fourth, the
// worker count from 1 to the number of CPUs, is the -cpu sweep of the main
// suite. The report writes them up in RESULTS.md.

import (
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/parloop/parloop/bench/workloads"
	"github.com/parloop/parloop/par"
)

// grainSweep is 1, 4, 16, ... up to n, and n itself.
func grainSweep(n, step int) []int {
	var gs []int
	for g := 1; g < n; g *= step {
		gs = append(gs, g)
	}
	return append(gs, n)
}

// BenchmarkExp_Grain runs par.For with the grain hint from 1 to n on a
// uniform, an irregular and a skewed loop; "auto" passes no hint.
func BenchmarkExp_Grain(b *testing.B) {
	type set struct {
		w    *workloads.Loop
		step int
	}
	sets := []set{{workloads.UniformInto(uniformBuf()), 16}, {mandel().Loop(), 4}, {skewed().Loop(), 4}}
	if testing.Short() { // the quick report: coarser steps, no mandelbrot
		sets = []set{{workloads.UniformInto(uniformBuf()), 256}, {skewed().Loop(), 16}}
	}
	for _, s := range sets {
		w := s.w
		b.Run("work="+w.Name, func(b *testing.B) {
			for _, g := range append([]int{0}, grainSweep(w.N, s.step)...) {
				name := "grain=auto"
				opts := []par.Option{}
				if g > 0 {
					name = fmt.Sprintf("grain=%d", g)
					opts = append(opts, par.Grain(g))
				}
				b.Run(name, func(b *testing.B) {
					w.Reset()
					m := start(b, par.Default())
					for range b.N {
						par.For(w.N, w.Elem, opts...)
					}
					m.stop()
					check(b, w.Verify())
				})
			}
		})
	}
}

// policyCase is one workload of the pool-configuration experiments, run on
// pool p.
type policyCase struct {
	name string
	run  func(p *par.Pool)
	// verify checks the result of the last run.
	verify func() error
}

func loopCase(w *workloads.Loop) policyCase {
	return policyCase{
		name:   w.Name,
		run:    func(p *par.Pool) { par.For(w.N, w.Elem, par.On(p)) },
		verify: w.Verify,
	}
}

// joinOn is par.Join on pool p as a workloads.Joiner.
func joinOn(p *par.Pool) workloads.Joiner {
	on := par.On(p)
	return func(f, g func()) { par.Join(f, g, on) }
}

func fibCase(n, cutoff int) policyCase {
	var got int
	want := workloads.FibValue(n)
	return policyCase{
		name: fmt.Sprintf("fib%d", n),
		run:  func(p *par.Pool) { got = workloads.FibJoin(n, cutoff, joinOn(p)) },
		verify: func() error {
			if got != want {
				return fmt.Errorf("fib(%d) = %d, want %d", n, got, want)
			}
			return nil
		},
	}
}

func treeCase() policyCase {
	t := tree()
	var n, sum uint64
	return policyCase{
		name: "tree",
		run:  func(p *par.Pool) { n, sum = t.Join(t.Root(), 0, int(^uint(0)>>1), joinOn(p)) },
		verify: func() error {
			wn, ws := treeWant()
			if n != wn || sum != ws {
				return fmt.Errorf("tree walk: %d nodes, sum %x; want %d, %x", n, sum, wn, ws)
			}
			return nil
		},
	}
}

// callersCase is 64 goroutines each running a loop of 10,000 on p at once.
func callersCase() policyCase {
	loops := callersLoops()
	return policyCase{
		name: "callers",
		run: func(p *par.Pool) {
			var wg sync.WaitGroup
			for _, l := range loops {
				wg.Go(func() { par.For(l.N, l.Elem, par.On(p)) })
			}
			wg.Wait()
		},
		verify: func() error {
			for _, l := range loops {
				if err := l.Verify(); err != nil {
					return err
				}
			}
			return nil
		},
	}
}

// burstCase is a tiny loop followed by a 1 ms sleep, the shape of a server
// handling sparse requests: its wall time shows the sleep's overshoot and its
// CPU time shows workers spinning while there is nothing to do.
func burstCase() policyCase {
	w := workloads.Tiny(workloads.TinyN)
	return policyCase{
		name: "burst",
		run: func(p *par.Pool) {
			par.For(w.N, w.Elem, par.On(p))
			time.Sleep(time.Millisecond)
		},
		verify: w.Verify,
	}
}

// newExperimentPool makes a pool running the scheduling policy setting
// (a PARLOOP_EXPERIMENT value such as "victims=random" or "backoff=off";
// "" for the defaults). The library, built with -tags parloop_experiments
// (the bench module's scripts pass it), reads PARLOOP_EXPERIMENT when a
// pool starts, at its first call, so this sets the variable, creates the pool,
// starts it with one trivial call and restores the variable as it was.
// Benchmarks run one at a time, so nothing else reads the variable meanwhile.
func newExperimentPool(setting string, opts ...par.PoolOption) *par.Pool {
	if !experimentsBuilt {
		panic("bench: an experiment needs the library built with -tags parloop_experiments")
	}
	const key = "PARLOOP_EXPERIMENT"
	old, had := os.LookupEnv(key)
	defer func() {
		if had {
			os.Setenv(key, old)
		} else {
			os.Unsetenv(key)
		}
	}()
	os.Setenv(key, setting)
	p := par.NewPool(opts...)
	par.Join(func() {}, func() {}, par.On(p))
	return p
}

// benchPolicies runs every case on a pool made with each configuration:
// key=cfg as a PARLOOP_EXPERIMENT setting.
func benchPolicies(b *testing.B, key string, cases []policyCase, configs []string) {
	if !experimentsBuilt {
		b.Skip("built without -tags parloop_experiments: the library reads no experiments")
	}
	for _, c := range cases {
		b.Run("work="+c.name, func(b *testing.B) {
			for _, cfg := range configs {
				b.Run(key+"="+cfg, func(b *testing.B) {
					p := newExperimentPool(key + "=" + cfg)
					defer p.Close()
					m := start(b, p)
					for range b.N {
						c.run(p)
					}
					m.stop()
					check(b, c.verify())
				})
			}
		})
	}
}

// BenchmarkExp_Victims compares victim selection: random, and nearest first
// (the default).
func BenchmarkExp_Victims(b *testing.B) {
	cases := []policyCase{loopCase(skewed().Loop()), loopCase(mandel().Loop()), treeCase(), fibCase(workloads.FibCutN, workloads.FibCutCutoff)}
	if testing.Short() { // the quick report: no mandelbrot
		cases = append(cases[:1], cases[2:]...)
	}
	benchPolicies(b, "victims", cases, []string{"nearest", "random"})
}

// BenchmarkExp_Backoff compares bounded spinning before parking (on, the
// default) with parking at once (off).
func BenchmarkExp_Backoff(b *testing.B) {
	cases := []policyCase{
		loopCase(workloads.Tiny(workloads.TinyN)), burstCase(), callersCase(),
		loopCase(skewed().Loop()), fibCase(workloads.FibEvery, 1),
	}
	benchPolicies(b, "backoff", cases, []string{"on", "off"})
}

// TestExperimentPool checks that newExperimentPool's setting reaches the
// pool (an unknown setting panics at the pool's start, which it can only do
// if the variable was read) and that the variable is restored after.
func TestExperimentPool(t *testing.T) {
	if !experimentsBuilt {
		t.Skip("built without -tags parloop_experiments: the library reads no experiments")
	}
	t.Setenv("PARLOOP_EXPERIMENT", "backoff=on")
	p := newExperimentPool("victims=random")
	p.Close()
	if v := os.Getenv("PARLOOP_EXPERIMENT"); v != "backoff=on" {
		t.Fatalf("PARLOOP_EXPERIMENT = %q after newExperimentPool, want it restored", v)
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("an unknown PARLOOP_EXPERIMENT setting did not panic: the pool did not read it")
			}
		}()
		newExperimentPool("victims=nosuch").Close()
	}()
	if v := os.Getenv("PARLOOP_EXPERIMENT"); v != "backoff=on" {
		t.Fatalf("PARLOOP_EXPERIMENT = %q after a panicking newExperimentPool, want it restored", v)
	}
}
