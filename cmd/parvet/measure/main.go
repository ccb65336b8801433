// Command measure runs parvet over modules from the module proxy and
// measures its rewrites: for each module path@version it downloads the
// module (go mod download -json), copies it to a scratch directory, points
// it at a local copy of parloop, runs parvet -json (counting fan-out loops,
// rewrites offered and race diagnostics), builds and tests the packages that
// the fixes would touch, applies the fixes (parvet -fix, repeated while fixes
// remain), and builds and tests those packages again.
//
// Usage:
//
//	go run ./measure -parvet /path/to/parvet -parloop /path/to/parloop/checkout -out results mod@version ...
//	go run ./measure -parvet /path/to/parvet -out results -goroot
//	go run ./measure -parvet /path/to/parvet -out results -raceonly mod@version ...   # race diagnostics only
//
// It writes a line of JSON per module to out/results.jsonl and the race
// diagnostics to out/<module>.races.txt (for sampling by hand). Tests of
// third-party code run with -short, -p 1, -count=1, -vet=off (raising the
// module's go line to parloop's 1.26 turns on vet checks that old code
// fails, before any rewrite) and a timeout, only for the rewritten packages;
// when a package's tests time out, the test functions that hold the
// rewritten loops run by themselves (-run), before and after.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

var (
	parvet      = flag.String("parvet", "parvet", "the parvet binary")
	parloop     = flag.String("parloop", "", "a checkout of github.com/parloop/parloop to build the rewrites against")
	out         = flag.String("out", "measure-out", "output directory")
	goroot      = flag.Bool("goroot", false, "analyze $(go env GOROOT)/src (no rewrites are built)")
	testTime    = flag.Duration("testtimeout", 4*time.Minute, "go test -timeout for each package")
	noTests     = flag.Bool("notests", false, "build the rewritten packages but do not run their tests")
	raceOnly    = flag.Bool("raceonly", false, "run parvet -parrace only and record the race diagnostics (no fixes, builds or tests)")
	analyzeOnly = flag.Bool("analyzeonly", false, "run both analyzers and record their diagnostics (no fixes, builds or tests)")
	summary     = flag.Bool("summary", false, "print out/results.jsonl as a markdown table (the last line per module) and exit")
)

// Result is one module's line in results.jsonl.
type Result struct {
	Module          string
	Error           string   `json:",omitempty"`
	Packages        int      // packages with findings (keys of parvet -json)
	LoopsFound      int      // fanout diagnostics
	RewritesOffered int      // fanout diagnostics with a suggested fix
	RaceDiags       int      // parrace diagnostics
	Rewritten       []string // package directories changed by -fix
	FixesApplied    int      // loops rewritten in the files (par.For/ForErr calls added)
	BuildOK         []string // rewritten packages that build (package and tests)
	BuildFail       []string
	TestsBefore     map[string]string // pass/fail/timeout before the rewrite
	TestsAfter      map[string]string
	Seconds         float64
}

type diag struct {
	Posn           string `json:"posn"`
	Message        string `json:"message"`
	SuggestedFixes []any  `json:"suggested_fixes"`
}

