// Package bench is parloop's benchmark suite. It is a module of its own so
// that the peers it compares against (errgroup, conc, ants, pond) and the
// plotting library never enter the library's go.mod.
//
// The benchmarks are in the _test.go files of this directory; the workloads
// and their verifiers in ./workloads; the peers in ./peers; the report that
// runs everything and writes RESULTS.md and the plots in ./cmd/report.
//
//	go test -run '^$' -bench . -benchtime=1x ./...   # every benchmark once, verified
//	go run ./cmd/report -quick                        # a preview, under 2 minutes
//	go run ./cmd/report                               # the full run, RESULTS.md and plots
package bench
