package bench

import (
	"sync"
	"testing"

	"github.com/parloop/parloop/bench/peers"
	"github.com/parloop/parloop/bench/workloads"
)

// BenchmarkTiny is a[i] = 2*i for n = 1000: per-call overhead.
func BenchmarkTiny(b *testing.B) {
	benchLoop(b, workloads.Tiny(workloads.TinyN), true)
}

// BenchmarkUniform is a[i] = math.Sqrt(float64(i)) for n = 10M. There is no
// goroutine-per-item peer: it would start 10M goroutines per call.
func BenchmarkUniform(b *testing.B) {
	benchLoop(b, workloads.UniformInto(uniformBuf()), false)
}

// BenchmarkMandelbrot is the 1024x1024 mandelbrot set with at most 2000
// iterations a pixel, parallel over rows.
func BenchmarkMandelbrot(b *testing.B) {
	benchLoop(b, mandel().Loop(), true)
}

// BenchmarkSkewed is 10,000 items of Pareto-distributed cost.
func BenchmarkSkewed(b *testing.B) {
	benchLoop(b, skewed().Loop(), true)
}

var callersLoops = sync.OnceValue(func() []*workloads.Loop {
	return workloads.Callers(workloads.CallersN, workloads.CallersLoopN)
})

// BenchmarkManyCallers is 64 goroutines each running a uniform loop of
// 10,000 at the same time. seq: every caller runs its loop serially.
func BenchmarkManyCallers(b *testing.B) {
	loops := callersLoops()
	each := func(f func(l *workloads.Loop)) {
		var wg sync.WaitGroup
		for _, l := range loops {
			wg.Go(func() { f(l) })
		}
		wg.Wait()
	}
	verify := func(b *testing.B) {
		for _, l := range loops {
			check(b, l.Verify())
		}
	}
	reset := func() {
		for _, l := range loops {
			l.Reset()
		}
	}
	callersOp(b, "peer=seq", nil, reset, each, verify, func() (func(*workloads.Loop), func()) {
		return func(l *workloads.Loop) { l.Plain() }, func() {}
	})
	for _, p := range peers.Loops(true) {
		callersOp(b, "peer="+p.Name, poolFor(p.Parloop), reset, each, verify, peerBody(p))
	}
}
