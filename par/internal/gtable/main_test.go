package gtable

import (
	"testing"

	"go.uber.org/goleak"
)

// The stress tests start goroutines: none may be left behind.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
