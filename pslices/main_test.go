package pslices_test

import (
	"testing"

	"github.com/parloop/parloop/par"
	"go.uber.org/goleak"
)

// closeDefault runs the tests and then closes the default pool, which lives
// for the process, so that goleak sees every goroutine the tests started
// gone.
type closeDefault struct{ m *testing.M }

func (c closeDefault) Run() int {
	code := c.m.Run()
	par.Default().Close()
	return code
}

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(closeDefault{m})
}
