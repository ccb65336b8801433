//go:build !parloop_experiments

package par

// experiments is the defaults: without the tag parloop_experiments a
// program never reads PARLOOP_EXPERIMENT.
func experiments() experiment { return experiment{} }
