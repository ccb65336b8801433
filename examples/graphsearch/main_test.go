package main

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/parloop/parloop/par"
	"go.uber.org/goleak"
)

// The strategies start goroutines (the pool's, one per node): none may be
// left behind.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// reachable returns what a search of g from src must find, computed
// independently of the strategies: a breadth-first search with a map for
// the visited set.
func reachable(g *Graph, src int32, rounds int) Result {
	seen := map[int32]bool{src: true}
	var r Result
	for level := []int32{src}; len(level) > 0; {
		var next []int32
		for _, v := range level {
			k := g.Key(v, rounds)
			r.Reached++
			if k%16 == 0 {
				r.Marked++
			}
			r.KeySum += k
			for _, u := range g.Neighbours(v) {
				if !seen[u] {
					seen[u] = true
					next = append(next, u)
				}
			}
		}
		level = next
	}
	return r
}

// Catches: a strategy that visits a node twice (a visited set whose claim
// is not atomic), misses one (a scope returning before its tasks, a task
// lost), or counts a node's key wrongly; on graphs where most nodes are
// reached and on ones where few are.
func TestStrategiesFindTheSame(t *testing.T) {
	for _, c := range []struct {
		n    int
		seed uint64
		src  int32
	}{
		{1, 1, 0}, {2, 3, 1}, {100, 2, 7}, {5000, 3, 0}, {20000, 4, 19999}, {20000, 5, 12345},
	} {
		g := Generate(c.n, c.seed)
		pool := par.NewPool()
		defer pool.Close()
		want := reachable(g, c.src, 1)
		for _, s := range strategies {
			if got := s.search(pool, g, c.src, 1); got != want {
				t.Errorf("n=%d seed=%d src=%d: %s found %+v, want %+v", c.n, c.seed, c.src, s.name, got, want)
			}
		}
	}
	g := Generate(20000, 5)
	if r := reachable(g, 0, 0); r.Reached < 15000 {
		t.Errorf("from node 0, %d of 20000 nodes reached: the graph is too sparse to test the search", r.Reached)
	}
}

// Catches: a generator that depends on anything but n and seed (the
// figures in the doc would not reproduce), or that gives a node no
// neighbours or an edge out of range.
func TestGenerateIsDeterministic(t *testing.T) {
	a, b, c := Generate(10000, 9), Generate(10000, 9), Generate(10000, 10)
	if fmt.Sprint(a.Offsets, a.Targets) != fmt.Sprint(b.Offsets, b.Targets) {
		t.Error("two graphs from one seed differ")
	}
	if fmt.Sprint(a.Targets) == fmt.Sprint(c.Targets) {
		t.Error("graphs from seeds 9 and 10 are the same")
	}
	for v := range int32(a.Len()) {
		ns := a.Neighbours(v)
		if len(ns) < 1 || len(ns) > 5 {
			t.Fatalf("node %d has %d neighbours, want 1 to 5", v, len(ns))
		}
		for _, u := range ns {
			if u < 0 || int(u) >= a.Len() {
				t.Fatalf("node %d has neighbour %d, out of range", v, u)
			}
		}
	}
}

// Catches: a concurrent visited set that lets two goroutines claim the
// same node, or loses a claim.
func TestAtomicBitsetClaimsOnce(t *testing.T) {
	const n, goroutines = 1 << 12, 4
	s := newAtomicBitset(n)
	claims := make([][]int32, goroutines)
	var wg sync.WaitGroup
	for i := range goroutines {
		wg.Go(func() {
			for v := range int32(n) {
				if s.add(v) {
					claims[i] = append(claims[i], v)
				}
			}
		})
	}
	wg.Wait()
	claimed := make([]int, n)
	for _, c := range claims {
		for _, v := range c {
			claimed[v]++
		}
	}
	for v, k := range claimed {
		if k != 1 {
			t.Fatalf("node %d claimed %d times", v, k)
		}
	}
}

// Catches: a command that prints a wrong result or leaves a strategy out
// of its table, and flags it accepts that it should refuse.
func TestCommand(t *testing.T) {
	o, err := parseFlags([]string{"-n", "10000", "-seed", "2", "-src", "5", "-work", "1", "-strategy", "all", "-runs", "3"}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := run(o, &out); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	want := reachable(Generate(10000, 2), 5, 1)
	if !strings.Contains(text, fmt.Sprintf("%d reached, %d marked", want.Reached, want.Marked)) {
		t.Errorf("output does not give %+v:\n%s", want, text)
	}
	for _, s := range strategies {
		if !strings.Contains(text, "\n"+s.name+" ") {
			t.Errorf("output has no line for %s:\n%s", s.name, text)
		}
	}
	for _, args := range [][]string{
		{"-strategy", "nope"}, {"-n", "0"}, {"-src", "-1"}, {"-n", "10", "-src", "10"}, {"-work", "-1"}, {"-runs", "0"}, {"extra"},
	} {
		if _, err := parseFlags(args, &bytes.Buffer{}); err == nil {
			t.Errorf("parseFlags(%q) accepted it", args)
		}
	}
}
