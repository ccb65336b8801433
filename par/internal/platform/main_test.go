package platform

import (
	"testing"

	"go.uber.org/goleak"
)

// The tests start goroutines (saturating the Ps, reading their keys): none
// may be left behind.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
