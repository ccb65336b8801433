package iter

import (
	"context"
	"runtime"
	"runtime/trace"
	"strconv"
	"strings"
)

// Execution traces. When runtime/trace is recording as a terminal starts, the
// run is a trace task named after the terminal ("iter.ForEach", "iter.Sum",
// ...), a subtask of the task of the pipeline's Context if it has one, with
// a log "pipeline" naming the source, the stages and the terminal in order
// ("Slice(1000) | Map | Filter | ForEach"). The goroutines a streaming run
// starts run their part under a region of that task: "iter.driver" (the
// run's own goroutine), "iter.source" (the producer pulling the source) and
// "iter.runners" (the bodies running batches through the stages); an
// indexed run's par call is made on the terminal's goroutine. The par calls
// made there are par's tasks, found from these regions by
// cmd/parloop-trace. With tracing off this costs a load per run.

// startTrace makes the run st a trace task, if a trace is being recorded.
// n is the length of an indexed source, -1 for a stream.
func (st *state) startTrace(o *options, n int) {
	if !trace.IsEnabled() {
		return
	}
	parent := o.ctx
	if parent == nil {
		parent = context.Background()
	}
	term := terminalName()
	st.traceCtx, st.traceTask = trace.NewTask(parent, "iter."+term)
	src, rest, _ := strings.Cut(o.stages, " | ")
	if n >= 0 {
		src += "(" + strconv.Itoa(n) + ")"
	}
	desc := src
	if rest != "" {
		desc += " | " + rest
	}
	trace.Log(st.traceCtx, "pipeline", desc+" | "+term)
}

// inRegion runs f, in a region of the run's task named role if it is
// traced.
func (st *state) inRegion(role string, f func()) {
	if st.traceCtx == nil {
		f()
		return
	}
	trace.WithRegion(st.traceCtx, role, f)
}

// endTrace ends the run's task.
func (st *state) endTrace() {
	if st.traceTask != nil {
		st.traceTask.End()
		st.traceTask = nil
	}
}

// terminalName is the name of the exported function or method of this
// package that began the run: the outermost of its frames on the stack
// ("Sum" for Sum, which runs through fold).
func terminalName() string {
	var pcs [16]uintptr
	frames := runtime.CallersFrames(pcs[:runtime.Callers(3, pcs[:])])
	const pkg = "github.com/parloop/parloop/iter."
	name := "run"
	for {
		f, more := frames.Next()
		fn, ok := strings.CutPrefix(f.Function, pkg)
		if !ok {
			break
		}
		// "Pipe[...].All.func1" -> "All", "Sum[...]" -> "Sum".
		for _, part := range strings.Split(fn, ".") {
			part, _, _ = strings.Cut(part, "[")
			if part != "" && part[0] >= 'A' && part[0] <= 'Z' && part != "Pipe" {
				name = part
			}
		}
		if !more {
			break
		}
	}
	return name
}
