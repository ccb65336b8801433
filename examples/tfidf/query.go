package main

import (
	"cmp"
	"math"
	"slices"
	"sort"

	"github.com/parloop/parloop/par"
)

// Hit is one answer to a query.
type Hit struct {
	Path  string
	Score float64
}

// queryTerms tokenises a query as documents are tokenised, dropping
// repeated terms.
func queryTerms(words []string) []string {
	t := newTable()
	for _, w := range words {
		t.add(0, []byte(w))
	}
	var terms []string
	for _, s := range t.shards {
		for term := range s.terms {
			terms = append(terms, term)
		}
	}
	slices.Sort(terms)
	return terms
}

// better orders hits: higher score first, ties broken by path, so the
// ranking is the same however the documents were split.
func better(a, b Hit) int {
	if c := cmp.Compare(b.Score, a.Score); c != 0 {
		return c
	}
	return cmp.Compare(a.Path, b.Path)
}

// topK is one worker's best k hits so far, best first, with its scratch.
type topK struct {
	hits    []Hit
	matched int       // documents with a score above 0
	scores  []float64 // scratch: the scores of a piece's documents
}

// offer keeps h if it is among the best k.
func (t *topK) offer(h Hit, k int) {
	if len(t.hits) == k && better(h, t.hits[k-1]) >= 0 {
		return
	}
	i, _ := slices.BinarySearchFunc(t.hits, h, better)
	if len(t.hits) < k {
		t.hits = append(t.hits, Hit{})
	}
	copy(t.hits[i+1:], t.hits[i:])
	t.hits[i] = h
}

// Search scores every document against the query terms in parallel and
// returns the best k, best first, and how many documents matched at all.
//
// A document's score is its TF-IDF: the sum over the query terms it
// contains of (1 + ln tf) · ln(N/df), where tf is the term's count in the
// document, df the number of documents that contain it and N the number of
// documents, divided by the square root of the document's length in
// tokens, so that a long file does not win by length alone. Each score is
// summed over the terms in the same order, so it is bitwise the same
// whichever piece of the documents it was computed in.
//
// The documents are split with par.Fold: each worker keeps its own top k
// of the pieces it scores, and the workers' lists are merged at the end.
func (x *Index) Search(terms []string, k int, opts ...par.Option) ([]Hit, int) {
	if k <= 0 {
		return nil, 0
	}
	n := len(x.Docs)
	type weighted struct {
		ps  []posting
		idf float64
	}
	var ws []weighted
	for _, term := range terms {
		if ps := x.postings(term); len(ps) > 0 {
			ws = append(ws, weighted{ps, math.Log(float64(n) / float64(len(ps)))})
		}
	}
	if len(ws) == 0 {
		return nil, 0
	}
	top := par.Fold(n, func() *topK { return new(topK) }, func(t **topK, lo, hi int) {
		acc := *t
		if cap(acc.scores) < hi-lo {
			acc.scores = make([]float64, hi-lo)
		}
		scores := acc.scores[:hi-lo]
		clear(scores)
		for _, w := range ws {
			// The postings of documents in [lo, hi).
			j := sort.Search(len(w.ps), func(j int) bool { return int(w.ps[j].doc) >= lo })
			for ; j < len(w.ps) && int(w.ps[j].doc) < hi; j++ {
				p := w.ps[j]
				scores[int(p.doc)-lo] += (1 + math.Log(float64(p.tf))) * w.idf
			}
		}
		for i, s := range scores {
			if s > 0 {
				d := &x.Docs[lo+i]
				acc.matched++
				acc.offer(Hit{Path: d.Path, Score: s / math.Sqrt(float64(d.Len))}, k)
			}
		}
	}, func(a, b *topK) *topK {
		for _, h := range b.hits {
			a.offer(h, k)
		}
		a.matched += b.matched
		return a
	}, opts...)
	return top.hits, top.matched
}
