//go:build parvet_testdata

// The build constraint keeps analysistest from building this package's test
// binary (whose generated main would need expectations of its own); fanout
// reads the imports of every _test.go file in the directory all the same.

package fanoutleaktest

import (
	"testing"

	"go.uber.org/goleak"
)

func TestDouble(t *testing.T) {
	Double([]int{1, 2})
	goleak.VerifyNone(t)
}
