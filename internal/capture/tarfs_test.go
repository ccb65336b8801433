package capture

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"

	"github.com/parloop/parloop/internal/sim"
	_ "github.com/parloop/parloop/par" // fills in sim
)

type tarEntry struct {
	name, body, link string
	typ              byte
}

func makeTar(t *testing.T, compress bool, entries []tarEntry) []byte {
	t.Helper()
	var buf bytes.Buffer
	var tw *tar.Writer
	var gz *gzip.Writer
	if compress {
		gz = gzip.NewWriter(&buf)
		tw = tar.NewWriter(gz)
	} else {
		tw = tar.NewWriter(&buf)
	}
	for _, e := range entries {
		h := &tar.Header{Name: e.name, Typeflag: e.typ, Linkname: e.link, Mode: 0o644, Size: int64(len(e.body))}
		if e.typ == tar.TypeDir {
			h.Mode = 0o755
		}
		if e.typ != tar.TypeReg {
			h.Size = 0
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if e.typ == tar.TypeReg {
			if _, err := tw.Write([]byte(e.body)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if gz != nil {
		if err := gz.Close(); err != nil {
			t.Fatal(err)
		}
	}
	return buf.Bytes()
}

var sampleTree = []tarEntry{
	{name: "cap/", typ: tar.TypeDir},
	{name: "cap/sys/devices/system/cpu/online", body: "0-1\n", typ: tar.TypeReg},
	{name: "cap/sys/devices/system/cpu/cpu0/topology/core_id", body: "0\n", typ: tar.TypeReg},
	{name: "cap/sys/devices/system/cpu/cpu1/topology/core_id", body: "1\n", typ: tar.TypeReg},
	{name: "cap/sys/devices/system/node/node0/cpulist", body: "0-1\n", typ: tar.TypeReg},
	{name: "cap/sys/devices/system/node/node0/cpu0", link: "../../cpu/cpu0", typ: tar.TypeSymlink},
	{name: "cap/sys/devices/system/node/node0/self", link: ".", typ: tar.TypeSymlink},
	{name: "cap/sys/bus/node/devices/node0", link: "../../../devices/system/node/node0", typ: tar.TypeSymlink},
	{name: "cap/sys/abs", link: "/sys/devices/system/cpu/online", typ: tar.TypeSymlink},
	{name: "cap/sys/up", link: "../../../../../../sys/devices/system/cpu/online", typ: tar.TypeSymlink},
	{name: "cap/sys/loop1", link: "loop2", typ: tar.TypeSymlink},
	{name: "cap/sys/loop2", link: "loop1", typ: tar.TypeSymlink},
	{name: "cap/sys/dangling", link: "nowhere", typ: tar.TypeSymlink},
	{name: "cap/proc/cpuinfo", body: "processor\t: 0\nprocessor\t: 1\n", typ: tar.TypeReg},
	{name: "cap/proc/hard", link: "cap/proc/cpuinfo", typ: tar.TypeLink},
	{name: "../evil", body: "x", typ: tar.TypeReg},
}

func TestArchiveFS(t *testing.T) {
	for _, compress := range []bool{false, true} {
		fsys, err := readArchive(bytes.NewReader(makeTar(t, compress, sampleTree)))
		if err != nil {
			t.Fatal(err)
		}
		// "../evil" is cleaned to "evil" at the archive's root, which then
		// has two entries, so "cap" is not entered.
		if _, err := fs.Stat(fsys, "cap/sys"); err != nil {
			t.Fatalf("cap/sys: %v", err)
		}
		sub, err := fs.Sub(fsys, "cap")
		if err != nil {
			t.Fatal(err)
		}
		for name, want := range map[string]string{
			"sys/bus/node/devices/node0/cpulist":                          "0-1\n",
			"sys/devices/system/node/node0/cpu0/topology/core_id":         "0\n",
			"sys/devices/system/node/node0/self/self/self/cpulist":        "0-1\n",
			"sys/bus/node/devices/node0/cpu0/../../cpu1/topology/core_id": "",
			"proc/hard": "processor\t: 0\nprocessor\t: 1\n",
		} {
			b, err := fs.ReadFile(sub, name)
			if want == "" {
				if err == nil {
					t.Errorf("%s: read although the path is not valid", name)
				}
				continue
			}
			if err != nil || string(b) != want {
				t.Errorf("%s = %q, %v; want %q", name, b, err, want)
			}
		}
		// Links above the root stop at the root; absolute links start at it.
		for _, name := range []string{"cap/sys/abs", "cap/sys/up"} {
			if _, err := fs.ReadFile(fsys, name); err == nil {
				t.Errorf("%s resolved outside the capture's root", name)
			}
		}
		for _, name := range []string{"cap/sys/loop1", "cap/sys/dangling", "cap/sys/nothing", "cap/proc/cpuinfo/x"} {
			if _, err := fs.ReadFile(fsys, name); err == nil {
				t.Errorf("%s: no error", name)
			}
		}
		if l, err := fs.ReadLink(fsys, "cap/sys/loop1"); err != nil || l != "loop2" {
			t.Errorf("ReadLink = %q, %v", l, err)
		}
		if fi, err := fs.Lstat(fsys, "cap/sys/abs"); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			t.Errorf("Lstat = %v, %v", fi, err)
		}
	}
}

// A lone top directory is entered, and absolute links then resolve from
// the capture's root.
func TestArchiveRoot(t *testing.T) {
	// fstest.TestFS opens every entry, so leave out the broken links and
	// the entry outside "cap".
	var tree []tarEntry
	for _, e := range sampleTree {
		switch e.name {
		case "cap/sys/loop1", "cap/sys/loop2", "cap/sys/dangling", "../evil":
		default:
			tree = append(tree, e)
		}
	}
	fsys, err := readArchive(bytes.NewReader(makeTar(t, true, tree)))
	if err != nil {
		t.Fatal(err)
	}
	if b, err := fs.ReadFile(fsys, "sys/abs"); err != nil || string(b) != "0-1\n" {
		t.Errorf("sys/abs = %q, %v", b, err)
	}
	if b, err := fs.ReadFile(fsys, "sys/up"); err != nil || string(b) != "0-1\n" {
		t.Errorf("sys/up = %q, %v", b, err)
	}
	if err := fstest.TestFS(fsys, "sys/devices/system/cpu/online", "proc/cpuinfo", "proc/hard"); err != nil {
		t.Error(err)
	}
	top, err := sim.ReadMachine(fsys)
	if err != nil {
		t.Fatal(err)
	}
	if got := top.Summary(); got != "packages=1 numa=1 l3=0 cores=2 threads=2" {
		t.Errorf("Summary() = %q", got)
	}
}

func TestArchiveErrors(t *testing.T) {
	if _, err := readArchive(bytes.NewReader([]byte("BZh9 not bzip2 at all"))); err == nil {
		t.Error("corrupt bzip2: no error")
	}
	if _, err := readArchive(bytes.NewReader([]byte{0x1f, 0x8b, 1, 2})); err == nil {
		t.Error("corrupt gzip: no error")
	}
	full := makeTar(t, false, sampleTree)
	if _, err := readArchive(bytes.NewReader(full[:700])); err == nil {
		t.Error("truncated tar: no error")
	}
	if _, err := Open(filepath.Join(t.TempDir(), "missing.tar.bz2")); err == nil {
		t.Error("missing file: no error")
	}
}

// A real capture, as hwloc publishes it (compressed with bzip2), passes
// fstest's checks of the fs.FS contract.
func TestArchiveCaptureFS(t *testing.T) {
	fsys, err := Open(filepath.Join("testdata", "2arm-2c.tar.bz2"))
	if err != nil {
		t.Fatal(err)
	}
	if err := fstest.TestFS(fsys, "sys/devices/system/cpu/online", "proc/cpuinfo"); err != nil {
		t.Error(err)
	}
}

// Open reads a directory capture, entering a lone top directory.
func TestOpenDir(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "machine", "sys", "devices", "system", "cpu")
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(p, "online"), []byte("0-2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fsys, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	top, err := sim.ReadMachine(fsys)
	if err != nil {
		t.Fatal(err)
	}
	if got := top.Summary(); got != "packages=1 numa=1 l3=0 cores=3 threads=3" {
		t.Errorf("Summary() = %q", got)
	}
	if _, err := Open(filepath.Join(dir, "missing")); err == nil {
		t.Error("Open of a missing path: no error")
	}
	if _, err := Open(filepath.Join(p, "online")); err == nil {
		t.Error("Open of a file that is no archive: no error")
	}
}
