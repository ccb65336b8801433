package capture

import (
	"archive/tar"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// testdata holds hwloc's captures, recompressed with gzip (see its
// README.md). A missing file there fails the tests: they never skip.
// This package's own testdata holds one of them as hwloc publishes it,
// compressed with bzip2 (TestArchiveCaptureFS).
const testdata = "../../par/internal/topology/testdata"

// Every capture in testdata opens, with its lone top directory entered
// (through symbolic links such as sysfs's), and has as many cpuN
// directories as its name says, where it begins with a number.
func TestOpenTestdata(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(testdata, "*.tar.gz"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 8 {
		t.Fatalf("%d captures in %s, want 8: %v", len(files), testdata, files)
	}
	cpuDir := regexp.MustCompile(`^cpu[0-9]+$`)
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".tar.gz")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			fsys, err := Open(f)
			if err != nil {
				t.Fatal(err)
			}
			if b, err := fs.ReadFile(fsys, "proc/cpuinfo"); err != nil || !strings.Contains(string(b), "processor") {
				t.Errorf("proc/cpuinfo = %.40q, %v", b, err)
			}
			ents, err := fs.ReadDir(fsys, "sys/devices/system/cpu")
			if err != nil {
				t.Fatal(err)
			}
			cpus := 0
			for _, e := range ents {
				if e.IsDir() && cpuDir.MatchString(e.Name()) {
					cpus++
				}
			}
			if n, err := strconv.Atoi(name[:len(name)-len(strings.TrimLeft(name, "0123456789"))]); err == nil && cpus != n {
				t.Errorf("%d cpuN directories, want %d", cpus, n)
			} else if cpus == 0 {
				t.Errorf("no cpuN directory")
			}
		})
	}
}

// Open takes an uncompressed and a gzip archive by their content, whatever
// their names, and enters the lone top directory of both.
func TestOpenArchiveFiles(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name     string
		compress bool
	}{
		{"plain.tar", false},
		{"packed.tar.gz", true},
		{"packed.tgz", true},
		{"misnamed.tar.bz2", true},
	} {
		p := filepath.Join(dir, c.name)
		if err := os.WriteFile(p, makeTar(t, c.compress, []tarEntry{
			{name: "m/", typ: tar.TypeDir},
			{name: "m/sys/devices/system/cpu/online", body: "0-3\n", typ: tar.TypeReg},
			{name: "m/proc/cpuinfo", body: "processor\t: 0\n", typ: tar.TypeReg},
		}), 0o644); err != nil {
			t.Fatal(err)
		}
		fsys, err := Open(p)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if b, err := fs.ReadFile(fsys, "sys/devices/system/cpu/online"); err != nil || string(b) != "0-3\n" {
			t.Errorf("%s: online = %q, %v", c.name, b, err)
		}
	}
}

// A directory is read in place: a root holding "sys" or "proc" stays the
// root, even where that is its only entry, and a directory of several
// entries is not entered.
func TestOpenDirRoots(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, body string) {
		t.Helper()
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a/b/sys/devices/system/cpu/online", "0-7\n") // two levels down
	write("c/sys/x/online", "1\n")                      // c holds only sys: not entered
	write("e/proc/cpuinfo", "processor\t: 0\n")
	write("d/one/online", "3\n")
	write("d/two/online", "4\n") // d has two entries: not entered
	for rel, want := range map[string]string{
		"a":                       "sys/devices/system/cpu/online",
		filepath.Join("a", "b"):   "sys/devices/system/cpu/online",
		"c":                       "sys/x/online",
		"d":                       "one/online",
		"e":                       "proc/cpuinfo",
		filepath.Join("d", "two"): "online",
	} {
		fsys, err := Open(filepath.Join(dir, rel))
		if err != nil {
			t.Errorf("Open(%s): %v", rel, err)
			continue
		}
		if _, err := fs.Stat(fsys, want); err != nil {
			t.Errorf("Open(%s): %s: %v", rel, want, err)
		}
	}
}
