package iter

import (
	"flag"
	"fmt"
	"os"
	"testing"

	"github.com/parloop/parloop/par"
	"go.uber.org/goleak"
)

// long runs the tests over bigger inputs (go test ./iter -long); CI passes
// it, under -race. Without it the package's tests stay within seconds under
// -race, with smaller inputs still under the race detector.
var long = flag.Bool("long", false, "run the tests over bigger inputs")

// longOr is full with -long, else short, or shortRace under the race
// detector, where each step costs several times more.
func longOr(full, short, shortRace int) int {
	switch {
	case *long:
		return full
	case raceEnabled:
		return shortRace
	}
	return short
}

// TestMain checks that nothing is left running once every test has finished
// and the default pool (which lives for the process) is closed.
func TestMain(m *testing.M) {
	code := m.Run()
	par.Default().Close()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintf(os.Stderr, "goleak: goroutines left after every test:\n%v\n", err)
			code = 1
		}
	}
	os.Exit(code)
}

// noLeaks returns a check, for defer, that every goroutine started since it
// was called has stopped, other than the default pool's workers (which
// start on first use and live until TestMain closes the pool).
func noLeaks(t *testing.T) func() {
	cur := goleak.IgnoreCurrent()
	return func() {
		goleak.VerifyNone(t, cur,
			goleak.IgnoreAnyFunction("github.com/parloop/parloop/par.(*Pool).workerMain"))
	}
}
