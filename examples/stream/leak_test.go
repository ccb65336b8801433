package main

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the run if a goroutine is left behind, other than the
// default pool's workers, which live as long as the program.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.IgnoreAnyFunction("github.com/parloop/parloop/par.(*Pool).workerMain"))
}
