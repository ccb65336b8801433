//go:build parloop_experiments

package bench

// experimentsBuilt: the library reads PARLOOP_EXPERIMENT (exp_test.go).
const experimentsBuilt = true
