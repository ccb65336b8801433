package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"

	"go.uber.org/goleak"
)

// The strategies start goroutines (the scope's, gosem's): none may be left
// behind, after a walk or after an error.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// tree writes a tree under t.TempDir: directories of uneven size and depth
// (a chain 60 deep among them), .go files with and without a last newline,
// empty ones, other files, an empty directory, and symbolic links to a .go
// file and to a directory, which a walk neither follows nor counts.
func tree(t *testing.T) string {
	dir := t.TempDir()
	write := func(name, text string) {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for d := range 12 {
		for s := range d % 4 {
			for f := range 3 + (d*7+s)%11 {
				write(fmt.Sprintf("d%02d/s%d/f%d.go", d, s, f), strings.Repeat("line\n", (d*s*f)%37))
			}
		}
		write(fmt.Sprintf("d%02d/notes.txt", d), "not\ncounted\n")
		write(fmt.Sprintf("d%02d/x.go", d), "package x\n\nfunc f() {}") // no last newline
	}
	deep := "chain"
	for i := range 60 {
		deep = filepath.Join(deep, fmt.Sprint(i))
		write(filepath.Join(deep, "c.go"), strings.Repeat("x\n", i))
	}
	write("empty.go", "")
	write("go", "a file named go\n")
	if err := os.Mkdir(filepath.Join(dir, "emptydir"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "d01", "x.go"), filepath.Join(dir, "link.go")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "d03"), filepath.Join(dir, "linkdir")); err != nil {
		t.Fatal(err)
	}
	return dir
}

// reference counts dir's .go files and lines with filepath.WalkDir and
// os.ReadFile, independently of the command's code.
func reference(t *testing.T, dir string) Totals {
	var want Totals
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() && strings.HasSuffix(p, ".go") {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			want.Files++
			want.Lines += int64(bytes.Count(data, []byte("\n")))
			if len(data) > 0 && data[len(data)-1] != '\n' {
				want.Lines++
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return want
}

// Catches: a strategy that misses or doubles directories or files (a task
// lost, a scope returning before its spawned tasks), counts lines wrongly,
// follows symbolic links, or counts other files.
func TestStrategiesGiveWalkDirTotals(t *testing.T) {
	dir := tree(t)
	want := reference(t, dir)
	if want.Files < 150 || want.Lines < 1000 {
		t.Fatalf("the tree is too small to test anything: %+v", want)
	}
	fsys := os.DirFS(dir)
	for _, s := range strategies {
		for _, limit := range []int{1, 2, 16} {
			got, err := s.walk(fsys, limit)
			if err != nil || got != want {
				t.Errorf("%s, limit %d: %+v, %v; want %+v", s.name, limit, got, err, want)
			}
		}
	}
}

// faultyFS is a file system that fails to read one directory or open one
// file, and records the most calls in flight at once.
type faultyFS struct {
	fs.FS
	failDir, failFile string
	yield             bool // yield the processor in each call, so that calls overlap

	inFlight, most atomic.Int64
}

var errInjected = errors.New("injected failure")

func (f *faultyFS) enter() func() {
	n := f.inFlight.Add(1)
	for {
		m := f.most.Load()
		if n <= m || f.most.CompareAndSwap(m, n) {
			break
		}
	}
	if f.yield {
		for range 20 {
			runtime.Gosched()
		}
	}
	return func() { f.inFlight.Add(-1) }
}

func (f *faultyFS) ReadDir(name string) ([]fs.DirEntry, error) {
	defer f.enter()()
	if name == f.failDir {
		return nil, &fs.PathError{Op: "readdirent", Path: name, Err: errInjected}
	}
	return fs.ReadDir(f.FS, name)
}

func (f *faultyFS) Open(name string) (fs.File, error) {
	defer f.enter()()
	if name == f.failFile {
		return nil, &fs.PathError{Op: "open", Path: name, Err: errInjected}
	}
	return f.FS.Open(name)
}

// Catches: an unreadable directory or file that a strategy skips silently,
// reports without its path, or whose error leaves goroutines behind
// (TestMain) or hangs the walk.
func TestErrorsAreReported(t *testing.T) {
	dir := tree(t)
	for _, c := range []struct{ failDir, failFile, path string }{
		{failDir: "d06/s1", path: "d06/s1"},
		{failDir: "chain/0/1/2/3/4/5/6/7/8/9", path: "chain/0/1/2/3/4/5/6/7/8/9"},
		{failFile: "d07/s2/f3.go", path: "d07/s2/f3.go"},
		{failFile: "empty.go", path: "empty.go"},
	} {
		for _, s := range strategies {
			fsys := &faultyFS{FS: os.DirFS(dir), failDir: c.failDir, failFile: c.failFile}
			_, err := s.walk(fsys, 4)
			if !errors.Is(err, errInjected) || !strings.Contains(fmt.Sprint(err), c.path) {
				t.Errorf("%s, failing %s: got error %v, want the injected one naming it", s.name, c.path, err)
			}
		}
	}
}

// Catches: a parallel strategy that reads more than limit directories or
// files at once, at any depth of the walk (a budget per level instead of
// one for the whole walk).
func TestLimitHoldsForTheWholeWalk(t *testing.T) {
	dir := tree(t)
	for _, s := range strategies {
		for _, limit := range []int{1, 3} {
			fsys := &faultyFS{FS: os.DirFS(dir), yield: true}
			if _, err := s.walk(fsys, limit); err != nil {
				t.Fatal(err)
			}
			if most := fsys.most.Load(); most > int64(limit) {
				t.Errorf("%s, limit %d: %d reads at once", s.name, limit, most)
			}
		}
	}
}

// Catches: a command that prints wrong totals or leaves a strategy out of
// its table, and flags it accepts that it should refuse.
func TestCommand(t *testing.T) {
	dir := tree(t)
	want := reference(t, dir)
	o, err := parseFlags([]string{"-root", dir, "-strategy", "all", "-runs", "3", "-limit", "2"}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := run(o, os.DirFS(dir), &out); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	if !strings.Contains(text, fmt.Sprintf("%d .go files, %d lines", want.Files, want.Lines)) {
		t.Errorf("output does not give the totals %+v:\n%s", want, text)
	}
	for _, s := range strategies {
		if !strings.Contains(text, "\n"+s.name+" ") {
			t.Errorf("output has no line for %s:\n%s", s.name, text)
		}
	}
	if !strings.Contains(text, "x walkdir") {
		t.Errorf("output has no speedup over walkdir:\n%s", text)
	}
	for _, args := range [][]string{
		{"-strategy", "nope"},
		{"-runs", "0"},
		{"-limit", "0"},
		{"-root", dir, "extra"},
	} {
		if _, err := parseFlags(args, &bytes.Buffer{}); err == nil {
			t.Errorf("parseFlags(%q) accepted it", args)
		}
	}
	if err := run(o, &faultyFS{FS: os.DirFS(dir), failDir: "d02"}, &bytes.Buffer{}); !errors.Is(err, errInjected) {
		t.Errorf("run on an unreadable directory: %v, want the injected error", err)
	}
}
