package par

import (
	"errors"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// archiveDeps are the packages that reading captured machines needs and
// that par must not link into every program that imports it: they belong
// to par/capture.
var archiveDeps = []string{"archive/tar", "compress/bzip2", "compress/gzip", "compress/flate"}

// Catches an import, direct or not, that brings archive or decompression
// code into par's dependencies, on Linux (where the topology is read from
// sysfs) and on two systems without it.
func TestDepsLinkNoArchiveReaders(t *testing.T) {
	goTool, err := exec.LookPath("go") // go test puts its own GOROOT/bin first in PATH
	if err != nil {
		t.Fatalf("the go command is needed to list par's dependencies: %v", err)
	}
	for _, goos := range []string{"linux", "darwin", "windows"} {
		cmd := exec.Command(goTool, "list", "-deps", "github.com/parloop/parloop/par")
		cmd.Env = append(os.Environ(), "GOOS="+goos, "CGO_ENABLED=0")
		out, err := cmd.Output()
		if err != nil {
			var stderr []byte
			if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
				stderr = ee.Stderr
			}
			t.Fatalf("GOOS=%s go list -deps: %v\n%s", goos, err, stderr)
		}
		deps := strings.Fields(string(out))
		if !slices.Contains(deps, "github.com/parloop/parloop/par/internal/topology") {
			t.Fatalf("GOOS=%s go list -deps lists no par/internal/topology, so it cannot be par's list:\n%s", goos, out)
		}
		var found []string
		for _, d := range deps {
			if slices.Contains(archiveDeps, d) {
				found = append(found, d)
			}
		}
		if len(found) > 0 {
			t.Errorf("GOOS=%s: importing par links %s; archive reading belongs in par/capture", goos, strings.Join(found, ", "))
		}
	}
}