func main() {
	flag.Parse()
	log.SetFlags(0)
	if *summary {
		printSummary()
		return
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		log.Fatal(err)
	}
	rf, err := os.OpenFile(filepath.Join(*out, "results.jsonl"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		log.Fatal(err)
	}
	defer rf.Close()
	emit := func(r *Result) {
		b, _ := json.Marshal(r)
		rf.Write(append(b, '\n'))
		log.Printf("%s: %d packages, %d loops, %d rewrites offered, %d race diagnostics, %d rewritten packages (%d build), error %q",
			r.Module, r.Packages, r.LoopsFound, r.RewritesOffered, r.RaceDiags, len(r.Rewritten), len(r.BuildOK), r.Error)
	}
	if *goroot {
		start := time.Now()
		src := filepath.Join(goEnv("GOROOT"), "src")
		r := &Result{Module: "GOROOT/src (" + goEnv("GOVERSION") + ")"}
		if *raceOnly {
			r.Module += " raceonly"
		}
		analyze(r, src, "goroot")
		r.Seconds = time.Since(start).Seconds()
		emit(r)
	}
	for _, m := range flag.Args() {
		start := time.Now()
		r := measure(m)
		r.Seconds = time.Since(start).Seconds()
		emit(r)
	}
}

func goEnv(k string) string {
	b, _ := exec.Command("go", "env", k).Output()
	return strings.TrimSpace(string(b))
}

func run(dir string, timeout time.Duration, name string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOTOOLCHAIN=local", "GOWORK=off")
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	err := cmd.Run()
	if ctx.Err() != nil {
		err = fmt.Errorf("timeout after %v", timeout)
	}
	return buf.String(), err
}

func safe(s string) string {
	return strings.NewReplacer("/", "_", "@", "_", " ", "_", "(", "", ")", "").Replace(s)
}

// analyze runs parvet -json in dir and fills the counts; it returns the
// directories of the packages with offered fixes.
// fixPosns holds the positions of the loops with fixes found by the last
// analyze call.
var fixPosns []string

func analyze(r *Result, dir, tag string) []string {
	fixPosns = nil
	args := []string{"-n", "19", *parvet, "-json", "./..."}
	if *raceOnly {
		args = []string{"-n", "19", *parvet, "-parrace", "-json", "./..."}
		tag += ".raceonly"
	}
	outp, _ := run(dir, 60*time.Minute, "nice", args...)
	os.WriteFile(filepath.Join(*out, safe(tag)+".json"), []byte(outp), 0o644)
	// The JSON tree is preceded or followed by error lines for packages that
	// do not type-check; find the object.
	start := strings.Index(outp, "{")
	var tree map[string]map[string]json.RawMessage
	if start < 0 || json.NewDecoder(strings.NewReader(outp[start:])).Decode(&tree) != nil {
		r.Error = "no JSON from parvet: " + firstLine(outp)
		return nil
	}
	var races, loops []string
	seen := map[string]bool{}
	dirs := map[string]bool{}
	r.Packages = len(tree)
	for _, byAnalyzer := range tree {
		for name, raw := range byAnalyzer {
			var ds []diag
			if json.Unmarshal(raw, &ds) != nil {
				continue // an error object
			}
			for _, d := range ds {
				key := name + d.Posn + d.Message
				if seen[key] {
					continue // same file in the package and its test variant
				}
				seen[key] = true
				switch name {
				case "fanout":
					r.LoopsFound++
					fix := ""
					if len(d.SuggestedFixes) > 0 {
						fix = " [fix]"
					}
					loops = append(loops, d.Posn+": "+d.Message+fix)
					if len(d.SuggestedFixes) > 0 {
						r.RewritesOffered++
						file := d.Posn[:strings.LastIndex(strings.TrimSuffix(d.Posn, ":"+lastField(d.Posn)), ":")]
						dirs[filepath.Dir(file)] = true
						fixPosns = append(fixPosns, d.Posn)
					}
				case "parrace":
					r.RaceDiags++
					races = append(races, d.Posn+": "+d.Message)
				}
			}
		}
	}
	sort.Strings(races)
	os.WriteFile(filepath.Join(*out, safe(tag)+".races.txt"), []byte(strings.Join(races, "\n")+"\n"), 0o644)
	if !*raceOnly {
		sort.Strings(loops)
		os.WriteFile(filepath.Join(*out, safe(tag)+".fanout.txt"), []byte(strings.Join(loops, "\n")+"\n"), 0o644)
	}
	var ds []string
	for d := range dirs {
		ds = append(ds, d)
	}
	sort.Strings(ds)
	return ds
}

func lastField(posn string) string {
	return posn[strings.LastIndex(posn, ":")+1:]
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.Index(s, "\n"); i >= 0 {
		return s[:i]
	}
	return s
}

func measure(modver string) *Result {
	r := &Result{Module: modver, TestsBefore: map[string]string{}, TestsAfter: map[string]string{}}
	if *raceOnly {
		r.Module += " raceonly"
	}
	b, err := exec.Command("go", "mod", "download", "-json", modver).Output()
	var info struct{ Dir, Error string }
	if err != nil || json.Unmarshal(b, &info) != nil || info.Dir == "" {
		r.Error = fmt.Sprintf("download: %v %s", err, info.Error)
		return r
	}
	work, err := os.MkdirTemp("", "measure-")
	if err != nil {
		r.Error = err.Error()
		return r
	}
	defer os.RemoveAll(work)
	dir := filepath.Join(work, "m")
	if err := copyTree(info.Dir, dir); err != nil {
		r.Error = "copy: " + err.Error()
		return r
	}
	if _, err := os.Stat(filepath.Join(dir, "go.mod")); err != nil {
		r.Error = "no go.mod"
		return r
	}
	// Replacements by local paths (a multi-module repository's siblings) do
	// not exist outside the repository: use the required versions instead.
	if o, err := run(dir, time.Minute, "go", "mod", "edit", "-json"); err == nil {
		var gm struct {
			Replace []struct {
				Old, New struct{ Path, Version string }
			}
		}
		if json.Unmarshal([]byte(o), &gm) == nil {
			for _, r := range gm.Replace {
				if strings.HasPrefix(r.New.Path, ".") || strings.HasPrefix(r.New.Path, "/") {
					old := r.Old.Path
					if r.Old.Version != "" {
						old += "@" + r.Old.Version
					}
					run(dir, time.Minute, "go", "mod", "edit", "-dropreplace="+old)
				}
			}
		}
	}
	if *raceOnly || *analyzeOnly {
		analyze(r, dir, modver)
		return r
	}
	// Build the rewrites against the local parloop; parloop needs go 1.26.
	if *parloop != "" {
		if o, err := run(dir, 10*time.Minute, "go", "mod", "edit", "-require=github.com/parloop/parloop@v0.0.0", "-replace=github.com/parloop/parloop="+*parloop); err != nil {
			r.Error = "go mod edit: " + o
			return r
		}
		run(dir, 10*time.Minute, "go", "mod", "edit", "-go=1.26.0", "-toolchain=none")
	}
	dirs := analyze(r, dir, modver)
	targets := testTargets(dir)
	if r.Error != "" || len(dirs) == 0 {
		return r
	}
	var pkgs []string
	for _, d := range dirs {
		rel, err := filepath.Rel(dir, d)
		if err != nil || strings.HasPrefix(rel, "..") {
			continue
		}
		pkgs = append(pkgs, "./"+filepath.ToSlash(rel))
	}
	if !*noTests {
		for _, p := range pkgs {
			t0 := time.Now()
			r.TestsBefore[p] = test(dir, p, targets[p])
			log.Printf("%s: tests before %s: %s (%.0fs)", modver, p, r.TestsBefore[p], time.Since(t0).Seconds())
		}
	}
	// Apply the fixes, in the packages that have some; conflicting fixes in
	// one file need another run.
	for i := 0; i < 4; i++ {
		o, _ := run(dir, 60*time.Minute, "nice", append([]string{"-n", "19", *parvet, "-fix"}, pkgs...)...)
		if !strings.Contains(o, "Re-run the command") {
			break
		}
	}
	changed, n := changedDirs(info.Dir, dir)
	r.FixesApplied = n
	for _, d := range changed {
		rel, _ := filepath.Rel(dir, d)
		p := "./" + filepath.ToSlash(rel)
		r.Rewritten = append(r.Rewritten, p)
		o1, err1 := run(dir, 20*time.Minute, "go", "build", p)
		if err1 != nil && strings.Contains(o1, "no non-test Go files") {
			err1 = nil // a package of tests only: the next command builds it
		}
		o3, err3 := run(dir, 20*time.Minute, "go", "test", "-vet=off", "-count=1", "-run", "^$", p)
		if err1 == nil && err3 == nil {
			r.BuildOK = append(r.BuildOK, p)
		} else {
			r.BuildFail = append(r.BuildFail, p)
			os.WriteFile(filepath.Join(*out, safe(modver+p)+".build.txt"), []byte(o1+o3), 0o644)
		}
		if !*noTests {
			if _, ok := r.TestsBefore[p]; !ok {
				r.TestsBefore[p] = "not run"
			}
			t0 := time.Now()
			r.TestsAfter[p] = test(dir, p, targets[p])
			log.Printf("%s: tests after %s: %s (%.0fs)", modver, p, r.TestsAfter[p], time.Since(t0).Seconds())
		}
	}
	// Keep the diff for inspection.
	if o, err := exec.Command("diff", "-ru", info.Dir, dir).CombinedOutput(); err != nil {
		os.WriteFile(filepath.Join(*out, safe(modver)+".diff"), o, 0o644)
	}
	return r
}

func test(dir, pkg string, targets []string) string {
	st := test1(dir, pkg, "")
	if st == "timeout" && len(targets) > 0 {
		// The package's tests take longer than the timeout: run the tests
		// that hold the rewritten loops.
		st += "; targeted " + test1(dir, pkg, "^("+strings.Join(targets, "|")+")$")
	}
	return st
}

func test1(dir, pkg, runRE string) string {
	args := []string{"-n", "19", "go", "test", "-vet=off", "-short", "-count=1", "-p", "1", "-timeout", testTime.String()}
	if runRE != "" {
		args = append(args, "-run", runRE)
	}
	o, err := run(dir, *testTime+time.Minute, "nice", append(args, pkg)...)
	switch {
	case err == nil && strings.Contains(o, "no test files"):
		return "no tests"
	case err == nil:
		return "pass"
	case strings.Contains(o, "panic: test timed out") || strings.Contains(err.Error(), "timeout"):
		return "timeout"
	case strings.Contains(o, "[build failed]") || strings.Contains(o, "[setup failed]"):
		return "build failed"
	}
	return "fail"
}

// testTargets maps each package directory ("./pkg") to the Test and
// Benchmark functions of its _test.go files that hold a loop with a fix.
func testTargets(dir string) map[string][]string {
	out := map[string][]string{}
	seen := map[string]bool{}
	for _, posn := range fixPosns {
		parts := strings.Split(posn, ":")
		if len(parts) < 3 || !strings.HasSuffix(parts[0], "_test.go") {
			continue
		}
		var line int
		fmt.Sscan(parts[1], &line)
		src, err := os.ReadFile(parts[0])
		if err != nil {
			continue
		}
		lines := strings.Split(string(src), "\n")
		for i := line - 1; i >= 0 && i < len(lines); i-- {
			l := lines[i]
			if strings.HasPrefix(l, "func Test") || strings.HasPrefix(l, "func Benchmark") {
				name := strings.TrimPrefix(l, "func ")
				name = name[:strings.IndexAny(name, "([ ")]
				rel, _ := filepath.Rel(dir, filepath.Dir(parts[0]))
				p := "./" + filepath.ToSlash(rel)
				if strings.HasPrefix(name, "Test") && !seen[p+name] {
					seen[p+name] = true
					out[p] = append(out[p], name)
				}
				break
			}
			if strings.HasPrefix(l, "func ") {
				break
			}
		}
	}
	return out
}

func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		t := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(t, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(t, b, 0o644)
	})
}

