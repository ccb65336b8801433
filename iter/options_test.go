package iter

import (
	"bufio"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/parloop/parloop/par"
)

// takes is Option's table (options.go), as the test expects it: for each
// source and stage, the options it takes.
var takes = map[string][]string{
	"Slice":      {"Unordered", "Blocking", "Context", "On"},
	"Range":      {"Unordered", "Blocking", "Context", "On"},
	"From":       {"Unordered", "Window", "Batch", "Blocking", "Context", "On"},
	"From2":      {"Unordered", "Window", "Batch", "Blocking", "Context", "On"},
	"Chan":       {"Unordered", "Window", "Batch", "Blocking", "Context", "On"},
	"Lines":      {"Unordered", "Window", "Batch", "Blocking", "Context", "On"},
	"Map":        {"Blocking"},
	"MapErr":     {"Blocking"},
	"Filter":     {"Blocking"},
	"FilterErr":  {"Blocking"},
	"FlatMap":    {"Blocking"},
	"FlatMapErr": {"Blocking"},
}

// calls makes a pipeline of 100 items with opts given to the source or
// stage named; each stage sits on a Range of 100.
func calls() map[string]func(opts ...Option) Pipe[int] {
	ints := make([]int, 100)
	id := func(v int) int { return v }
	idErr := func(_ context.Context, v int) (int, error) { return v, nil }
	keep := func(int) bool { return true }
	keepErr := func(context.Context, int) (bool, error) { return true, nil }
	one := func(v int) Seq[int] { return func(yield func(int) bool) { yield(v) } }
	oneErr := func(_ context.Context, v int, yield func(int) bool) error { yield(v); return nil }
	return map[string]func(opts ...Option) Pipe[int]{
		"Slice": func(opts ...Option) Pipe[int] { return Slice(ints, opts...) },
		"Range": func(opts ...Option) Pipe[int] { return Range(100, opts...) },
		"From":  func(opts ...Option) Pipe[int] { return From(count(100), opts...) },
		"From2": func(opts ...Option) Pipe[int] {
			return Map(From2(func(yield func(int, int) bool) {
				for i := range 100 {
					if !yield(i, i) {
						return
					}
				}
			}, opts...), func(kv Pair[int, int]) int { return kv.Key })
		},
		"Chan": func(opts ...Option) Pipe[int] {
			c := make(chan int, 100)
			for i := range 100 {
				c <- i
			}
			close(c)
			return Chan(c, opts...)
		},
		"Lines": func(opts ...Option) Pipe[int] {
			sc := bufio.NewScanner(strings.NewReader(strings.Repeat("x\n", 100)))
			return Map(Lines(sc, opts...), func(string) int { return 0 })
		},
		"Map":        func(opts ...Option) Pipe[int] { return Map(Range(100), id, opts...) },
		"MapErr":     func(opts ...Option) Pipe[int] { return MapErr(Range(100), idErr, opts...) },
		"Filter":     func(opts ...Option) Pipe[int] { return Range(100).Filter(keep, opts...) },
		"FilterErr":  func(opts ...Option) Pipe[int] { return Range(100).FilterErr(keepErr, opts...) },
		"FlatMap":    func(opts ...Option) Pipe[int] { return FlatMap(Range(100), one, opts...) },
		"FlatMapErr": func(opts ...Option) Pipe[int] { return FlatMapErr(Range(100), oneErr, opts...) },
	}
}

// recovered returns what f panicked with, as a string ("" if it did not).
func recovered(f func()) (msg string) {
	defer func() {
		if r := recover(); r != nil {
			msg = fmt.Sprint(r)
		}
	}()
	f()
	return ""
}

// Catches: an option that a source or stage cannot honour being accepted
// (Window on Slice, any option but Blocking on a stage), one it can honour
// being refused or not working, a panic that does not name the option and
// where it applies, and the combinations the table forbids.
func TestOptionTable(t *testing.T) {
	defer noLeaks(t)()
	p := par.NewPool(par.Workers(2))
	defer p.Close()
	options := map[string]Option{
		"Unordered": Unordered(),
		"Window":    Window(2),
		"Batch":     Batch(3),
		"Blocking":  Blocking(2),
		"Context":   Context(context.Background()),
		"On":        On(p),
	}
	mk := calls()
	if len(mk) != len(takes) {
		t.Fatalf("%d calls for %d table rows", len(mk), len(takes))
	}
	for where, call := range mk {
		for name, opt := range options {
			ok := false
			for _, n := range takes[where] {
				ok = ok || n == name
			}
			var pipe Pipe[int]
			msg := recovered(func() { pipe = call(opt) })
			switch {
			case ok && msg != "":
				t.Errorf("%s(%s) panicked: %s", where, name, msg)
			case ok:
				if n, err := pipe.Count(); n != 100 || err != nil {
					t.Errorf("%s(%s): Count = %d, %v; want 100", where, name, n, err)
				}
			case !strings.HasPrefix(msg, fmt.Sprintf("iter: %s does not take the %s option: it applies to ", where, name)):
				t.Errorf("%s(%s): recovered %q, want a panic naming the option and where it applies", where, name, msg)
			}
		}
		// The zero Option names the call.
		if msg := recovered(func() { call(Option{}) }); !strings.HasPrefix(msg, "iter: "+where+": the zero Option") {
			t.Errorf("%s(Option{}): recovered %q", where, msg)
		}
	}
	// On beside Blocking, on any source.
	for _, where := range []string{"Slice", "Range", "From", "From2", "Chan", "Lines"} {
		msg := recovered(func() { mk[where](Blocking(2), On(p)) })
		if !strings.HasPrefix(msg, "iter: "+where+": On means nothing beside Blocking") {
			t.Errorf("%s(Blocking, On): recovered %q", where, msg)
		}
	}
	// Find needs the order an Unordered pipeline gives up.
	msg := recovered(func() { From(count(10), Unordered()).Find(func(int) bool { return true }) })
	if !strings.HasPrefix(msg, "iter: Find called on an Unordered pipeline") {
		t.Errorf("Find on an Unordered pipeline: recovered %q", msg)
	}
	// Every option together, where all are taken.
	n, err := From(count(100), Unordered(), Window(1), Batch(1), Context(context.Background()), On(p)).Count()
	if n != 100 || err != nil {
		t.Errorf("From with every option: Count = %d, %v", n, err)
	}
}
