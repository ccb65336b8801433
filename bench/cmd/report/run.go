package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// Phase is one group of benchmarks of the report. It runs Rounds times;
// each round runs the compiled test binary once per benchmark function and
// GOMAXPROCS value, with -test.count 1, so that the samples of every
// benchmark alternate across rounds and worker counts (A, B, A, B, ...)
// instead of coming in a block.
//
// Why not `go test -cpu 1,2 -count N`: the testing package runs the -cpu and
// -count loops inside each leaf sub-benchmark, so the samples of one leaf
// come back to back and never alternate with its pair; and the first sample
// of every leaf comes from run1, which runs at whatever GOMAXPROCS the
// previous leaf left (a benchmark slower than -benchtime is never run again,
// so its "P=1" sample was measured at P=2). A fresh process per GOMAXPROCS,
// with GOMAXPROCS set in its environment, has neither problem.
//
// Why a process per benchmark function: the garbage collector paces itself
// on the live heap, so an allocation-heavy benchmark (a closure per fork)
// runs at very different speeds after a benchmark that left 80 MB of
// inputs alive than after one that did not. Each function in its own
// process sees only its own inputs.
type Phase struct {
	Name      string   // raw output goes to raw/<Name>.txt
	Benches   []string // benchmark functions, without "Benchmark"
	CPU       []int    // GOMAXPROCS values, one process each per round
	Rounds    int
	Benchtime string
	Short     bool
	// Benchstat are the benchstat invocations over the phase's output.
	Benchstat []BenchstatView
}

// BenchstatView is one benchstat invocation over a phase's raw output.
type BenchstatView struct {
	Title, Filter, Col string
}

// Args are the test binary's arguments for one process: benchmark function
// bench.
func (p Phase) Args(bench string) []string {
	args := []string{"-test.run", "^$", "-test.bench", "^Benchmark" + bench + "$", "-test.benchmem",
		"-test.count", "1", "-test.benchtime", p.Benchtime, "-test.timeout", "30m"}
	if p.Short {
		args = append(args, "-test.short")
	}
	return args
}

// Command is the phase as a shell command line, for RESULTS.md.
func (p Phase) Command() string {
	var b strings.Builder
	fmt.Fprintf(&b, "for round in $(seq %d); do for B in %s; do for P in %s; do GOMAXPROCS=$P ./bench.test",
		p.Rounds, strings.Join(p.Benches, " "), strings.ReplaceAll(joinInts(p.CPU), ",", " "))
	for _, a := range p.Args("$B") {
		switch {
		case strings.Contains(a, "$B"):
			a = `"` + strings.ReplaceAll(a, "$B$", `$B\$`) + `"`
		case strings.ContainsAny(a, "^$|()*? "):
			a = "'" + a + "'"
		}
		b.WriteString(" " + a)
	}
	b.WriteString("; done; done; done")
	return b.String()
}

func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ",")
}

// buildTestBinary compiles the benchmarks once: `go test -c`, with the tag
// under which the library reads PARLOOP_EXPERIMENT.
func buildTestBinary(dir, out string) error {
	cmd := exec.Command("go", "test", "-tags", "parloop_experiments", "-c", "-o", out, ".")
	cmd.Dir = dir
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go test -c: %v\n%s", err, b)
	}
	return nil
}

// retryBudget bounds the time spent running processes again because
// other processes took the machine while they ran.
type retryBudget struct {
	left  time.Duration
	count int
}

