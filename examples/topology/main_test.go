package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"go.uber.org/goleak"
)

// The pool the command builds must leave no goroutine behind.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// capturesDir holds hwloc's captures (see its README.md). A missing one
// fails the tests.
const capturesDir = "../../par/internal/topology/testdata"

var summaryRE = regexp.MustCompile(`^packages=\d+ numa=\d+ l3=\d+ cores=\d+ threads=\d+$`)

// lastLine runs the command and returns its output's last line.
func lastLine(t *testing.T, args ...string) (string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	if rc := run(args, &out, &errb); rc != 0 {
		t.Fatalf("run(%q) = %d: %s", args, rc, errb.String())
	}
	s := strings.TrimSuffix(out.String(), "\n")
	if !strings.HasSuffix(out.String(), "\n") {
		t.Errorf("output does not end with a newline")
	}
	return s[strings.LastIndex(s, "\n")+1:], out.String()
}

// consoleSummary derives the expected summary line from lstopo's console
// output of a capture: one object per line of the tree, which ends at the
// first "depth" line.
func consoleSummary(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(capturesDir, name+".console"))
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for line := range strings.SplitSeq(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if f[0] == "depth" {
			break
		}
		count[f[0]]++
	}
	return fmt.Sprintf("packages=%d numa=%d l3=%d cores=%d threads=%d",
		count["Package"], count["NUMANode"], count["L3Cache"], count["Core"], count["PU"])
}

func TestCaptures(t *testing.T) {
	names := []string{"64amd64-4s2n4ca2co", "offline-cpu0-node0", "20em64t-hybrid-1p6c2t+2ca4co1t", "128arm-2pa2n8cluster4co"}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, out := lastLine(t, "-root", filepath.Join(capturesDir, name+".tar.gz"))
			if want := consoleSummary(t, name); got != want {
				t.Errorf("summary %q, want %q", got, want)
			}
			if !strings.Contains(out, "Machine (") || !strings.Contains(out, "worker 0: cpu ") {
				t.Errorf("output lacks the machine or the placement:\n%s", out)
			}
		})
	}
	// The cgroup capture has an XML description but no console: its cgroup
	// cpuset (CPUs 0-5) leaves one package, two NUMA nodes and L3s, six
	// cores (the topology package's tests check this against the XML).
	t.Run("32amd64-4s2n4c-cgroup2", func(t *testing.T) {
		t.Parallel()
		got, _ := lastLine(t, "-root", filepath.Join(capturesDir, "32amd64-4s2n4c-cgroup2.tar.gz"))
		if want := "packages=1 numa=2 l3=2 cores=6 threads=6"; got != want {
			t.Errorf("summary %q, want %q", got, want)
		}
	})
}

func TestHostAndDirectory(t *testing.T) {
	if got, _ := lastLine(t); !summaryRE.MatchString(got) {
		t.Errorf("host: last line %q", got)
	}
	dir := t.TempDir()
	cpu := filepath.Join(dir, "sys", "devices", "system", "cpu")
	if err := os.MkdirAll(cpu, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cpu, "online"), []byte("0-5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, out := lastLine(t, "-root", dir, "-workers", "3")
	if got != "packages=1 numa=1 l3=0 cores=6 threads=6" {
		t.Errorf("directory capture: last line %q", got)
	}
	if !strings.Contains(out, "worker 1: cpu 1") {
		t.Errorf("directory capture with -workers 3: placement missing:\n%s", out)
	}
}

func TestErrors(t *testing.T) {
	for _, args := range [][]string{
		{"-root", filepath.Join(t.TempDir(), "missing")},
		{"-root", t.TempDir()}, // opens, but holds no CPU information
		{"-nosuchflag"},
		{"stray"},
	} {
		var out, errb bytes.Buffer
		if rc := run(args, &out, &errb); rc == 0 || errb.Len() == 0 {
			t.Errorf("run(%q) = %d, stderr %q: want a failure", args, rc, errb.String())
		}
	}
}
