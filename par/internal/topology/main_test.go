package topology

import (
	"testing"

	"go.uber.org/goleak"
)

// The tests read captures on several goroutines at once (prefetchCaptures):
// none may outlive them.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
