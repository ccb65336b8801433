package main

import (
	"cmp"
	"math"
	"math/bits"
	"slices"
)

// BM25's parameters, Lucene's defaults: k1 is how fast a term's weight
// saturates as it repeats in a file, b how much a file's length discounts
// it (0: not at all, 1: in full proportion).
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// maxRanked is how many of a query's terms, the rarest, the ranking's
// first key looks at (one bit each of Hit.Holds).
const maxRanked = 64

// Hit is one file that answers a query.
type Hit struct {
	Path  string
	Score float64 // the file's BM25 score for the query
	Holds uint64  // bit i: the file holds Result.Terms[i] (the 64 rarest only)
}

// Result is the answer to a query.
type Result struct {
	Terms   []string // the query's terms that some file holds, rarest first
	Missing []string // the query's terms that no file holds
	Hits    []Hit    // the best files, best first
	Matched int      // the files that hold at least one query term
}

// queryTerms tokenises a query as files are tokenised, dropping repeated
// terms, in lexical order.
func queryTerms(words []string) []string {
	fc := newFileCounter()
	var terms []string
	for _, w := range words {
		fc.count([]byte(w))
		for id := range fc.terms.Len() {
			terms = append(terms, string(fc.terms.term(uint32(id))))
		}
	}
	slices.Sort(terms)
	return slices.Compact(terms)
}

// Search returns the k files that best answer a query of the given terms
// (lowercased, as queryTerms makes them), best first.
//
// Each file holding at least one term gets its BM25 score (Robertson and
// Zaragoza, "The Probabilistic Relevance Framework: BM25 and Beyond",
// 2009), the sum over the query terms t it holds of
//
//	idf(t) · tf·(k1 + 1) / (tf + k1·(1 − b + b·len/avglen))
//	idf(t) = ln(1 + (N − df + 0.5)/(df + 0.5))
//
// where tf is t's count in the file, len the file's length in tokens,
// avglen the mean length, df the number of files that hold t and N the
// number of files with at least one token; k1 = 1.2 and b = 0.75, Lucene's
// defaults. A term's weight grows with its count but saturates (it never
// passes idf·(k1+1)), so a file cannot win by repeating one common word,
// and a long file's counts weigh less than a short one's.
//
// The files are ranked first by the query terms they hold, the rarest
// deciding: of two files, the one holding the rarest term that only one of
// them holds comes first. So the first file holds the rarest term any file
// holds, and of the files that do, it holds the next rarest that any of
// them holds, and so on: a file that holds every term, if one does, before
// any file that does not. Files that hold the same terms are ranked by
// score, then by path, so the ranking is total, and the same whichever way
// the index was built. A term's rarity is its df, ties broken by the term.
//
// Scoring reads only the postings of the query's terms, term by term into
// a score per file: tens of microseconds for a few thousand postings, less
// than it would cost to start workers, so it runs on the calling goroutine.
func (x *Index) Search(terms []string, k int) Result {
	var r Result
	type weighted struct {
		term string
		ps   []posting
	}
	var ws []weighted
	for _, t := range terms {
		if ps := x.postings(t); len(ps) > 0 {
			ws = append(ws, weighted{t, ps})
		} else {
			r.Missing = append(r.Missing, t)
		}
	}
	slices.SortFunc(ws, func(a, b weighted) int {
		return cmp.Or(cmp.Compare(len(a.ps), len(b.ps)), cmp.Compare(a.term, b.term))
	})
	if len(ws) == 0 || k <= 0 {
		return r
	}
	score := make([]float64, len(x.Docs))
	holds := make([]uint64, len(x.Docs))
	var touched []int32
	n := float64(x.texts)
	for i, w := range ws {
		r.Terms = append(r.Terms, w.term)
		df := float64(len(w.ps))
		idf := math.Log(1 + (n-df+0.5)/(df+0.5))
		for _, p := range w.ps {
			if score[p.doc] == 0 { // every term adds more than 0
				touched = append(touched, p.doc)
			}
			tf := float64(p.tf)
			score[p.doc] += idf * tf * (bm25K1 + 1) / (tf + x.lenNorm[p.doc])
			if i < maxRanked {
				holds[p.doc] |= 1 << i
			}
		}
	}
	var top worst
	for _, d := range touched {
		top.offer(Hit{Path: x.Docs[d].Path, Score: score[d], Holds: holds[d]}, k)
	}
	slices.SortFunc(top, better)
	r.Hits, r.Matched = top, len(touched)
	return r
}

// worst is a heap of the best hits so far, the worst of them at its root,
// so that a hit no better than the root is turned away in one comparison:
// choosing the best k of m hits costs O(m log k).
type worst []Hit

// offer keeps h if it is among the best k seen.
func (w *worst) offer(h Hit, k int) {
	t := *w
	if len(t) < k {
		t = append(t, h)
		for i := len(t) - 1; i > 0; { // up
			up := (i - 1) / 2
			if better(t[i], t[up]) <= 0 {
				break
			}
			t[i], t[up] = t[up], t[i]
			i = up
		}
		*w = t
		return
	}
	if better(h, t[0]) >= 0 {
		return
	}
	t[0] = h
	for i := 0; ; { // down
		worse := i
		for _, c := range [2]int{2*i + 1, 2*i + 2} {
			if c < len(t) && better(t[c], t[worse]) > 0 {
				worse = c
			}
		}
		if worse == i {
			return
		}
		t[i], t[worse] = t[worse], t[i]
		i = worse
	}
}

// better orders hits: by the terms they hold, the rarest that only one of
// them holds deciding, then by score, higher first, then by path.
func better(a, b Hit) int {
	if diff := a.Holds ^ b.Holds; diff != 0 {
		if a.Holds&(1<<bits.TrailingZeros64(diff)) != 0 {
			return -1
		}
		return 1
	}
	return cmp.Or(cmp.Compare(b.Score, a.Score), cmp.Compare(a.Path, b.Path))
}

// heldTerms returns the terms of r that h holds, rarest first.
func (r Result) heldTerms(h Hit) []string {
	var out []string
	for i, t := range r.Terms {
		if i < maxRanked && h.Holds&(1<<i) != 0 {
			out = append(out, t)
		}
	}
	return out
}
