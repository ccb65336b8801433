//go:build parloop_experiments

package experiment

import (
	"testing"

	"github.com/parloop/parloop/par/internal/topology"
)

// Catches: a build with the tag that ignores PARLOOP_EXPERIMENT, or lets
// an unknown setting pass.
func TestReadWithTag(t *testing.T) {
	t.Setenv("PARLOOP_EXPERIMENT", "cuts=off,victims=random")
	if got, want := Read(), (Set{NoCut: true, Victims: topology.VictimsRandom}); got != want {
		t.Errorf("Read() = %+v, want %+v", got, want)
	}
	t.Setenv("PARLOOP_EXPERIMENT", "cuts=of")
	defer func() {
		if recover() == nil {
			t.Error("Read() with an unknown setting did not panic")
		}
	}()
	Read()
}
