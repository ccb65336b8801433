package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// tree writes a small tree of files under t.TempDir: nested directories,
// many files, one binary file, and lines that match "needle".
func tree(t *testing.T) string {
	dir := t.TempDir()
	for d := range 5 {
		for f := range 40 {
			var b strings.Builder
			for l := range 30 {
				if (d+f+l)%7 == 0 {
					fmt.Fprintf(&b, "line %d has a needle in dir %d file %d\n", l, d, f)
				} else {
					fmt.Fprintf(&b, "line %d is hay\n", l)
				}
			}
			path := filepath.Join(dir, fmt.Sprintf("d%d", d), "sub", fmt.Sprintf("f%02d.txt", f))
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	os.WriteFile(filepath.Join(dir, "bin.dat"), []byte("needle\x00needle\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "last"), []byte("no newline needle"), 0o644)
	return dir
}

// Catches: lines out of the walk's order, missed or doubled matches, wrong
// line numbers, binary files printed.
func TestOutputIsSequentialGrep(t *testing.T) {
	dir := tree(t)
	var want bytes.Buffer
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if d.Type().IsRegular() && filepath.Base(path) != "bin.dat" {
			data, _ := os.ReadFile(path)
			for i, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
				if strings.Contains(line, "needle") {
					fmt.Fprintf(&want, "%s:%d:%s\n", path, i+1, line)
				}
			}
		}
		return nil
	})
	var out, errs bytes.Buffer
	rep, err := run(regexp.MustCompile("needle"), dir, &out, &errs)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out.Bytes(), want.Bytes()) {
		t.Fatalf("output differs from a sequential grep -rn:\n got %d bytes\nwant %d bytes", out.Len(), want.Len())
	}
	if errs.Len() != 0 || !strings.Contains(rep, "202 files") || !strings.Contains(rep, "outputs identical") {
		t.Fatalf("report %q, stderr %q", rep, errs.String())
	}
}
