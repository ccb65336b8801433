package goroutines

import (
	"sync"
	"testing"
)

type tcase struct {
	name string
	in   int
	seen bool
}

// Parallel subtests started in a loop run at the same time as their
// siblings once they call t.Parallel.
func subtests(t *testing.T, cases []tcase) {
	passed := 0
	var names []string
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if work(tc.in) > 0 {
				passed++ // want `parallel subtest started per loop iteration passed\+\+ updates captured variable passed without synchronization \(data race\)`
			}
			names = append(names, tc.name) // want `parallel subtest started per loop iteration appends to captured slice names without synchronization`
		})
	}
	_, _ = passed, names
}

func subtestNegatives(t *testing.T, cases []tcase) {
	var mu sync.Mutex
	total := 0
	before := 0
	sequential := 0
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before++ // before t.Parallel: t.Run waits for it
			t.Parallel()
			tc.seen = true // tc is per iteration (Go 1.22)
			cases[i].in = work(tc.in)
			mu.Lock()
			total += tc.in
			mu.Unlock()
		})
		// Not parallel: t.Run returns when the subtest has finished.
		t.Run(tc.name+"/seq", func(t *testing.T) {
			sequential++
		})
	}
	// One parallel subtest, not per iteration.
	t.Run("one", func(t *testing.T) {
		t.Parallel()
		total = 0
	})
	_, _, _ = total, before, sequential
}
