// Command tracebusy reads an execution trace (go test -trace, runtime/trace)
// and prints how many goroutines were running, on average, in each slice of
// time: the shape of a parallel call's start, middle and tail. With -from and
// -to (milliseconds since the trace's first event) it lists the goroutine
// transitions and the parloop piece logs (category "range") in that window
// instead.
//
//	go run ./cmd/tracebusy raw/device16-1126b/trace-Mandelbrotpeerpar_For.out
//	go run ./cmd/tracebusy -min 1.5 raw/device16-1126b/trace-Mandelbrotpeerpar_For.out
//	go run ./cmd/tracebusy -from 843 -to 858 raw/device16-1126b/trace-Mandelbrotpeerpar_For.out
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/exp/trace"
)

func main() {
	slice := flag.Float64("slice", 0.5, "the time slice, in milliseconds")
	minBusy := flag.Float64("min", 0, "print only slices with at least this many goroutines running")
	from := flag.Float64("from", -1, "list the events from this time (ms) on, instead of the busy counts")
	to := flag.Float64("to", -1, "... up to this time (ms)")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: tracebusy [-slice ms] [-min n] [-from ms -to ms] trace.out")
		os.Exit(2)
	}
	f, err := os.Open(flag.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, "tracebusy:", err)
		os.Exit(1)
	}
	defer f.Close()
	r, err := trace.NewReader(f)
	if err != nil {
		fmt.Fprintln(os.Stderr, "tracebusy:", err)
		os.Exit(1)
	}
	if *from >= 0 {
		err = list(r, *from, *to)
	} else {
		err = busy(r, *slice, *minBusy)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "tracebusy:", err)
		os.Exit(1)
	}
}

// busy prints the mean number of running goroutines per slice.
func busy(r *trace.Reader, sliceMs, minBusy float64) error {
	type span struct{ a, b float64 } // ms since the first event
	var spans []span
	running := map[trace.GoID]float64{}
	var t0 trace.Time
	var end float64
	for {
		ev, err := r.ReadEvent()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		if t0 == 0 {
			t0 = ev.Time()
		}
		ms := float64(ev.Time()-t0) / 1e6
		end = ms
		if ev.Kind() != trace.EventStateTransition {
			continue
		}
		st := ev.StateTransition()
		if st.Resource.Kind != trace.ResourceGoroutine {
			continue
		}
		g := st.Resource.Goroutine()
		from, to := st.Goroutine()
		switch {
		case to == trace.GoRunning:
			running[g] = ms
		case from == trace.GoRunning:
			if a, ok := running[g]; ok {
				spans = append(spans, span{a, ms})
				delete(running, g)
			}
		}
	}
	for _, a := range running {
		spans = append(spans, span{a, end})
	}
	n := int(end/sliceMs) + 1
	sum := make([]float64, n)
	for _, s := range spans {
		for a := s.a; a < s.b; {
			i := int(a / sliceMs)
			e := min(float64(i+1)*sliceMs, s.b)
			sum[i] += e - a
			a = e
		}
	}
	for i, v := range sum {
		if v/sliceMs >= minBusy {
			fmt.Printf("%9.1f ms %6.2f\n", float64(i)*sliceMs, v/sliceMs)
		}
	}
	return nil
}

// list prints the goroutine transitions and parloop's piece logs between
// from and to (ms since the first event).
func list(r *trace.Reader, from, to float64) error {
	var t0 trace.Time
	for {
		ev, err := r.ReadEvent()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if t0 == 0 {
			t0 = ev.Time()
		}
		ms := float64(ev.Time()-t0) / 1e6
		if ms < from || (to >= 0 && ms > to) {
			continue
		}
		switch ev.Kind() {
		case trace.EventLog:
			fmt.Printf("%9.3f g%-5d P%-3d %s %s\n", ms, ev.Goroutine(), ev.Proc(), ev.Log().Category, ev.Log().Message)
		case trace.EventStateTransition:
			st := ev.StateTransition()
			if st.Resource.Kind != trace.ResourceGoroutine {
				continue
			}
			from, to := st.Goroutine()
			var fns []string
			for fr := range st.Stack.Frames() {
				fns = append(fns, fr.Func)
				if len(fns) == 3 {
					break
				}
			}
			fmt.Printf("%9.3f g%-5d %s->%s %s %s\n", ms, st.Resource.Goroutine(), from, to, st.Reason, strings.Join(fns, " < "))
		}
	}
}
