package deque

import (
	"flag"
	"testing"

	"go.uber.org/goleak"
)

// long selects the long runs: more random programs, histories and stress
// rounds, and every schedule program explored to two preemptions. Without
// it each test runs the same checks on fewer inputs, sized so that the
// package's tests take a few seconds under the race detector. CI runs both.
var long = flag.Bool("long", false, "run the long stress, linearizability and schedule-exploration runs")

// sized returns n, or nLong under -long.
func sized(n, nLong int) int {
	if *long {
		return nLong
	}
	return n
}

// The stress, linearizability and fuzz tests start goroutines; every one of
// them must have exited when the package's tests end.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
