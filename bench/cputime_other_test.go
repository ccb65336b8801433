//go:build !unix

package bench

import "time"

// cpuTime is unavailable here; the cpu-ns/op metric is then left out.
func cpuTime() time.Duration { return 0 }
