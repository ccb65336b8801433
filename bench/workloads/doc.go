// Package workloads holds the benchmark workloads of parloop's suite and the
// verifiers that check every peer's result. It knows nothing about peers or
// about parloop: each workload exposes a plain serial version, a body for one
// iteration, a body for a range with the loop inlined, and a Verify method.
//
// Sizes are parameters so that tests can run the same code small; the
// benchmark sizes are the constants of each file.
package workloads

import "fmt"

// mismatch formats a verification failure at index i.
func mismatch(what string, i int, got, want any) error {
	return fmt.Errorf("%s: wrong result at %d: got %v, want %v", what, i, got, want)
}