// run executes the phase's rounds with the test binary bin, in dir,
// appending the kept output to rawPath and echoing result lines to progress.
// env adds variables. A failing process (a peer's wrong result is a b.Fatal)
// fails the phase.
//
// A process during which other processes took more than contendedShare of
// the machine is run again while budget lasts: the decision rests on the
// machine's load alone, never on the timings, and the discarded output is
// kept in raw/<phase>.discarded.txt. It returns the load over the kept runs.
func (p Phase) run(bin, dir, rawPath string, env []string, progress io.Writer, budget *retryBudget) (string, error) {
	f, err := os.Create(rawPath)
	if err != nil {
		return "", err
	}
	defer f.Close()
	var kept, all cpuSpan
	retried := 0
	for r := 1; r <= p.Rounds; r++ {
		for _, bench := range p.Benches {
			for _, procs := range p.CPU {
				if err := p.runRetrying(bin, dir, bench, r, procs, env, f, progress, budget, &kept, &all, &retried); err != nil {
					return "", fmt.Errorf("%v (output in %s)", err, rawPath)
				}
			}
		}
	}
	load := kept.String()
	if retried > 0 {
		load += fmt.Sprintf("; %d runs discarded and run again because other processes took more than %.0f%% of the machine (discarded output in %s)",
			retried, 100*contendedShare, filepath.Base(strings.TrimSuffix(rawPath, ".txt")+".discarded.txt"))
	}
	return load, nil
}

// runRetrying runs one process of the phase, again while other processes
// took the machine and the budget lasts, and appends the kept output to f.
func (p Phase) runRetrying(bin, dir, bench string, r, procs int, env []string, f *os.File, progress io.Writer,
	budget *retryBudget, kept, all *cpuSpan, retried *int) error {
	for {
		fmt.Fprintf(progress, "report: %s round %d/%d, %s, GOMAXPROCS=%d\n", p.Name, r, p.Rounds, bench, procs)
		var out bytes.Buffer
		before := takeCPUSnapshot()
		err := runOnce(bin, dir, p.Args(bench), append(env, fmt.Sprintf("GOMAXPROCS=%d", procs)), &out, progress)
		span := spanOf(before, takeCPUSnapshot())
		all.add(span)
		if err != nil {
			_, _ = f.Write(out.Bytes())
			return fmt.Errorf("%s, %s (round %d, GOMAXPROCS=%d): %v", p.Name, bench, r, procs, err)
		}
		if span.share() > contendedShare && budget.left > span.wall {
			budget.left -= span.wall
			budget.count++
			*retried++
			fmt.Fprintf(progress, "report: other processes took %.0f%% of the machine; running it again\n", 100*span.share())
			if err := appendFile(strings.TrimSuffix(f.Name(), ".txt")+".discarded.txt", out.Bytes()); err != nil {
				return err
			}
			continue
		}
		kept.add(span)
		_, err = f.Write(out.Bytes())
		return err
	}
}

func appendFile(path string, b []byte) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = f.Write(b)
	return err
}

func runOnce(bin, dir string, args, env []string, raw, progress io.Writer) error {
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	pr, pw := io.Pipe()
	cmd.Stdout = pw
	cmd.Stderr = pw
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			fmt.Fprintln(raw, line)
			if strings.HasPrefix(line, "Benchmark") || strings.Contains(line, "FAIL") ||
				strings.Contains(line, "panic") || strings.HasPrefix(line, "    ") {
				fmt.Fprintln(progress, "  "+shorten(line))
			}
		}
		_, _ = io.Copy(io.Discard, pr)
	}()
	err := cmd.Run()
	pw.Close()
	<-done
	return err
}

// shorten keeps a result line's name and time for the progress output.
func shorten(line string) string {
	f := strings.Fields(line)
	if len(f) >= 4 && strings.HasPrefix(f[0], "Benchmark") && f[3] == "ns/op" {
		return fmt.Sprintf("%-60s %14s ns/op", f[0], f[2])
	}
	return line
}

// benchstatPath finds benchstat on PATH or in the Go bin directory.
func benchstatPath() string {
	if p, err := exec.LookPath("benchstat"); err == nil {
		return p
	}
	gobin := os.Getenv("GOBIN")
	if gobin == "" {
		if out, err := exec.Command("go", "env", "GOPATH").Output(); err == nil {
			gobin = filepath.Join(strings.TrimSpace(string(out)), "bin")
		}
	}
	p := filepath.Join(gobin, "benchstat")
	if _, err := os.Stat(p); err == nil {
		return p
	}
	return ""
}

