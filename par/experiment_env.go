//go:build parloop_experiments

package par

import "os"

// experiments reads PARLOOP_EXPERIMENT (built with parloop_experiments).
func experiments() experiment {
	e, err := parseExperiment(os.Getenv("PARLOOP_EXPERIMENT"))
	if err != nil {
		panic(err)
	}
	return e
}
