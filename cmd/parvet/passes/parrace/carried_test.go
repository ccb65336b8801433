package parrace_test

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/parloop/parloop/cmd/parvet/passes/parrace"
)

// TestRaceCarriedIntoRewrite checks that a race in a fan-out loop's
// goroutine, reported by the goroutine rule, is reported again in the
// par.For body that fanout's fix makes of it: testdata/src/carriedfix is
// fanout's golden output for testdata/src/carried (checked by TestFanout)
// with only its // want comments changed.
func TestRaceCarriedIntoRewrite(t *testing.T) {
	dir, err := filepath.Abs("../../testdata")
	if err != nil {
		t.Fatal(err)
	}
	golden, err := os.ReadFile(filepath.Join(dir, "src/carried/carried.go.golden"))
	if err != nil {
		t.Fatal(err)
	}
	fixed, err := os.ReadFile(filepath.Join(dir, "src/carriedfix/carriedfix.go"))
	if err != nil {
		t.Fatal(err)
	}
	strip := regexp.MustCompile("(?m) *// want .*$|^package [a-z]+$")
	if g, f := strip.ReplaceAllString(string(golden), ""), strip.ReplaceAllString(string(fixed), ""); g != f {
		t.Fatalf("carriedfix/carriedfix.go is not fanout's rewrite of carried/carried.go:\n%s\nwant:\n%s", f, g)
	}
	analysistest.Run(t, dir, parrace.Analyzer, "carriedfix")
}
