package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// Tidying go.mod after -fix.
//
// A rewrite can remove the last import of a module (errgroup's
// golang.org/x/sync) or add the first of one (par). An analyzer's fixes
// edit Go files only, so with -fix (and without -diff) parvet runs the
// analysis in a child process and afterwards asks `go mod tidy -diff`
// whether the current directory's module still matches its imports. If it
// did before the fixes and does not after, parvet runs `go mod tidy`: the
// changes it makes are then the fixes' own. A module that was not tidy
// before is left alone, and so is one where the go command fails (offline,
// say): parvet says so and leaves the command to the user.

// childEnv marks the child process, which runs the analysis itself.
const childEnv = "PARVET_CHILD"

// fixing reports whether args ask for fixes to be written: -fix without
// -diff. go vet's -vettool protocol never passes -fix.
func fixing(args []string) bool {
	fix, diff := false, false
	for _, a := range args {
		if a == "--" || !strings.HasPrefix(a, "-") {
			break
		}
		name, val, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
		on := !hasVal || val == "true" || val == "1"
		switch name {
		case "fix":
			fix = on
		case "diff":
			diff = on
		}
	}
	return fix && !diff
}

// fixAndTidy runs parvet with args in a child process and tidies the
// module's go.mod afterwards, as described above. It returns the child's
// exit code.
func fixAndTidy(args []string) int {
	gomod := goEnvGOMOD()
	wasTidy := gomod != "" && tidyDiff() == nil
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintf(os.Stderr, "parvet: %v\n", err)
		return 1
	}
	cmd := exec.Command(self, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.Env = append(os.Environ(), childEnv+"=1")
	code := 0
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			fmt.Fprintf(os.Stderr, "parvet: %v\n", err)
			return 1
		}
		code = ee.ExitCode()
	}
	if !wasTidy {
		return code
	}
	if err := tidyDiff(); err == nil {
		return code
	}
	out, err := exec.Command("go", "mod", "tidy").CombinedOutput()
	if err != nil {
		fmt.Fprintf(os.Stderr, "parvet: the fixes changed the imports of %s, and `go mod tidy` failed (run it once it can):\n%s", gomod, out)
		return max(code, 1)
	}
	fmt.Fprintf(os.Stderr, "parvet: ran `go mod tidy` in %s: the fixes changed which modules the code imports\n", gomod)
	return code
}

// goEnvGOMOD returns the go.mod of the current directory's module, or "".
func goEnvGOMOD() string {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return ""
	}
	p := string(bytes.TrimSpace(out))
	if p == os.DevNull {
		return ""
	}
	return p
}

// tidyDiff runs `go mod tidy -diff`: nil when go.mod and go.sum are tidy.
func tidyDiff() error {
	return exec.Command("go", "mod", "tidy", "-diff").Run()
}
