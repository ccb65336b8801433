// Command parvet finds fan-out loops that parloop's verbs can replace, offers
// the rewrite, reports writes in parallel bodies that can race, and
// suggests pslices' parallel sorts for data a parallel call made.
//
// Install it from a clone of the repository (its root):
//
//	go install -C cmd/parvet .
//
// or, once a release of it is tagged (cmd/parvet/vX.Y.Z), run it anywhere:
//
//	go run github.com/parloop/parloop/cmd/parvet@VERSION ./...
//
// and in the module to check:
//
//	parvet ./...        # report
//	parvet -fix -diff ./... # show the rewrites
//	parvet -fix ./...   # apply them, then `go mod tidy` if the module was tidy before
//
// As a vet tool (reports only):
//
//	go vet -vettool=$(which parvet) ./...
package main

import (
	"os"

	"golang.org/x/tools/go/analysis/multichecker"

	"github.com/parloop/parloop/cmd/parvet/passes/fanout"
	"github.com/parloop/parloop/cmd/parvet/passes/parrace"
	"github.com/parloop/parloop/cmd/parvet/passes/parsort"
)

func main() {
	if os.Getenv(childEnv) == "" && fixing(os.Args[1:]) {
		os.Exit(fixAndTidy(os.Args[1:]))
	}
	multichecker.Main(parrace.Analyzer, fanout.Analyzer, parsort.Analyzer)
}
