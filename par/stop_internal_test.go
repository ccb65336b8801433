package par

import (
	"errors"
	"testing"
)

// TestFailure checks failure's rules (stop.go): the first panic and the
// first error win, an error cancels, a done context (errCtxDone) only
// stops, a panic cancels only when given a cancel, and stopped counts a
// closed done channel.
func TestFailure(t *testing.T) {
	cancels := 0
	cancel := func() { cancels++ }

	var f failure
	if f.stopped(nil) {
		t.Fatal("a new failure is stopped")
	}
	f.setErr(errCtxDone, cancel)
	if pe, err := f.outcome(); !f.stop.Load() || pe != nil || err != nil || cancels != 0 {
		t.Fatalf("after errCtxDone: stop %v, outcome (%v, %v), %d cancels; want stopped, (nil, nil), 0 cancels", f.stop.Load(), pe, err, cancels)
	}
	e1, e2 := errors.New("first"), errors.New("second")
	f.setErr(e1, cancel)
	f.setErr(e2, cancel)
	if _, err := f.outcome(); err != e1 || cancels != 2 {
		t.Fatalf("after two errors: %v, %d cancels; want %v, 2", err, cancels, e1)
	}

	var g failure
	p1, p2 := &PanicError{Value: 1}, &PanicError{Value: 2}
	g.fail(p1, nil)
	if !g.stopped(nil) || cancels != 2 {
		t.Fatalf("fail with no cancel: stopped %v, %d cancels; want true, 2", g.stopped(nil), cancels)
	}
	g.fail(p2, cancel)
	if pe, _ := g.outcome(); pe != p1 || cancels != 3 {
		t.Fatalf("after two panics: %v, %d cancels; want %v, 3", pe, cancels, p1)
	}

	var h failure
	done := make(chan struct{})
	if h.stopped(done) {
		t.Fatal("stopped with an open done channel")
	}
	close(done)
	if !h.stopped(done) || h.stop.Load() {
		t.Fatal("a closed done channel: stopped must report it, without storing stop")
	}
}
