//go:build parloop_experiments

package experiment

import "os"

// Read reads PARLOOP_EXPERIMENT (built with parloop_experiments); it
// panics on an unknown setting.
func Read() Set {
	e, err := Parse(os.Getenv("PARLOOP_EXPERIMENT"))
	if err != nil {
		panic(err)
	}
	return e
}
