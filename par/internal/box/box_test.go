package box

import (
	"testing"
	"unsafe"
)

func TestForkRunnerRunsG(t *testing.T) {
	bx := &Fork[int, string]{G: func(y int) string { return string(rune('a' + y)) }, Arg: 2}
	var r Runner = ForkRunner[int, string]{}
	r.Run(unsafe.Pointer(bx))
	if bx.Result != "c" {
		t.Fatalf("Run left %q, want %q", bx.Result, "c")
	}
}

func TestCall(t *testing.T) {
	if got := Call(func(y int) int { return y * 2 }, nil, 21); got != 42 {
		t.Errorf("Call(g) = %d, want 42", got)
	}
	seen := 0
	if got := Call[int, int](nil, func(y int) { seen = y }, 7); got != 0 || seen != 7 {
		t.Errorf("Call(gv) = %d with gv seeing %d, want 0 and 7", got, seen)
	}
	thunk := func() int { return 5 }
	if got := Call[func() int, int](nil, nil, thunk); got != 5 {
		t.Errorf("Call(nil, nil, thunk) = %d, want 5", got)
	}
}

type otherRunner struct{}

func (otherRunner) Run(unsafe.Pointer)   {}
func (otherRunner) Clear(unsafe.Pointer) {}

// Clear leaves nothing for the GC to keep: functions, argument and result.
func TestForkRunnerClear(t *testing.T) {
	bx := &Fork[*int, *string]{G: func(*int) *string { return nil }, GV: func(*int) {}, Arg: new(int), Result: new(string)}
	ForkRunner[*int, *string]{}.Clear(unsafe.Pointer(bx))
	if bx.G != nil || bx.GV != nil || bx.Arg != nil || bx.Result != nil {
		t.Errorf("Clear left %+v", *bx)
	}
}

func TestSame(t *testing.T) {
	a, b := Runner(ForkRunner[int, int]{}), Runner(ForkRunner[int, int]{})
	if !Same(a, b) {
		t.Error("two ForkRunner[int, int] are not Same")
	}
	if Same(a, ForkRunner[int, string]{}) {
		t.Error("ForkRunner[int, int] and ForkRunner[int, string] are Same")
	}
	if Same(a, otherRunner{}) {
		t.Error("a ForkRunner and another Runner type are Same")
	}
}

// A Runner stored in an interface allocates nothing: it is zero-size.
func TestRunnerAllocatesNothing(t *testing.T) {
	var sink Runner
	if n := testing.AllocsPerRun(100, func() { sink = ForkRunner[[4]int, string]{} }); n != 0 {
		t.Errorf("storing a ForkRunner allocates %v times, want 0", n)
	}
	_ = sink
}
