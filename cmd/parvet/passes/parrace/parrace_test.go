package parrace_test

import (
	"path/filepath"
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/parloop/parloop/cmd/parvet/passes/parrace"
)

func TestParrace(t *testing.T) {
	dir, err := filepath.Abs("../../testdata")
	if err != nil {
		t.Fatal(err)
	}
	analysistest.Run(t, dir, parrace.Analyzer, "races", "wrapdef", "wrapuse", "goroutines", "oldloops", "benchpar", "iterraces")
}
