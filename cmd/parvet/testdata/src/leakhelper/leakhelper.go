// Package leakhelper is a test helper that checks for leaked goroutines
// (as gRPC's grpctest runs its leakcheck).
package leakhelper

import "go.uber.org/goleak"

type T = goleak.TestingT

func Teardown(t goleak.TestingT) { goleak.VerifyNone(t) }
