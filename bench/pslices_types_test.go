package bench

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/parloop/parloop/pslices"
)

// compareInts is cmp.Compare for ints as a function value, as SortFunc
// receives it.
var compareInts = cmp.Compare[int]

// BenchmarkSortTypes is pslices against slices beyond ints and 64-byte
// records, at 10^4 (sorted on the caller) and 10^6 (in parallel): Sort of
// float64s with a NaN in a hundred and of strings (decimal ints), SortFunc
// of ints by a function and of the strings by strings.Compare.
func BenchmarkSortTypes(b *testing.B) {
	for _, n := range []int{10_000, 1_000_000} {
		ints := sortInput("random", n)
		floats := make([]float64, n)
		strs := make([]string, n)
		for i, v := range ints {
			floats[i] = float64(v) / 3
			if v%100 == 0 {
				floats[i] = math.NaN()
			}
			strs[i] = strconv.Itoa(v)
		}
		benchBoth(b, fmt.Sprintf("Sort/float64/n=%d", n), floats,
			slices.Sort[[]float64], func(x []float64) { pslices.Sort(x) })
		benchBoth(b, fmt.Sprintf("Sort/string/n=%d", n), strs,
			slices.Sort[[]string], func(x []string) { pslices.Sort(x) })
		benchBoth(b, fmt.Sprintf("SortFunc/int/n=%d", n), ints,
			func(x []int) { slices.SortFunc(x, compareInts) },
			func(x []int) { pslices.SortFunc(x, compareInts) })
		benchBoth(b, fmt.Sprintf("SortFunc/string/n=%d", n), strs,
			func(x []string) { slices.SortFunc(x, strings.Compare) },
			func(x []string) { pslices.SortFunc(x, strings.Compare) })
	}
}

// benchBoth times the slices and pslices ways to sort in, as
// name/slices and name/pslices.
func benchBoth[E any](b *testing.B, name string, in []E, seq, par func([]E)) {
	b.Run(name+"/slices", func(b *testing.B) { benchSorted(b, in, seq) })
	b.Run(name+"/pslices", func(b *testing.B) { benchSorted(b, in, par) })
}
