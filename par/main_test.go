package par

import (
	"flag"
	"fmt"
	"os"
	"testing"

	"go.uber.org/goleak"
)

// ImportTimeGoroutines is what goleak found at the start of TestMain, before
// any test has called into par: it must be nil, because the default pool
// starts on first use and never at import. It is exported (in test builds
// only) so that the black-box tests in package par_test can report it.
var ImportTimeGoroutines error

// longRun reports whether the long runs were asked for: the -long flag,
// which the black-box tests of package par_test define (helpers_test.go).
func longRun() bool {
	f := flag.Lookup("long")
	return f != nil && f.Value.String() == "true"
}

// TestMain checks the two goroutine rules of the package around the whole
// suite: nothing runs before the first call, and nothing is left once every
// pool, the default one included, is closed.
func TestMain(m *testing.M) {
	// Package initialisation has run, no test has: any goroutine here was
	// started at import.
	ImportTimeGoroutines = goleak.Find()

	code := m.Run()

	// The default pool lives for the whole process; close it so that its
	// workers are not reported as leaks.
	if p := defaultPool.p.Load(); p != nil {
		p.Close()
	}
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintf(os.Stderr, "goleak: goroutines left after every test finished and every pool was closed:\n%v\n", err)
			code = 1
		}
	}
	os.Exit(code)
}
