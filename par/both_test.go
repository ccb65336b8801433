package par_test

import (
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/parloop/parloop/par"
)

func fibBoth(n int, opts ...par.Option) int {
	if n < 2 {
		return n
	}
	x, y := par.Both(func() int { return fibBoth(n-1, opts...) }, func() int { return fibBoth(n-2, opts...) }, opts...)
	return x + y
}

func fibPlain(n int) int {
	if n < 2 {
		return n
	}
	return fibPlain(n-1) + fibPlain(n-2)
}

// TestBothResults: nested Both returns both results, on every pool size,
// whether g ran inline or on a thief.
func TestBothResults(t *testing.T) {
	for _, c := range poolCases(t) {
		t.Run(c.name, func(t *testing.T) {
			noHang(t, "fib", func() {
				for _, n := range []int{0, 1, 2, 10, 22} {
					if got, want := fibBoth(n, c.opts...), fibPlain(n); got != want {
						t.Errorf("fib(%d) = %d, want %d", n, got, want)
					}
				}
			})
		})
	}
}

// TestBothResultTypes: results of different types, including large ones
// (a stolen g's result travels boxed, whatever its size).
func TestBothResultTypes(t *testing.T) {
	p := newPool(t, par.Workers(2))
	type big struct {
		a [64]int
		s string
	}
	for i := 0; i < 200; i++ {
		noHang(t, "Both", func() {
			s, b := par.Both(func() string { return fmt.Sprint("f", i) }, func() big {
				var v big
				v.a[63], v.s = i, "g"
				return v
			}, par.On(p))
			if s != fmt.Sprint("f", i) || b.a[63] != i || b.s != "g" {
				t.Errorf("round %d: Both returned %q, {a[63]=%d s=%q}", i, s, b.a[63], b.s)
			}
		})
	}
}

// TestBothStolenG: g runs on another thread while f runs (f waits for it),
// and its result comes back to the caller. At depth 0, with no task of the
// caller's in its deque, the fork is offered to thieves at once.
func TestBothStolenG(t *testing.T) {
	p := newPool(t, par.Workers(2))
	for i := 0; i < 20; i++ {
		noHang(t, "Both with f waiting for g", func() {
			ran := make(chan struct{})
			a, b := par.Both(func() int { <-ran; return 1 }, func() string { close(ran); return "stolen" }, par.On(p))
			if a != 1 || b != "stolen" {
				t.Errorf("Both = %d, %q; want 1, \"stolen\"", a, b)
			}
		})
	}
	if s := p.Stats(); s.Workers[0].Steals+s.Callers.Steals == 0 {
		t.Errorf("no steals recorded, though every g had to run on a thief")
	}
}

// TestBothPanics: a panic in f or g reaches the caller as a *PanicError with
// the original value, f's panic wins over g's, and the pool stays usable.
func TestBothPanics(t *testing.T) {
	for _, c := range poolCases(t) {
		t.Run(c.name, func(t *testing.T) {
			errF, errG := errors.New("f"), errors.New("g")
			cases := []struct {
				name string
				f, g func() int
				want any
			}{
				{"f", func() int { panicSite(errF); return 0 }, func() int { return 2 }, errF},
				{"g", func() int { return 1 }, func() int { panicSite(errG); return 0 }, errG},
				{"both", func() int { panicSite(errF); return 0 }, func() int { panicSite(errG); return 0 }, errF},
			}
			for _, k := range cases {
				noHang(t, k.name, func() {
					pe := wantPanicError(t, k.name, func() { par.Both(k.f, k.g, c.opts...) })
					checkPanicError(t, k.name, pe, k.want)
				})
			}
			if got := fibBoth(15, c.opts...); got != fibPlain(15) {
				t.Errorf("after panics: fib(15) = %d", got)
			}
		})
	}
}

// TestBothAllocs: a fork whose g captures a value allocates g's closure and
// nothing else; with static closures, nothing at all.
func TestBothAllocs(t *testing.T) {
	p := newPool(t, par.Workers(1))
	one := func() int { return 1 }
	par.For(1, func(int) {
		if n := testing.AllocsPerRun(1000, func() { par.Both(one, one) }); n != 0 {
			t.Errorf("Both with static closures: %v allocs per call, want 0", n)
		}
		k := 7
		if n := testing.AllocsPerRun(1000, func() {
			k++
			par.Both(one, func() int { return k * 2 })
		}); n > 1 {
			t.Errorf("Both with g capturing a value: %v allocs per call, want at most 1", n)
		}
	}, par.On(p))
}

// TestBothClosedPool: on a closed pool Both runs f and g on the caller.
func TestBothClosedPool(t *testing.T) {
	p := par.NewPool(par.Workers(2))
	p.Close()
	a, b := par.Both(func() int { return 1 }, func() int { return 2 }, par.On(p))
	if a != 1 || b != 2 {
		t.Errorf("Both on a closed pool = %d, %d; want 1, 2", a, b)
	}
	pe := wantPanicError(t, "closed pool", func() {
		par.Both(func() int { panicSite("x"); return 0 }, func() int { return 2 }, par.On(p))
	})
	checkPanicError(t, "closed pool", pe, "x")
}

