package par_test

import (
	"testing"

	"github.com/parloop/parloop/par"
	"go.uber.org/goleak"
)

// Catches: the README's advice for goleak users (ignore par's parked
// workers by the function every worker runs) going stale when worker.go
// changes. A live pool's workers must be reported without the option and
// covered with it.
func TestGoleakIgnoreWorkers(t *testing.T) {
	others := goleak.IgnoreCurrent() // a profiler's goroutine, say
	p := par.NewPool(par.Workers(3))
	defer p.Close()
	par.For(1000, func(int) { spin(100) }, par.On(p))
	if goleak.Find(others) == nil {
		t.Fatalf("goleak did not see a live pool's workers: the check below proves nothing")
	}
	if err := goleak.Find(others, goleak.IgnoreAnyFunction("github.com/parloop/parloop/par.(*Pool).workerMain")); err != nil {
		t.Errorf("the README's goleak option does not cover par's workers: %v", err)
	}
}
