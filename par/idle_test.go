//go:build unix

package par

import (
	"syscall"
	"testing"
	"time"
)

// processCPU is the user+system CPU time of the whole process.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// idleCPU runs a burst of work on p, then measures the fraction of one CPU
// the process uses while p sits idle for d.
func idleCPU(p *Pool, d time.Duration) float64 {
	a := make([]float64, 1<<20)
	for range 20 {
		For(len(a), func(i int) { a[i] = float64(i) * 1.5 }, On(p))
	}
	c0, t0 := processCPU(), time.Now()
	time.Sleep(d)
	return float64(processCPU()-c0) / float64(time.Since(t0))
}

// BenchmarkIdleCPU reports the CPU an idle pool uses over one second, after
// a burst of work: the goal is under 1% of a CPU (the spin before parking
// is about 100 µs). TestIdlePoolStaysParked checks that the workers park
// and stay parked.
func BenchmarkIdleCPU(b *testing.B) {
	p := NewPool()
	defer p.Close()
	var sum float64
	for range b.N {
		sum += idleCPU(p, time.Second)
	}
	b.ReportMetric(100*sum/float64(b.N), "idle-cpu-%")
}
