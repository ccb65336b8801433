// Command parvet finds fan-out loops that parloop's verbs can replace, offers
// the rewrite, and reports writes in parallel bodies that can race.
//
// Standalone, with fixes:
//
//	go run github.com/parloop/parloop/cmd/parvet@latest ./...
//	parvet -fix ./...   # apply the rewrites
//	parvet -diff ./...  # show them (with -fix)
//
// As a vet tool:
//
//	go vet -vettool=$(which parvet) ./...
package main

import (
	"golang.org/x/tools/go/analysis/multichecker"

	"github.com/parloop/parloop/cmd/parvet/passes/fanout"
	"github.com/parloop/parloop/cmd/parvet/passes/parrace"
)

func main() {
	multichecker.Main(parrace.Analyzer, fanout.Analyzer)
}