// changedDirs lists the directories whose .go files differ between the
// original and the copy, and counts the par calls the rewrite added.
func changedDirs(orig, copy string) ([]string, int) {
	dirs := map[string]bool{}
	added := 0
	filepath.WalkDir(copy, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") {
			return nil
		}
		rel, _ := filepath.Rel(copy, p)
		a, _ := os.ReadFile(filepath.Join(orig, rel))
		b, _ := os.ReadFile(p)
		if !bytes.Equal(a, b) {
			dirs[filepath.Dir(p)] = true
			added += strings.Count(string(b), "par.For(") + strings.Count(string(b), "par.ForErr(") -
				strings.Count(string(a), "par.For(") - strings.Count(string(a), "par.ForErr(")
		}
		return nil
	})
	var out []string
	for d := range dirs {
		out = append(out, d)
	}
	sort.Strings(out)
	return out, added
}

func printSummary() {
	b, err := os.ReadFile(filepath.Join(*out, "results.jsonl"))
	if err != nil {
		log.Fatal(err)
	}
	last := map[string]Result{}
	var order []string
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var r Result
		if json.Unmarshal([]byte(line), &r) != nil {
			continue
		}
		if _, ok := last[r.Module]; !ok {
			order = append(order, r.Module)
		}
		last[r.Module] = r
	}
	fmt.Println("| module | fan-out loops found | rewrites offered | loops rewritten | rewritten packages | build | tests pass before → after | race diagnostics |")
	fmt.Println("| --- | ---: | ---: | ---: | ---: | ---: | --- | ---: |")
	for _, m := range order {
		r := last[m]
		before, after := 0, 0
		var changed []string
		passing := func(st string) bool {
			return st == "pass" || st == "no tests" || strings.HasSuffix(st, "targeted pass")
		}
		for p, st := range r.TestsAfter {
			if passing(st) {
				after++
			}
			if passing(r.TestsBefore[p]) {
				before++
			}
			if st != r.TestsBefore[p] {
				changed = append(changed, fmt.Sprintf("%s: %s → %s", p, r.TestsBefore[p], st))
			}
		}
		sort.Strings(changed)
		tests := fmt.Sprintf("%d → %d", before, after)
		if len(changed) > 0 {
			tests += " (" + strings.Join(changed, "; ") + ")"
		}
		if len(r.TestsAfter) == 0 {
			tests = "—"
		}
		note := ""
		if r.Error != "" {
			note = " (" + r.Error + ")"
		}
		fmt.Printf("| %s%s | %d | %d | %d | %d | %d/%d | %s | %d |\n", m, note, r.LoopsFound, r.RewritesOffered, r.FixesApplied,
			len(r.Rewritten), len(r.BuildOK), len(r.Rewritten), tests, r.RaceDiags)
	}
}
