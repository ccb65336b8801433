package tracing

import (
	"bytes"
	"context"
	"errors"
	"io"
	"runtime/trace"
	"testing"

	"go.uber.org/goleak"
	xtrace "golang.org/x/exp/trace"
)

// runtime/trace.Start runs a goroutine that copies the trace out: none may
// outlive the tests.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// Catches: a tree's root not registered, a nested call that takes the
// root's place or unregisters it, a root that stays registered after it
// ends, or a call of no tree registered under 0. No trace runs: the
// registry works the same without one.
func TestTreeRoots(t *testing.T) {
	if TreeTask(0) != nil || TreeTask(42) != nil {
		t.Fatal("TreeTask of no tree, or of an unknown one, is not nil")
	}
	var root, nested, other Call
	root.Start("For", 10, 42, nil)
	if root.Ctx == nil || TreeTask(42) != root.Ctx {
		t.Fatalf("the first call of tree 42 is not its root: TreeTask = %v, Ctx = %v", TreeTask(42), root.Ctx)
	}
	nested.Start("Map", 5, 42, context.Background())
	if TreeTask(42) != root.Ctx {
		t.Error("a nested call replaced its tree's root")
	}
	other.Start("Join", 2, 0, nil)
	if TreeTask(0) != nil {
		t.Error("a call of no tree registered as tree 0's root")
	}
	other.End()
	nested.End()
	if nested != (Call{}) {
		t.Errorf("End left the call's state: %+v", nested)
	}
	if TreeTask(42) != root.Ctx {
		t.Error("a nested call's end unregistered its tree's root")
	}
	root.End()
	if TreeTask(42) != nil {
		t.Error("tree 42's root is still registered after it ended")
	}
	root.End() // a second End, or an untraced call's, does nothing
	var untraced Call
	untraced.End()
}

// Catches: StolenFork or EndRegion that fail on an untraced program, or
// Fork that does not run its function or leaves its tree registered.
func TestUntraced(t *testing.T) {
	if trace.IsEnabled() {
		t.Skip("a trace is recorded")
	}
	if r := StolenFork(7); r != nil {
		t.Errorf("StolenFork with tracing off = %v, want nil", r)
	}
	EndRegion(nil)
	ran := false
	Fork(7, "Join", 2, func() {
		ran = true
		if TreeTask(7) == nil {
			t.Error("the fork's tree has no root task while it runs")
		}
	})
	if !ran || TreeTask(7) != nil {
		t.Errorf("Fork ran its function: %v; tree 7 still registered: %v", ran, TreeTask(7) != nil)
	}
	EndRegion(Piece(context.Background(), true, 0, 4))
}

// Catches: a nested call not a subtask of its tree's root, a root not a
// subtask of its context's task, a fork tree's stolen functions outside its
// task, or piece regions with the wrong name or range. The trace is read
// back with golang.org/x/exp/trace.
func TestTraceTree(t *testing.T) {
	var buf bytes.Buffer
	if err := trace.Start(&buf); err != nil {
		t.Fatalf("trace.Start: %v", err)
	}
	reqCtx, req := trace.NewTask(context.Background(), "request")
	var root, nested Call
	root.Start("For", 100, 5, reqCtx)
	nested.Start("Map", 10, 5, context.Background())
	EndRegion(Piece(nested.Ctx, false, 0, 10))
	EndRegion(Piece(root.Ctx, true, 50, 100))
	nested.End()
	root.End()
	req.End()
	Fork(9, "Join", 2, func() {
		if r := StolenFork(9); r == nil {
			t.Error("StolenFork in a traced fork tree = nil")
		} else {
			r.End()
		}
	})
	if StolenFork(9) != nil {
		t.Error("StolenFork after its tree ended is not nil")
	}
	trace.Stop()

	r, err := xtrace.NewReader(&buf)
	if err != nil {
		t.Fatalf("reading the trace: %v", err)
	}
	type task struct {
		typ    string
		parent xtrace.TaskID
	}
	tasks := map[xtrace.TaskID]task{}
	regions := map[string]string{} // region type: its task's type
	var ranges []string
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
			tasks[ev.Task().ID] = task{ev.Task().Type, ev.Task().Parent}
		case xtrace.EventRegionBegin:
			regions[ev.Region().Type] = tasks[ev.Region().Task].typ
		case xtrace.EventLog:
			if l := ev.Log(); l.Category == "range" {
				ranges = append(ranges, tasks[l.Task].typ+" "+l.Message)
			}
		}
	}
	parentOf := map[string]string{}
	for _, tk := range tasks {
		parentOf[tk.typ] = tasks[tk.parent].typ
	}
	for child, parent := range map[string]string{"par.For": "request", "par.Map": "par.For", "par.Join": ""} {
		if got, ok := parentOf[child]; !ok || got != parent {
			t.Errorf("task %s: parent %q (found: %v), want %q", child, got, ok, parent)
		}
	}
	for region, task := range map[string]string{"piece": "par.Map", "stolen piece": "par.For", "stolen fork": "par.Join"} {
		if got := regions[region]; got != task {
			t.Errorf("region %q in task %q, want %q", region, got, task)
		}
	}
	if want := []string{"par.Map 0-10", "par.For 50-100"}; len(ranges) != 2 || ranges[0] != want[0] || ranges[1] != want[1] {
		t.Errorf("range logs %q, want %q", ranges, want)
	}
}
