// Command dirwalk counts the lines of every .go file under a directory,
// walking it with par.ScopeErr: a task per directory, which spawns a task
// per subdirectory as it finds them, on at most -limit goroutines of the
// scope's own (par.Blocking), so the file reads block those goroutines and
// never the pool's workers, and the whole walk, however deep, has one
// budget. It checks that the totals are those of a sequential walk and
// prints them with the time.
//
//	go run ./examples/dirwalk                          # $(go env GOROOT)/src
//	go run ./examples/dirwalk -root .                  # any directory
//	go run ./examples/dirwalk -strategy all -runs 9    # every strategy, alternated, medians
//
// Strategies (-strategy, a comma-separated list, or all):
//
//	scope    par.ScopeErr with Blocking(limit): a task per directory (the default)
//	walkdir  fs.WalkDir on one goroutine, filepath.WalkDir's walk
//	gosem    a goroutine per directory, a channel semaphore of capacity limit
//	         around its reads, a WaitGroup: the usual hand-written fan-out
//
// Each directory's task lists it, reads its .go files (regular files only:
// symbolic links are neither followed nor counted, as filepath.WalkDir
// does) and adds their lines; gosem does the same per goroutine, so the
// two differ only in how they spread the directories. A line is a newline,
// or a last line without one. The first error (an unreadable directory or
// file) stops the walk and is reported with its path; the command then
// exits with status 1.
//
// Before the timed walks the tree is walked once sequentially, untimed:
// the reference totals, and a warm file cache. With -runs N each strategy
// walks N times, the strategies in turn within each round (the first of a
// round changes from round to round), and the table shows each one's
// median time and range and, paired by round, its speedup over walkdir.
//
// # Figures
//
// On 2 cores (GOMAXPROCS=2, a shared machine), Go 1.26.8's source tree
// (7,711 .go files, 2,854,391 lines), warm cache, limit 16, 15 alternated
// rounds (go run ./examples/dirwalk -strategy all -runs 15; the output is
// in bench/raw/scope-examples/dirwalk-b.txt), medians:
//
//	scope    207 ms   1.25x walkdir (paired by round)
//	gosem    233 ms   1.04x walkdir
//	walkdir  258 ms
//
// The walk is mostly file-system calls, which two cores barely speed up;
// the scope is as fast as the hand-written fan-out (faster in each of
// three such runs: 0.77 to 0.94 of its median time), with one budget of
// -limit goroutines for the whole walk and no goroutine per directory.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"runtime"
	"strings"

	"github.com/parloop/parloop/examples/internal/rounds"
	"github.com/parloop/parloop/par"
)

// options are the command's flags.
type options struct {
	root  string
	names []string // the strategies, in order
	runs  int
	limit int
}

func parseFlags(args []string, stderr io.Writer) (*options, error) {
	var o options
	var list string
	fs := flag.NewFlagSet("dirwalk", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.root, "root", "", "the `directory` to walk (default $(go env GOROOT)/src)")
	fs.StringVar(&list, "strategy", "scope", "how to walk: a comma-separated `list` of "+strings.Join(strategyNames(), ",")+", or all")
	fs.IntVar(&o.runs, "runs", 1, "walk this many `times` with each strategy, the strategies in turn, and report the medians")
	fs.IntVar(&o.limit, "limit", 16, "the most directories read at once")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q (the directory is given with -root)", fs.Arg(0))
	}
	var err error
	if o.names, err = rounds.Names(list, strategyNames()); err != nil {
		return nil, err
	}
	if o.runs < 1 {
		return nil, fmt.Errorf("-runs %d: want at least 1", o.runs)
	}
	if o.limit < 1 {
		return nil, fmt.Errorf("-limit %d: want at least 1", o.limit)
	}
	if o.root == "" {
		out, err := exec.Command("go", "env", "GOROOT").Output()
		if err != nil {
			return nil, fmt.Errorf("go env GOROOT: %v (give -root)", err)
		}
		o.root = strings.TrimSpace(string(out)) + "/src"
	}
	return &o, nil
}

func strategyNames() []string {
	names := make([]string, len(strategies))
	for i, s := range strategies {
		names[i] = s.name
	}
	return names
}

// run walks o.root with each strategy o.runs times and prints the totals
// and the times to stdout.
func run(o *options, fsys fs.FS, stdout io.Writer) error {
	want, err := walkSequential(fsys, 1) // the reference; warms the file cache
	if err != nil {
		return err
	}
	times, err := rounds.Run(len(o.names), o.runs, func(i int) error {
		s, _ := strategyNamed(o.names[i])
		got, err := s.walk(fsys, o.limit)
		if err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
		if got != want {
			return fmt.Errorf("%s counted %d files and %d lines; the sequential walk %d and %d", s.name, got.Files, got.Lines, want.Files, want.Lines)
		}
		return nil
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s: %d .go files, %d lines\n", o.root, want.Files, want.Lines)
	fmt.Fprintf(stdout, "%d workers (GOMAXPROCS=%d), limit %d, %d run(s) each\n", par.Default().Workers(), runtime.GOMAXPROCS(0), o.limit, o.runs)
	rounds.Print(stdout, o.names, times, "walkdir")
	return nil
}

func main() {
	o, err := parseFlags(os.Args[1:], os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		os.Exit(2)
	}
	if err == nil {
		var info os.FileInfo
		if info, err = os.Stat(o.root); err == nil && !info.IsDir() {
			err = fmt.Errorf("-root %s: not a directory", o.root)
		}
	}
	if err == nil {
		err = run(o, os.DirFS(o.root), os.Stdout)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "dirwalk:", err)
		os.Exit(1)
	}
}
