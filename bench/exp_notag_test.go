//go:build !parloop_experiments

package bench

// experimentsBuilt: without -tags parloop_experiments the library reads no
// experiments, and the experiment benchmarks skip (exp_test.go).
const experimentsBuilt = false
