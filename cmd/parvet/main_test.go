package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The commands of the README, run as a user would from a clone: install
// parvet with `go install -C cmd/parvet .` from the repository's root, then
// run it in a module of the user's own (here a temporary one that requires
// parloop, replaced by this checkout) as `parvet ./...`, `go vet -vettool`
// and `parvet -fix ./...`. Everything comes from the module cache
// (GOPROXY=off): the test reaches nothing outside the machine.

const appGoMod = `module example.com/app

go 1.26.0

require (
	github.com/parloop/parloop v0.0.0
	golang.org/x/sync v0.24.0
)

replace github.com/parloop/parloop => %s
`

// sum.go: a race in an iter terminal's function.
const appSum = `package app

import "github.com/parloop/parloop/iter"

func Sum(xs []int) int {
	n := 0
	_ = iter.Slice(xs).ForEach(func(x int) { n += x })
	return n
}
`

// squares.go: an errgroup fan-out loop, errgroup's only use in the module.
const appSquares = `package app

import (
	"context"

	"golang.org/x/sync/errgroup"
)

func Squares(ctx context.Context, xs []int) ([]int, error) {
	out := make([]int, len(xs))
	g, ctx := errgroup.WithContext(ctx)
	for i, x := range xs {
		g.Go(func() error {
			if err := ctx.Err(); err != nil {
				return err
			}
			out[i] = x * x
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return out, nil
}
`

// Catches: the README's install command failing from the clone's root,
// parvet or go vet -vettool not reporting an iter race in another module,
// -fix not rewriting the fan-out loop, and go.mod still requiring
// golang.org/x/sync after the rewrite removed its last import.
func TestDocumentedCommands(t *testing.T) {
	if testing.Short() {
		t.Skip("builds parvet and type-checks a module with the go command")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	bin, app := t.TempDir(), t.TempDir()
	env := append(os.Environ(), "GOBIN="+bin, "GOPROXY=off", "GOSUMDB=off", "GOFLAGS=-mod=mod", "GOWORK=off", "GOTOOLCHAIN=local")
	run := func(dir string, name string, args ...string) (string, int) {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir, cmd.Env = dir, env
		out, err := cmd.CombinedOutput()
		code := 0
		if err != nil {
			ee, ok := err.(*exec.ExitError)
			if !ok {
				t.Fatalf("%s %v: %v", name, args, err)
			}
			code = ee.ExitCode()
		}
		return string(out), code
	}

	// From the clone's root, as the README says.
	if out, code := run(root, "go", "install", "-C", "cmd/parvet", "."); code != 0 {
		t.Fatalf("go install -C cmd/parvet . from the repository's root: exit %d\n%s", code, out)
	}
	parvet := filepath.Join(bin, "parvet")

	// The user's module: parloop's go.sum has every module parloop needs,
	// parvet's has golang.org/x/sync.
	var sum bytes.Buffer
	for _, f := range []string{filepath.Join(root, "go.sum"), "go.sum"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		sum.Write(b)
	}
	for name, text := range map[string]string{
		"go.mod":     strings.Replace(appGoMod, "%s", root, 1),
		"go.sum":     sum.String(),
		"sum.go":     appSum,
		"squares.go": appSquares,
	} {
		if err := os.WriteFile(filepath.Join(app, name), []byte(text), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	if out, code := run(app, "go", "mod", "tidy"); code != 0 {
		t.Fatalf("go mod tidy in the test module: exit %d\n%s", code, out)
	}

	race := "sum.go:7:43: iter.Pipe.ForEach function updates captured variable n with += (data race)"
	fan := "squares.go:12:2: fan-out loop (errgroup.Go per item) can be par.ForErr(ctx, len(xs), ...)"
	out, code := run(app, parvet, "./...")
	if code != 3 || !strings.Contains(out, race) || !strings.Contains(out, fan) {
		t.Errorf("parvet ./...: exit %d; want 3 with\n  %s\n  %s\ngot:\n%s", code, race, fan, out)
	}
	out, code = run(app, "go", "vet", "-vettool="+parvet, "./...")
	if code == 0 || !strings.Contains(out, race) {
		t.Errorf("go vet -vettool=parvet ./...: exit %d; want the race\n  %s\ngot:\n%s", code, race, out)
	}

	out, code = run(app, parvet, "-fix", "./...")
	if code == 1 {
		t.Fatalf("parvet -fix ./...: exit 1\n%s", out)
	}
	fixed, err := os.ReadFile(filepath.Join(app, "squares.go"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(fixed, []byte("par.ForErr(ctx, len(xs)")) || bytes.Contains(fixed, []byte("errgroup")) {
		t.Errorf("squares.go after -fix:\n%s", fixed)
	}
	mod, err := os.ReadFile(filepath.Join(app, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(mod, []byte("golang.org/x/sync")) || !strings.Contains(out, "ran `go mod tidy`") {
		t.Errorf("go.mod after -fix removed errgroup's last import (parvet said %q):\n%s", out, mod)
	}
	if out, code := run(app, "go", "build", "./..."); code != 0 {
		t.Errorf("the fixed module does not build: exit %d\n%s", code, out)
	}
}

// Catches: -fix -diff (which writes nothing) or a vet run taken for a
// fixing run, and -fix=false taken for -fix.
func TestFixing(t *testing.T) {
	for _, c := range []struct {
		args []string
		want bool
	}{
		{[]string{"-fix", "./..."}, true},
		{[]string{"--fix", "-parrace", "./..."}, true},
		{[]string{"-fix=true", "./..."}, true},
		{[]string{"-fix", "-diff", "./..."}, false},
		{[]string{"-fix=false", "./..."}, false},
		{[]string{"./...", "-fix"}, false}, // a flag after the patterns is a pattern
		{[]string{"-V=full"}, false},
		{[]string{"-flags"}, false},
		{[]string{"/tmp/vet.cfg"}, false},
	} {
		if got := fixing(c.args); got != c.want {
			t.Errorf("fixing(%q) = %v; want %v", c.args, got, c.want)
		}
	}
}
