package main

import (
	"bytes"
	"context"
	"io"
	"io/fs"
	"path"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/parloop/parloop/par"
)

// Totals is what a walk counts: the .go files under the root and their
// lines.
type Totals struct {
	Files, Lines int64
}

// A strategy walks fsys from "." with at most limit directories read at
// once (the sequential walk reads one), and returns the totals and the
// first error it met; after an error the totals are those counted so far.
type strategy struct {
	name string
	walk func(fsys fs.FS, limit int) (Totals, error)
	doc  string
}

var strategies = []strategy{
	{"scope", walkScope, "par.ScopeErr with Blocking(limit): a task per directory, spawning a task per subdirectory"},
	{"walkdir", walkSequential, "fs.WalkDir on one goroutine (filepath.WalkDir's walk)"},
	{"gosem", walkGoSem, "a goroutine per directory, at most limit reading at once (a channel semaphore), a WaitGroup, the first error cancelling the rest"},
}

// strategyNamed returns the strategy called name.
func strategyNamed(name string) (strategy, bool) {
	for _, s := range strategies {
		if s.name == name {
			return s, true
		}
	}
	return strategy{}, false
}

// isGoFile reports whether a directory entry is a regular file named *.go.
// Symbolic links are neither followed nor counted, as filepath.WalkDir
// does.
func isGoFile(e fs.DirEntry) bool {
	return e.Type().IsRegular() && strings.HasSuffix(e.Name(), ".go")
}

// buffers holds the read buffers of countLines, one per concurrent read.
var buffers = sync.Pool{New: func() any { return new([32 << 10]byte) }}

// countLines returns the number of lines in the file name: its newlines,
// plus one if it ends with a line that has none.
func countLines(fsys fs.FS, name string) (int64, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	buf := buffers.Get().(*[32 << 10]byte)
	defer buffers.Put(buf)
	var lines int64
	last := byte('\n')
	for {
		n, err := f.Read(buf[:])
		if n > 0 {
			lines += int64(bytes.Count(buf[:n], []byte{'\n'}))
			last = buf[n-1]
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return 0, &fs.PathError{Op: "read", Path: name, Err: err}
		}
	}
	if last != '\n' {
		lines++
	}
	return lines, nil
}

// readDir reads the directory name and counts the lines of its .go files,
// adding them to t; it returns the subdirectories' paths. Every parallel
// strategy runs it once per directory, so they differ only in how they
// spread the directories.
func readDir(fsys fs.FS, name string, t *atomicTotals) (subdirs []string, err error) {
	entries, err := fs.ReadDir(fsys, name)
	if err != nil {
		return nil, err
	}
	var files, lines int64
	for _, e := range entries {
		p := path.Join(name, e.Name())
		switch {
		case e.IsDir():
			subdirs = append(subdirs, p)
		case isGoFile(e):
			n, err := countLines(fsys, p)
			if err != nil {
				return nil, err
			}
			files++
			lines += n
		}
	}
	t.files.Add(files)
	t.lines.Add(lines)
	return subdirs, nil
}

// atomicTotals is Totals that concurrent directory reads add to.
type atomicTotals struct{ files, lines atomic.Int64 }

func (t *atomicTotals) load() Totals { return Totals{t.files.Load(), t.lines.Load()} }

// walkScope walks fsys with a scope: a task per directory, which spawns a
// task per subdirectory. With Blocking(limit) the tasks run on at most
// limit goroutines of the scope's own, so the reads block those, never
// the pool's workers, and the whole walk, however deep, reads at most
// limit directories at once. The first error stops new tasks and is
// returned once the running ones have returned.
func walkScope(fsys fs.FS, limit int) (Totals, error) {
	var t atomicTotals
	err := par.ScopeErr(context.Background(), func(ctx context.Context, s *par.ErrSpawner) error {
		var visit func(name string) error
		visit = func(name string) error {
			subdirs, err := readDir(fsys, name, &t)
			for _, d := range subdirs {
				s.Go(func() error { return visit(d) })
			}
			return err
		}
		return visit(".")
	}, par.Blocking(limit))
	return t.load(), err
}

// walkSequential walks fsys on one goroutine with fs.WalkDir, the walk of
// filepath.WalkDir, stopping at the first error.
func walkSequential(fsys fs.FS, _ int) (Totals, error) {
	var t Totals
	err := fs.WalkDir(fsys, ".", func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if isGoFile(e) {
			n, err := countLines(fsys, p)
			if err != nil {
				return err
			}
			t.Files++
			t.Lines += n
		}
		return nil
	})
	return t, err
}

// walkGoSem walks fsys the way it is written by hand in Go: a goroutine per
// directory, started as soon as the directory is found, a channel of
// capacity limit as a semaphore around each directory's reads, and a
// WaitGroup. The first error cancels the walk: directories not yet read
// are skipped.
func walkGoSem(fsys fs.FS, limit int) (Totals, error) {
	var (
		t       atomicTotals
		wg      sync.WaitGroup
		sem     = make(chan struct{}, limit)
		errOnce sync.Once
		first   error
		failed  atomic.Bool
	)
	var visit func(name string)
	visit = func(name string) {
		sem <- struct{}{}
		if failed.Load() {
			<-sem
			return
		}
		subdirs, err := readDir(fsys, name, &t)
		<-sem
		if err != nil {
			errOnce.Do(func() { first = err })
			failed.Store(true)
			return
		}
		for _, d := range subdirs {
			wg.Go(func() { visit(d) })
		}
	}
	visit(".")
	wg.Wait()
	return t.load(), first
}