func fibBothOf(n int) int {
	if n < 2 {
		return n
	}
	x, y := par.BothOf(fibBothOf, n-1, fibBothOf, n-2)
	return x + y
}

// TestBothOfResults: BothOf on every pool size, with plain and boxed
// arguments and results, stolen or not.
func TestBothOfResults(t *testing.T) {
	type celsius float64 // a named type: boxed, still correct
	type pair struct {
		s string
		n []int
	}
	for _, c := range poolCases(t) {
		t.Run(c.name, func(t *testing.T) {
			noHang(t, "BothOf", func() {
				par.For(1, func(int) {
					if got := fibBothOf(22); got != fibPlain(22) {
						t.Errorf("fib(22) = %d, want %d", got, fibPlain(22))
					}
				}, c.opts...)
				for i := range 100 {
					a, b := par.BothOf(func(x float64) celsius { return celsius(x) }, float64(i),
						func(p pair) pair { return pair{p.s + "!", append(p.n, len(p.s))} }, pair{"ab", []int{i}}, c.opts...)
					if a != celsius(i) || b.s != "ab!" || len(b.n) != 2 || b.n[0] != i || b.n[1] != 2 {
						t.Fatalf("BothOf = %v, %+v", a, b)
					}
					u, v := par.BothOf(func(x int8) bool { return x > 0 }, int8(i), func(z complex128) complex128 { return z * 2 }, complex(float64(i), 1), c.opts...)
					if !u && i > 0 || v != complex(float64(2*i), 2) {
						t.Fatalf("BothOf = %v, %v", u, v)
					}
				}
			})
		})
	}
}

type tnode struct{ l, r *tnode }

func buildTree(depth int) *tnode {
	if depth == 0 {
		return &tnode{}
	}
	return &tnode{buildTree(depth - 1), buildTree(depth - 1)}
}

func countLeaves(n *tnode) int {
	if n.l == nil {
		return 1
	}
	a, b := par.BothOf(countLeaves, n.l, countLeaves, n.r)
	return a + b
}

// TestBothOfPointerShapes: pointers, maps, chans and funcs travel as
// themselves; results come back whether g ran inline or on a thief.
func TestBothOfPointerShapes(t *testing.T) {
	for _, c := range poolCases(t) {
		t.Run(c.name, func(t *testing.T) {
			noHang(t, "pointer shapes", func() {
				if got := countLeaves(buildTree(12)); got != 1<<12 {
					t.Errorf("leaves = %d, want %d", got, 1<<12)
				}
				m := map[string]int{"a": 1}
				ch := make(chan int, 1)
				fn := func() int { return 7 }
				for range 50 {
					a, b := par.BothOf(func(m map[string]int) int { return m["a"] }, m, func(ch chan int) chan int { ch <- 3; return ch }, ch, c.opts...)
					if a != 1 || <-b != 3 {
						t.Fatalf("map/chan: %d", a)
					}
					x, y := par.BothOf(func(f func() int) int { return f() }, fn, func(f func() int) func() int { return f }, fn, c.opts...)
					if x != 7 || y() != 7 {
						t.Fatalf("func: %d, %d", x, y())
					}
				}
			})
		})
	}
}

// TestBothOfStolenG: g runs on a thief, with a plain and a boxed result.
func TestBothOfStolenG(t *testing.T) {
	p := newPool(t, par.Workers(2))
	for i := range 20 {
		noHang(t, "BothOf with f waiting for g", func() {
			ran := make(chan struct{})
			wait := func(c chan struct{}) int { <-c; return 1 }
			a, b := par.BothOf(wait, ran, func(c chan struct{}) int { close(c); return i }, ran, par.On(p))
			if a != 1 || b != i {
				t.Errorf("BothOf = %d, %d; want 1, %d", a, b, i)
			}
			ran = make(chan struct{})
			_, s := par.BothOf(wait, ran, func(c chan struct{}) string { close(c); return fmt.Sprint(i) }, ran, par.On(p))
			if s != fmt.Sprint(i) {
				t.Errorf("BothOf = %q, want %q", s, fmt.Sprint(i))
			}
			ran = make(chan struct{})
			_, q := par.BothOf(wait, ran, func(c chan struct{}) *int { close(c); v := i; return &v }, ran, par.On(p))
			if q == nil || *q != i {
				t.Errorf("BothOf pointer result = %v, want &%d", q, i)
			}
		})
	}
}

// wide is a divide-and-conquer argument of a slice and two words.
type wide struct {
	xs   []int
	a, b int
}

