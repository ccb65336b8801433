package deque

import (
	"testing"

	"go.uber.org/goleak"
)

// The stress, linearizability and fuzz tests start goroutines; every one of
// them must have exited when the package's tests end.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
