package parsort_test

import (
	"path/filepath"
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/parloop/parloop/cmd/parvet/passes/parsort"
)

func TestParsort(t *testing.T) {
	dir, err := filepath.Abs("../../testdata")
	if err != nil {
		t.Fatal(err)
	}
	analysistest.RunWithSuggestedFixes(t, dir, parsort.Analyzer, "sorts")
}