func sumBoth(w wide) int {
	if len(w.xs) <= 2 {
		return len(w.xs) + w.a - w.b
	}
	m := len(w.xs) / 2
	l, r := par.BothOf(sumBoth, wide{w.xs[:m], w.a, w.b}, sumBoth, wide{w.xs[m:], w.b, w.a})
	return l + r
}

// TestBothOfAllocs: with functions and plain arguments, a fork allocates
// nothing; a boxed argument costs one allocation.
func TestBothOfAllocs(t *testing.T) {
	p := newPool(t, par.Workers(1))
	double := func(x int) int { return 2 * x }
	length := func(s string) int { return len(s) }
	par.For(1, func(int) {
		k := 0
		if n := testing.AllocsPerRun(1000, func() { k++; par.BothOf(double, k, double, k+1) }); n != 0 {
			t.Errorf("BothOf with plain arguments: %v allocs per call, want 0", n)
		}
		if got := testing.AllocsPerRun(100, func() { fibBothOf(10) }); got != 0 {
			t.Errorf("fib(10) on BothOf: %v allocs, want 0", got)
		}
		leaves := func(n *tnode) int { return countLeaves(n) }
		tree := buildTree(8)
		if got := testing.AllocsPerRun(100, func() { par.BothOf(leaves, tree.l, leaves, tree.r) }); got != 0 {
			t.Errorf("tree walk on BothOf with pointer arguments: %v allocs, want 0", got)
		}
		xs := make([]int, 1024)
		if got := testing.AllocsPerRun(20, func() { sumBoth(wide{xs, 1, 2}) }); got != 0 {
			t.Errorf("a recursion on BothOf with a slice and two words as argument: %v allocs, want 0", got)
		}
		s := "abc"
		if n := testing.AllocsPerRun(1000, func() { par.BothOf(length, s, length, s) }); n > 1 {
			t.Errorf("BothOf with a string argument: %v allocs per call, want at most 1", n)
		}
	}, par.On(p))
}

// TestBothOfPanics: panics in f and g, as for Both.
func TestBothOfPanics(t *testing.T) {
	for _, c := range poolCases(t) {
		t.Run(c.name, func(t *testing.T) {
			boom := func(v int) int { panicSite(v); return 0 }
			id := func(v int) int { return v }
			noHang(t, "panics", func() {
				checkPanicError(t, "f", wantPanicError(t, "f", func() { par.BothOf(boom, 1, id, 2, c.opts...) }), 1)
				checkPanicError(t, "g", wantPanicError(t, "g", func() { par.BothOf(id, 1, boom, 2, c.opts...) }), 2)
				checkPanicError(t, "both", wantPanicError(t, "both", func() { par.BothOf(boom, 1, boom, 2, c.opts...) }), 1)
			})
		})
	}
}

// Catches: JoinOf not running both functions, allocating per fork for a
// slice argument, or losing g's panic.
func TestJoinOf(t *testing.T) {
	p := newPool(t, par.Workers(2))
	var sortHalves func(a []int)
	sortHalves = func(a []int) {
		if len(a) <= 8 {
			slices.Sort(a)
			return
		}
		mid := len(a) / 2
		par.JoinOf(sortHalves, a[:mid], sortHalves, a[mid:])
		merged := make([]int, 0, len(a))
		i, j := 0, mid
		for i < mid && j < len(a) {
			if a[i] <= a[j] {
				merged = append(merged, a[i])
				i++
			} else {
				merged = append(merged, a[j])
				j++
			}
		}
		merged = append(append(merged, a[i:mid]...), a[j:]...)
		copy(a, merged)
	}
	a := make([]int, 1000)
	for i := range a {
		a[i] = (i * 7919) % 1000
	}
	par.For(1, func(int) { sortHalves(a) }, par.On(p))
	if !slices.IsSorted(a) {
		t.Error("a merge sort on JoinOf left its slice unsorted")
	}

	var count func(s []int)
	var leaves atomic.Int64
	count = func(s []int) {
		if len(s) <= 1 {
			leaves.Add(1)
			return
		}
		par.JoinOf(count, s[:len(s)/2], count, s[len(s)/2:])
	}
	one := newPool(t, par.Workers(1))
	par.For(1, func(int) {
		count(a)
		if n := testing.AllocsPerRun(20, func() { count(a) }); n != 0 && !raceEnabled {
			t.Errorf("a recursion on JoinOf over a slice: %v allocations, want 0", n)
		}
	}, par.On(one))

	pe := wantPanicError(t, "JoinOf", func() {
		par.JoinOf(func(int) {}, 1, func(v int) { panic(v) }, 2, par.On(p))
	})
	if pe.Value != 2 || pe.Lo != 1 {
		t.Errorf("JoinOf: g's panic %v at %d, want 2 at function 1", pe.Value, pe.Lo)
	}
	if _, panicked := catch(func() { par.JoinOf[int, int](nil, 0, func(int) {}, 0) }); !panicked {
		t.Error("JoinOf with a nil function: no panic")
	}
}
