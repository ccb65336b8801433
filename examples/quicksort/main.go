// Command quicksort sorts N random ints with a parallel quicksort built on
// par.Join, checks the result, and compares the time with sort.Ints and
// slices.Sort.
//
// It is the textbook recursive fork/join: each partition forks its two sides
// with par.Join, which nests to a depth of about log2(N) and makes
// N/cutoff forks; the runtime must neither deadlock nor start a goroutine
// per fork.
//
//	go run ./examples/quicksort -n 10000000
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math/bits"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"sort"
	"time"

	"github.com/parloop/parloop/par"
)

// cutoff is the length below which a part is sorted sequentially: below a
// few thousand elements a fork costs more than it saves.
const cutoff = 2048

// Sort sorts a in increasing order, in parallel.
func Sort(a []int) {
	// Past 2·log2(n) levels the pivots are bad (an adversarial input);
	// fall back to slices.Sort, as introsort does.
	quicksort(a, 2*bits.Len(uint(len(a))))
}

func quicksort(a []int, depth int) {
	if len(a) <= cutoff || depth == 0 {
		slices.Sort(a)
		return
	}
	lt, gt := partition(a)
	par.Join(
		func() { quicksort(a[:lt], depth-1) },
		func() { quicksort(a[gt:], depth-1) },
	)
}

// partition rearranges a around a median-of-three pivot into a[:lt] <
// pivot, a[lt:gt] == pivot and a[gt:] > pivot. The three-way split keeps
// inputs with many equal keys from degrading to quadratic time.
func partition(a []int) (lt, gt int) {
	x, y, z := a[0], a[len(a)/2], a[len(a)-1]
	pivot := max(min(x, y), min(max(x, y), z))
	lt, i, gt := 0, 0, len(a)
	for i < gt {
		switch v := a[i]; {
		case v < pivot:
			a[lt], a[i] = v, a[lt]
			lt++
			i++
		case v > pivot:
			gt--
			a[gt], a[i] = v, a[gt]
		default:
			i++
		}
	}
	return lt, gt
}

// timeIt returns how long sorting a fresh copy of in with sortFn takes, and
// the sorted copy.
func timeIt(in []int, sortFn func([]int)) (time.Duration, []int) {
	a := slices.Clone(in)
	start := time.Now()
	sortFn(a)
	return time.Since(start), a
}

func run(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("quicksort", flag.ContinueOnError)
	fs.SetOutput(stdout)
	n := fs.Int("n", 5_000_000, "number of random ints to sort")
	seed := fs.Uint64("seed", 1, "random seed")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *n < 0 {
		return fmt.Errorf("-n %d: want a non-negative count", *n)
	}
	rng := rand.New(rand.NewPCG(*seed, 0))
	in := make([]int, *n)
	for i := range in {
		in[i] = rng.Int()
	}

	parTime, got := timeIt(in, Sort)
	sortTime, _ := timeIt(in, sort.Ints)
	slicesTime, want := timeIt(in, slices.Sort[[]int])
	if !slices.IsSorted(got) {
		return errors.New("parallel quicksort: result is not sorted")
	}
	if !slices.Equal(got, want) {
		return errors.New("parallel quicksort: result is not a permutation of the input")
	}
	fmt.Fprintf(stdout, "%d ints, %d workers (GOMAXPROCS=%d): sorted and verified\n", *n, par.Default().Workers(), runtime.GOMAXPROCS(0))
	fmt.Fprintf(stdout, "par.Join quicksort %12v\n", parTime.Round(time.Microsecond))
	fmt.Fprintf(stdout, "sort.Ints          %12v  (%.2fx)\n", sortTime.Round(time.Microsecond), sortTime.Seconds()/parTime.Seconds())
	fmt.Fprintf(stdout, "slices.Sort        %12v  (%.2fx)\n", slicesTime.Round(time.Microsecond), slicesTime.Seconds()/parTime.Seconds())
	return nil
}

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "quicksort:", err)
		}
		os.Exit(2)
	}
}
