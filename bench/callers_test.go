package bench

import (
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/parloop/parloop/bench/peers"
	"github.com/parloop/parloop/bench/workloads"
	"github.com/parloop/parloop/par"
)

// sweepCase is one point of the many-callers sweep: callers goroutines
// each running a uniform loop of n at once, reps times per op (so that an
// op of few small loops still lasts milliseconds).
type sweepCase struct{ callers, n, reps int }

// sweepCases is the sweep: the number of callers at the main suite's
// loop size (10,000), and the loop size at its number of callers (64),
// plus 512 callers of the small loop, where a call's own cost weighs most.
// 512 callers of 1M are left out: 4 GB of slices and 1.5 s of CPU an op.
var sweepCases = []sweepCase{
	{8, 10_000, 64}, {64, 10_000, 8}, {512, 10_000, 1},
	{64, 1_000, 80}, {64, 1_000_000, 1}, {512, 1_000, 10},
}

// sweepPeers are the peers of the sweep: the chunked hand-written
// fan-outs and parloop's two loop verbs.
var sweepPeers = []string{"static", "atomic", "errgroup", "par.For", "par.ForRange"}

// BenchmarkCallersSweep is BenchmarkManyCallers over sweepCases, for
// the issue's "8, 64 and 512 callers, small (n = 1,000) and large (n = 1M)
// loops". The bases run every caller's loop, all callers at once, so that
// the machine is as busy as with the peers and a call should cost what its
// loop costs: seq (the plain loop), seq-range (the range body over [0, n))
// and seq-func (a loop calling the func value). cmd/report runs it in phase
// paired (ten rounds at 2 workers) and judges par.ForRange against
// seq-range and the best peer per case, par.For against seq-func.
func BenchmarkCallersSweep(b *testing.B) {
	for _, c := range sweepCases {
		// Made (and its pages touched) by the first sub-benchmark that
		// runs, before its timer starts (64 loops of 1M are 512 MB), and
		// dropped after the case.
		var loops []*workloads.Loop
		prepare := func() {
			if loops == nil {
				loops = workloads.Callers(c.callers, c.n)
				for _, l := range loops {
					l.Reset()
				}
			}
		}
		each := func(f func(l *workloads.Loop)) {
			var wg sync.WaitGroup
			for _, l := range loops {
				wg.Go(func() {
					for range c.reps {
						f(l)
					}
				})
			}
			wg.Wait()
		}
		verify := func(b *testing.B) {
			for _, l := range loops {
				check(b, l.Verify())
				l.Reset()
			}
		}
		name := fmt.Sprintf("callers=%d/n=%d", c.callers, c.n)
		// The bases: each caller's plain loop; its range body over [0, n)
		// (par.ForRange's base: the same machine code, whose speed differs
		// from the plain loop's by where the linker put it, see
		// goalLoop); and a loop calling its func value (par.For's base).
		for _, base := range []struct {
			impl string
			run  func(l *workloads.Loop)
		}{
			{"seq", func(l *workloads.Loop) { l.Plain() }},
			{"seq-range", func(l *workloads.Loop) { l.Range(0, l.N) }},
			{"seq-func", func(l *workloads.Loop) { peers.SeqFunc(l.N, l.Elem, nil) }},
		} {
			callersOp(b, name+"/impl="+base.impl, nil, prepare, each, verify, func() (func(*workloads.Loop), func()) {
				return base.run, func() {}
			})
		}
		for _, p := range peers.Loops(false) {
			if slices.Contains(sweepPeers, p.Name) {
				callersOp(b, name+"/impl="+p.Name, poolFor(p.Parloop), prepare, each, verify, peerBody(p))
			}
		}
		loops = nil
	}
}

// callersOp runs one sub-benchmark of a many-callers workload: open gives
// what each caller runs on its loop (and what to close after), prepare
// readies the loops before the timer, each runs a body in every caller at
// once, and verify checks the loops after; pool is the parloop pool whose
// stats the meter reads (nil for none).
func callersOp(b *testing.B, name string, pool *par.Pool, prepare func(), each func(func(*workloads.Loop)), verify func(*testing.B), open func() (body func(*workloads.Loop), close func())) {
	b.Run(name, func(b *testing.B) {
		body, closeBody := open()
		defer closeBody()
		prepare()
		m := start(b, pool)
		for range b.N {
			each(body)
		}
		m.stop()
		verify(b)
	})
}

// peerBody opens loop peer p for callersOp: each caller runs its loop
// through the peer.
func peerBody(p peers.LoopPeer) func() (func(*workloads.Loop), func()) {
	return func() (func(*workloads.Loop), func()) {
		run, _, closePeer := p.Open()
		return func(l *workloads.Loop) { run(l.N, l.Elem, l.Range) }, closePeer
	}
}
