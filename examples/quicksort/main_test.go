package main

import (
	"bytes"
	"flag"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// long selects TestSort's long run: inputs of 300,000 instead of 30,000.
var long = flag.Bool("long", false, "sort inputs of 300,000 in TestSort")

// Catches: a sort that loses, duplicates or misplaces elements (a join
// returning before its stolen half is done, overlapping halves), or that
// goes quadratic or infinitely deep on sorted, reversed or all-equal input.
func TestSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	big := 30_000
	if *long {
		big = 300_000
	}
	inputs := map[string]func(n int) []int{
		"random": func(n int) []int {
			a := make([]int, n)
			for i := range a {
				a[i] = rng.Int() - rng.Int()
			}
			return a
		},
		"few distinct": func(n int) []int {
			a := make([]int, n)
			for i := range a {
				a[i] = rng.IntN(4)
			}
			return a
		},
		"all equal": func(n int) []int { return make([]int, n) },
		"sorted": func(n int) []int {
			a := make([]int, n)
			for i := range a {
				a[i] = i
			}
			return a
		},
		"reversed": func(n int) []int {
			a := make([]int, n)
			for i := range a {
				a[i] = n - i
			}
			return a
		},
		"organ pipe": func(n int) []int {
			a := make([]int, n)
			for i := range a {
				a[i] = min(i, n-i)
			}
			return a
		},
	}
	for name, gen := range inputs {
		for _, n := range []int{0, 1, 2, 3, 100, cutoff, cutoff + 1, 10_000, big} {
			in := gen(n)
			want := slices.Clone(in)
			slices.Sort(want)
			got := slices.Clone(in)
			Sort(got)
			if !slices.Equal(got, want) {
				t.Errorf("%s, n=%d: Sort result differs from slices.Sort", name, n)
			}
		}
	}
}

// Catches: a command that reports success without sorting, or ignores -n.
func TestRun(t *testing.T) {
	var out bytes.Buffer
	if err := run([]string{"-n", "50000", "-seed", "3"}, &out); err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	for _, want := range []string{"50000 ints", "verified", "sort.Ints", "slices.Sort"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	if err := run([]string{"-n", "-1"}, &out); err == nil {
		t.Errorf("-n -1 accepted")
	}
}
