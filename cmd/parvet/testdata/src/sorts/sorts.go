package sorts

import (
	"cmp"
	"slices"
	"sort"
	"strings"

	"github.com/parloop/parloop/iter"
	"github.com/parloop/parloop/par"
)

type doc struct {
	name  string
	score int
}

// Scores fills a slice in parallel, then sorts it on one goroutine.
func Scores(docs []doc) []int {
	out := make([]int, len(docs))
	par.For(len(docs), func(i int) {
		out[i] = len(docs[i].name) * docs[i].score
	})
	slices.Sort(out) // want `slices.Sort sorts out on one goroutine after par.For, which made it in parallel: pslices.Sort sorts it in parallel on the pool \(short slices as slices does\)`
	return out
}

// Mapped sorts par.Map's result with a cmp function.
func Mapped(docs []doc) []doc {
	ranked := par.Map(docs, func(d doc) doc { d.score *= 2; return d })
	slices.SortFunc(ranked, func(a, b doc) int { return cmp.Compare(b.score, a.score) }) // want `slices.SortFunc sorts ranked on one goroutine after par.Map`
	return ranked
}

// Names collects a pipeline and sorts its result with sort.Strings.
func Names(docs []doc) ([]string, error) {
	names, err := iter.Map(iter.Slice(docs), func(d doc) string { return strings.ToLower(d.name) }).Collect()
	sort.Strings(names) // want `sort.Strings sorts names on one goroutine after iter.Pipe.Collect`
	return names, err
}

// Less uses sort.Slice: no fix (less is not a cmp function).
func Less(docs []doc) {
	par.For(len(docs), func(i int) { docs[i].score++ })
	sort.Slice(docs, func(i, j int) bool { return docs[i].score < docs[j].score }) // want `sort.Slice sorts docs on one goroutine after par.For, which made it in parallel: pslices.SortFunc \(or SortStableFunc\), with a cmp function in place of less`
}

// PerItem sorts each item's own slice inside the body: already parallel.
func PerItem(groups [][]int) {
	par.For(len(groups), func(i int) {
		slices.Sort(groups[i])
	})
}

// Unrelated sorts a slice the parallel call does not touch.
func Unrelated(xs, keys []int) {
	par.For(len(xs), func(i int) { xs[i]++ })
	slices.Sort(keys)
}

// NoParallel sorts without any parallel call.
func NoParallel(xs []int) {
	slices.Sort(xs)
}
