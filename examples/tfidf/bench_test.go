package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parloop/parloop/par"
)

// gorootSrc returns $(go env GOROOT)/src, skipping the test or benchmark if
// there is none.
func gorootSrc(tb testing.TB) string {
	tb.Helper()
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		tb.Skipf("go env GOROOT: %v", err)
	}
	src := filepath.Join(strings.TrimSpace(string(out)), "src")
	if _, err := os.Stat(filepath.Join(src, "runtime", "proc.go")); err != nil {
		tb.Skipf("no Go source tree: %v", err)
	}
	return src
}

// BenchmarkBuild builds the index of GOROOT/src sequentially and with
// parloop's default strategy, in turn when run with -count, reporting each
// build's CPU time (cpu-ns/op) beside its wall time: their ratio is the
// work the parallel build adds.
func BenchmarkBuild(b *testing.B) {
	c, err := walk(gorootSrc(b))
	if err != nil {
		b.Fatal(err)
	}
	warm(c)
	pool := par.NewPool()
	defer pool.Close()
	for _, name := range []string{"sequential", "stealing"} {
		b.Run(name, func(b *testing.B) {
			cpu0 := processCPU()
			for b.Loop() {
				buildWith(b, c, name, pool)
			}
			b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N), "cpu-ns/op")
		})
	}
}

// BenchmarkCount tokenises and counts the terms of GOROOT/src/runtime's
// files, read beforehand: the first phase's work per file, without the
// reads.
func BenchmarkCount(b *testing.B) {
	dir := filepath.Join(gorootSrc(b), "runtime")
	ents, err := os.ReadDir(dir)
	if err != nil {
		b.Fatal(err)
	}
	var files [][]byte
	var size int64
	for _, e := range ents {
		if !e.Type().IsRegular() {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			b.Fatal(err)
		}
		files = append(files, data)
		size += int64(len(data))
	}
	fc := newFileCounter()
	b.SetBytes(size)
	for b.Loop() {
		for _, f := range files {
			fc.count(f)
		}
	}
}

// BenchmarkSearch answers queries on the index of GOROOT/src: the
// default query, the three of TestGorootQueries, and a query of the most
// common words.
func BenchmarkSearch(b *testing.B) {
	c, err := walk(gorootSrc(b))
	if err != nil {
		b.Fatal(err)
	}
	x := buildWith(b, c, "sequential", nil)
	for _, q := range []string{"goroutine channel select", "work stealing deque", "goroutine preemption signal", "escape analysis", "the func return if err nil"} {
		terms := queryTerms(strings.Fields(q))
		b.Run(strings.ReplaceAll(q, " ", "_"), func(b *testing.B) {
			for b.Loop() {
				x.Search(terms, 10)
			}
		})
	}
}
