//go:build !parloop_experiments

package experiment

// Read returns the defaults: without the tag parloop_experiments a
// program never reads PARLOOP_EXPERIMENT.
func Read() Set { return Set{} }
