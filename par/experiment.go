package par

import (
	"fmt"
	"strings"
)

// Experiments: scheduling policies only the benchmarks compare, each
// heuristic's A/B among them (docs/DESIGN.md, "Heuristics"), read from
// PARLOOP_EXPERIMENT at a pool's start only with the build tag
// parloop_experiments (experiment_env.go); tests, through export_test.go.
type experiment struct {
	victims       victimPolicy // the order in which idle workers steal (steal.go)
	noBackoff     bool         // idle workers park without spinning first (worker.go)
	locked        bool         // unpinned workers lock their threads too (pool.go)
	allSpin       bool         // every idle worker may spin, not half (sleep.go)
	noKick        bool         // a first grain kicks no parked worker (offer.go)
	noCut         bool         // no piece offers its rest behind a running grain (offer.go)
	noFewItems    bool         // a call over few items splits them only after its first grain (offer.go)
	noPlainNested bool         // nested calls are framed even where the slot offers work (route.go)
	noCrowd       bool         // calls are never crowded (plain.go)
	noSaturation  bool         // the Ps are never taken to be saturated (saturation.go)

	spinForever bool // tests only: idle workers spin instead of parking
}

// experimentSettings are PARLOOP_EXPERIMENT's settings: each sets one field.
var experimentSettings = map[string]func(*experiment){
	"victims=nearest": func(e *experiment) { e.victims = victimNearest },
	"victims=random":  func(e *experiment) { e.victims = victimRandom },
	"backoff=off":     func(e *experiment) { e.noBackoff = true },
	"threads=locked":  func(e *experiment) { e.locked = true },
	"spinners=all":    func(e *experiment) { e.allSpin = true },
	"kicks=off":       func(e *experiment) { e.noKick = true },
	"cuts=off":        func(e *experiment) { e.noCut = true },
	"fewitems=off":    func(e *experiment) { e.noFewItems = true },
	"plainnested=off": func(e *experiment) { e.noPlainNested = true },
	"crowds=off":      func(e *experiment) { e.noCrowd = true },
	"saturation=off":  func(e *experiment) { e.noSaturation = true },

	"backoff=on": func(*experiment) {}, "threads=unlocked": func(*experiment) {}, // the defaults, by name
	"spinners=half": func(*experiment) {}, "kicks=on": func(*experiment) {},
}

// parseExperiment parses a comma-separated list of settings ("default" and
// empty ones set nothing). An unknown setting is an error: a typo must not
// pass for a measurement.
func parseExperiment(s string) (experiment, error) {
	var e experiment
	for _, kv := range strings.Split(s, ",") {
		if kv = strings.TrimSpace(kv); kv == "" || kv == "default" {
			continue
		}
		set, ok := experimentSettings[kv]
		if !ok {
			return e, fmt.Errorf("par: PARLOOP_EXPERIMENT: unknown setting %q", kv)
		}
		set(&e)
	}
	return e, nil
}
