//go:build !parloop_experiments

package experiment

import "testing"

// Catches: a build without the tag that reads PARLOOP_EXPERIMENT.
func TestReadWithoutTagIgnoresEnv(t *testing.T) {
	t.Setenv("PARLOOP_EXPERIMENT", "cuts=off,victims=random")
	if got := Read(); got != (Set{}) {
		t.Errorf("Read() = %+v without the tag, want the defaults", got)
	}
}
