package par

import "github.com/parloop/parloop/par/internal/platform"

// Short names for the white-box tests.
var (
	goroutineKey = platform.GoroutineKey
	getProfLabel = platform.ProfLabel
)