// runBenchstat runs benchstat over a raw file for one view.
func runBenchstat(bin, raw string, v BenchstatView) (string, error) {
	args := []string{}
	if v.Filter != "" {
		args = append(args, "-filter", v.Filter)
	}
	if v.Col != "" {
		args = append(args, "-col", v.Col)
	}
	args = append(args, raw)
	out, err := exec.Command(bin, args...).CombinedOutput()
	return string(out), err
}

// Machine describes where the run happened, for the header of RESULTS.md.
type Machine struct {
	Model, GoVersion, Kernel, Commit string
	CPUs                             int
	Date                             time.Time
}

func describeMachine(dir string) Machine {
	m := Machine{CPUs: runtime.NumCPU(), Date: time.Now().UTC(), Model: "unknown"}
	if out, err := exec.Command("lscpu").Output(); err == nil {
		for _, l := range strings.Split(string(out), "\n") {
			if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "Model name" {
				m.Model = strings.TrimSpace(v)
				break
			}
		}
	}
	if out, err := exec.Command("go", "version").Output(); err == nil {
		m.GoVersion = strings.TrimSpace(string(out))
	}
	if out, err := exec.Command("uname", "-sr").Output(); err == nil {
		m.Kernel = strings.TrimSpace(string(out))
	}
	// The library the benchmarks compiled against: wherever the replace
	// directive (or a -modfile in GOFLAGS) points, and what of par/ differs
	// from its commit there.
	lib := filepath.Join(dir, "..")
	if out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/parloop/parloop").Output(); err == nil {
		lib = strings.TrimSpace(string(out))
	}
	m.Commit = "unknown (not a git checkout)"
	cmd := exec.Command("git", "-C", lib, "rev-parse", "--short", "HEAD")
	if out, err := cmd.Output(); err == nil {
		m.Commit = strings.TrimSpace(string(out))
		st, _ := exec.Command("git", "-C", lib, "status", "--porcelain", "--", "par").Output()
		if n := len(strings.Fields(string(st))) / 2; n > 0 {
			m.Commit += fmt.Sprintf(" plus %d uncommitted or untracked paths under par/", n)
		} else {
			m.Commit += ", par/ clean"
		}
	}
	return m
}

// requireList reads the require lines of a go.mod, for the peer versions.
func requireList(gomod []byte) map[string]string {
	req := map[string]string{}
	for _, l := range bytes.Split(gomod, []byte("\n")) {
		f := strings.Fields(strings.TrimPrefix(strings.TrimSpace(string(l)), "require "))
		if len(f) >= 2 && strings.Contains(f[0], ".") && strings.HasPrefix(f[1], "v") {
			req[f[0]] = f[1]
		}
	}
	return req
}

// writeCore copies a raw output keeping, on result lines, only ns/op, B/op
// and allocs/op: benchstat prints one table per unit, and the scheduler
// metrics would bury the times. The full metrics stay in the raw file.
func writeCore(raw, core string) error {
	in, err := os.ReadFile(raw)
	if err != nil {
		return err
	}
	var b strings.Builder
	for _, l := range strings.Split(string(in), "\n") {
		f := strings.Fields(l)
		if !strings.HasPrefix(l, "Benchmark") || len(f) < 4 {
			if strings.HasPrefix(l, "goos:") || strings.HasPrefix(l, "goarch:") || strings.HasPrefix(l, "pkg:") || strings.HasPrefix(l, "cpu:") {
				b.WriteString(l + "\n")
			}
			continue
		}
		b.WriteString(f[0] + "\t" + f[1])
		for i := 2; i+1 < len(f); i += 2 {
			switch f[i+1] {
			case "ns/op", "B/op", "allocs/op":
				b.WriteString("\t" + f[i] + " " + f[i+1])
			}
		}
		b.WriteString("\n")
	}
	return os.WriteFile(core, []byte(b.String()), 0o644)
}
