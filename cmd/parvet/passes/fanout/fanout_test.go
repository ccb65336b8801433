package fanout_test

import (
	"path/filepath"
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/parloop/parloop/cmd/parvet/passes/fanout"
)

func TestFanout(t *testing.T) {
	dir, err := filepath.Abs("../../testdata")
	if err != nil {
		t.Fatal(err)
	}
	analysistest.RunWithSuggestedFixes(t, dir, fanout.Analyzer, "fanout", "fanoutold", "fanoutleak", "fanoutleaktest", "fanoutleakdeep", "carried", "fanoutscope", "fanoutscopeold")
}
