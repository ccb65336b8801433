package par

import "sync/atomic"

// Grain sizing reads the clock after every grain, so the clock must be
// cheap: cputicks, a cycle counter. Its rate is calibrated against
// nanotime lazily, from slow paths, once at least calibrateAfter has
// passed since the package was initialised; until then it is assumed to be
// defaultTicksPerNs, which only scales the thresholds below (never
// correctness).

const (
	defaultTicksPerNs = 3 << 10 // fixed point, 1/1024ths
	calibrateAfter    = 2_000_000
)

var (
	calibNs, calibTicks int64        // the reference pair, set at init
	ticksPerNs          atomic.Int64 // 1/1024ths of a tick per ns; 0 until calibrated
	calibrated          atomic.Bool
)

func init() {
	calibNs, calibTicks = nanotime(), cputicks()
	setThresholds()
}

// tickThresholds are split.go's durations in ticks, converted once per
// calibration rather than at every grain.
type tickThresholds struct {
	target, calibrated, splitMin, splitWake, cutMin, cutAge, kickEvery int64
}

// thresholds is replaced whole (a pointer) when the tick rate is
// calibrated, so a reader sees one consistent set.
var thresholds atomic.Pointer[tickThresholds]

func setThresholds() {
	thresholds.Store(&tickThresholds{
		target:     nsToTicks(grainTargetNs),
		calibrated: nsToTicks(calibratedNs),
		splitMin:   nsToTicks(splitMinNs),
		splitWake:  nsToTicks(splitWakeNs),
		cutMin:     nsToTicks(cutMinNs),
		cutAge:     nsToTicks(cutAgeNs),
		kickEvery:  nsToTicks(kickEveryNs),
	})
}

// calibrateTicks measures the tick rate once enough time has passed.
func calibrateTicks() {
	if calibrated.Load() {
		return
	}
	dn := nanotime() - calibNs
	if dn < calibrateAfter {
		return
	}
	dt := cputicks() - calibTicks
	if r := dt << 10 / dn; r > 0 && calibrated.CompareAndSwap(false, true) {
		ticksPerNs.Store(r)
		setThresholds()
	}
}

// nsToTicks converts a duration in ns to ticks.
func nsToTicks(ns int64) int64 {
	r := ticksPerNs.Load()
	if r == 0 {
		r = defaultTicksPerNs
	}
	return ns * r >> 10
}

// ticksToNs converts a tick count to ns.
func ticksToNs(t int64) int64 {
	r := ticksPerNs.Load()
	if r == 0 {
		r = defaultTicksPerNs
	}
	return t << 10 / r
}
