// Package experiment holds the scheduling policies only the benchmarks
// compare, each heuristic's A/B among them (docs/DESIGN.md, "Heuristics"):
// a pool reads them from PARLOOP_EXPERIMENT at its start only when built
// with the build tag parloop_experiments (env.go); par's tests set them
// through its export_test.go.
package experiment

import (
	"fmt"
	"strings"

	"github.com/parloop/parloop/par/internal/topology"
)

// Set is a pool's experiments; the zero value is the defaults.
type Set struct {
	Victims       topology.VictimPolicy // the order in which idle workers steal (par/steal.go)
	NoBackoff     bool                  // idle workers park without spinning first (par/worker.go)
	Locked        bool                  // unpinned workers lock their threads too (par/pool.go)
	AllSpin       bool                  // every idle worker may spin, not half (par/sleep.go)
	NoKick        bool                  // a first grain kicks no parked worker (par/offer.go)
	NoCut         bool                  // no piece offers its rest behind a running grain (par/offer.go)
	NoRateCut     bool                  // a cut prices the rest at the call's published cost only (par/offer.go)
	NoSlowStart   bool                  // grains of costly items not measured yet grow 64-fold, as cheap ones do (par/internal/grain)
	NoFewItems    bool                  // a call over few items splits them only after its first grain (par/offer.go)
	NoPlainNested bool                  // nested calls are framed even where the slot offers work (par/route.go)
	NoIdleCheck   bool                  // nested calls run plain where the slot offers work even while a seat spins (par/route.go)
	NoCrowd       bool                  // calls are never crowded (par/plain.go)
	NoSaturation  bool                  // the Ps are never taken to be saturated (par/pool.go)
	NoSpawnGrow   bool                  // a spawn onto a full private stack shares half, as a fork does (par/slot.go)

	SpinForever bool // tests only: idle workers spin instead of parking
}

// settings are PARLOOP_EXPERIMENT's settings: each sets one field.
var settings = map[string]func(*Set){
	"victims=nearest": func(e *Set) { e.Victims = topology.VictimsNearest },
	"victims=random":  func(e *Set) { e.Victims = topology.VictimsRandom },
	"backoff=off":     func(e *Set) { e.NoBackoff = true },
	"threads=locked":  func(e *Set) { e.Locked = true },
	"spinners=all":    func(e *Set) { e.AllSpin = true },
	"kicks=off":       func(e *Set) { e.NoKick = true },
	"cuts=off":        func(e *Set) { e.NoCut = true },
	"ratecut=off":     func(e *Set) { e.NoRateCut = true },
	"slowstart=off":   func(e *Set) { e.NoSlowStart = true },
	"fewitems=off":    func(e *Set) { e.NoFewItems = true },
	"plainnested=off": func(e *Set) { e.NoPlainNested = true },
	"idlecheck=off":   func(e *Set) { e.NoIdleCheck = true },
	"crowds=off":      func(e *Set) { e.NoCrowd = true },
	"saturation=off":  func(e *Set) { e.NoSaturation = true },
	"spawngrow=off":   func(e *Set) { e.NoSpawnGrow = true },

	"backoff=on": func(*Set) {}, "threads=unlocked": func(*Set) {}, // the defaults, by name
	"spinners=half": func(*Set) {}, "kicks=on": func(*Set) {},
}

// Parse parses a comma-separated list of settings ("default" and empty
// ones set nothing). An unknown setting is an error: a typo must not pass
// for a measurement.
func Parse(s string) (Set, error) {
	var e Set
	for _, kv := range strings.Split(s, ",") {
		if kv = strings.TrimSpace(kv); kv == "" || kv == "default" {
			continue
		}
		set, ok := settings[kv]
		if !ok {
			return e, fmt.Errorf("par: PARLOOP_EXPERIMENT: unknown setting %q", kv)
		}
		set(&e)
	}
	return e, nil
}
