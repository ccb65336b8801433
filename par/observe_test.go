package par_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"runtime/trace"
	"sync/atomic"
	"testing"

	"github.com/parloop/parloop/par"
	xtrace "golang.org/x/exp/trace"
)

// Catches: a tracked call whose Done misses items or counts some twice, a
// Total not set at the start, and Progress not readable while the call
// runs, for every verb that takes Track, on every pool size (parallelism 1
// runs the solo loop) and with Blocking.
func TestProgressCountsEveryItem(t *testing.T) {
	const n = 5000
	add := func(a, b int) int { return a + b }
	for _, pc := range poolCases(t) {
		calls := map[string]func(p *par.Progress){
			"For":      func(p *par.Progress) { par.For(n, func(int) { spin(20) }, pc.with(par.Track(p))...) },
			"ForBlock": func(p *par.Progress) { par.For(n, func(int) {}, par.Blocking(4), par.Track(p)) },
			"ForRange": func(p *par.Progress) {
				par.ForRange(n, func(lo, hi int) { spin(20 * (hi - lo)) }, pc.with(par.Track(p))...)
			},
			"Map": func(p *par.Progress) { par.Map(make([]int, n), func(int) int { return 1 }, pc.with(par.Track(p))...) },
			"ForErr": func(p *par.Progress) {
				_ = par.ForErr(context.Background(), n, func(context.Context, int) error { return nil }, pc.with(par.Track(p))...)
			},
			"Reduce": func(p *par.Progress) { par.Reduce(make([]int, n), 0, add, pc.with(par.Track(p))...) },
			"Deterministic": func(p *par.Progress) {
				par.Reduce(make([]int, n), 0, add, pc.with(par.Track(p), par.Deterministic())...)
			},
			"Fold": func(p *par.Progress) {
				par.Fold(n, func() int { return 0 }, func(a *int, lo, hi int) { *a += hi - lo }, add, pc.with(par.Track(p))...)
			},
		}
		for name, call := range calls {
			var p par.Progress
			var sawPartial atomic.Bool
			stop := make(chan struct{})
			go func() { // a reader while the call runs
				for {
					select {
					case <-stop:
						return
					default:
					}
					if d, tot := p.Done(), p.Total(); d > tot && tot != 0 {
						sawPartial.Store(true) // impossible: more done than started
					}
				}
			}()
			call(&p)
			close(stop)
			if p.Done() != n || p.Total() != n {
				t.Errorf("%s %s: Done %d, Total %d; want %d and %d", name, pc.name, p.Done(), p.Total(), n, n)
			}
			if sawPartial.Load() {
				t.Errorf("%s %s: Done ran ahead of Total", name, pc.name)
			}
		}
	}
	if _, panicked := catch(func() { par.Join(func() {}, func() {}, par.Track(new(par.Progress))) }); !panicked {
		t.Errorf("Join accepted Track")
	}
}

// Catches: a traced call that is not a trace task, pieces that are not
// regions of that task, or stolen pieces not marked. The trace is read back
// with golang.org/x/exp/trace.
func TestTraceTasksAndRegions(t *testing.T) {
	p := newPool(t, par.Workers(2))
	var buf bytes.Buffer
	if err := trace.Start(&buf); err != nil {
		t.Fatalf("trace.Start: %v", err)
	}
	for range 20 {
		par.For(4000, func(int) { spin(300) }, par.On(p))
		par.ReduceRange(4000, 0, func(lo, hi int) int { spin(300 * (hi - lo)); return hi - lo },
			func(a, b int) int { return a + b }, par.On(p))
	}
	trace.Stop()
	r, err := xtrace.NewReader(&buf)
	if err != nil {
		t.Fatalf("reading the trace: %v", err)
	}
	tasks := map[xtrace.TaskID]string{}
	regions := map[string]int{}
	orphans := 0
	for {
		ev, err := r.ReadEvent()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("reading the trace: %v", err)
		}
		switch ev.Kind() {
		case xtrace.EventTaskBegin:
			tasks[ev.Task().ID] = ev.Task().Type
		case xtrace.EventRegionBegin:
			rg := ev.Region()
			if _, ok := tasks[rg.Task]; !ok {
				orphans++
			}
			regions[rg.Type]++
		}
	}
	var forTasks, reduceTasks int
	for _, typ := range tasks {
		switch typ {
		case "par.For":
			forTasks++
		case "par.ReduceRange":
			reduceTasks++
		}
	}
	if forTasks != 20 || reduceTasks != 20 {
		t.Errorf("trace tasks: %d par.For and %d par.ReduceRange; want 20 each", forTasks, reduceTasks)
	}
	if regions["piece"] == 0 {
		t.Errorf("no piece regions in the trace: %v", regions)
	}
	if regions["stolen piece"] == 0 {
		t.Logf("no stolen piece in 40 calls on 2 workers (the machine may have had one free CPU): %v", regions)
	}
	if orphans != 0 {
		t.Errorf("%d regions outside a par task", orphans)
	}
}
