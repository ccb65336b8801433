package main

import (
	"fmt"
	"slices"

	"github.com/parloop/parloop/par"
)

// Index is a finished inverted index: every term, with the documents it
// occurs in and how often, sorted by document, cut into partitions by the
// term's hash.
type Index struct {
	Docs    []Doc
	texts   int       // documents with at least one token
	avgLen  float64   // their mean length in tokens
	lenNorm []float64 // lenNorm[d]: BM25's k1·(1 − b + b·len/avgLen) for document d
	parts   [partitions]partition
}

// forParts runs body(q) for every partition q, in parallel or not.
type forParts func(body func(q int))

// sequentially runs the partitions one after another.
func sequentially(body func(q int)) {
	for q := range partitions {
		body(q)
	}
}

// onPool runs the partitions with par.For on pool.
func onPool(pool *par.Pool) forParts {
	return func(body func(q int)) { par.For(partitions, body, par.On(pool)) }
}

// finish is the build's second phase: it builds every partition of the
// index from the workers' bins, with each (par.For over the partitions, or
// one after another for the sequential build). It returns the read error
// of the lowest document, if any.
func (c *corpus) finish(ws []*bins, each forParts) (*Index, error) {
	var err error
	errAt := int32(-1)
	for _, b := range ws {
		if b.err != nil && (errAt < 0 || b.errAt < errAt) {
			err, errAt = b.err, b.errAt
		}
	}
	if err != nil {
		return nil, err
	}
	order := runsInOrder(ws)
	x := &Index{Docs: slices.Clone(c.docs)}
	each(func(q int) { x.parts[q] = buildPartition(q, ws, order) })
	var tokens int64
	for _, d := range x.Docs {
		if d.Len > 0 {
			x.texts++
			tokens += int64(d.Len)
		}
	}
	if x.texts > 0 {
		x.avgLen = float64(tokens) / float64(x.texts)
	}
	x.lenNorm = make([]float64, len(x.Docs))
	for d, doc := range x.Docs {
		if doc.Len > 0 {
			x.lenNorm[d] = bm25K1 * (1 - bm25B + bm25B*float64(doc.Len)/x.avgLen)
		}
	}
	return x, nil
}

// Terms returns the number of distinct terms.
func (x *Index) Terms() int {
	n := 0
	for i := range x.parts {
		n += x.parts[i].terms.Len()
	}
	return n
}

// postings returns term's postings (term lowercased), sorted by document.
func (x *Index) postings(term string) []posting {
	h := termHash([]byte(term))
	return x.parts[partitionOf(h)].lookup(h, []byte(term))
}

// diff returns a description of the first difference between two indexes,
// or "" if they are the same. Every build gives its terms the same ids in
// the same order, so two indexes of the same files are equal part by part.
func diff(a, b *Index) string {
	if len(a.Docs) != len(b.Docs) {
		return fmt.Sprintf("%d documents against %d", len(a.Docs), len(b.Docs))
	}
	for i := range a.Docs {
		if a.Docs[i] != b.Docs[i] {
			return fmt.Sprintf("document %d: %+v against %+v", i, a.Docs[i], b.Docs[i])
		}
	}
	if a.Terms() != b.Terms() {
		return fmt.Sprintf("%d terms against %d", a.Terms(), b.Terms())
	}
	for q := range a.parts {
		pa, pb := &a.parts[q], &b.parts[q]
		if !pa.terms.equal(pb.terms) {
			return fmt.Sprintf("partition %d: the terms differ", q)
		}
		for id := range pa.terms.Len() {
			if !slices.Equal(pa.lookup(pa.terms.hashes[id], pa.terms.term(uint32(id))), pb.lookup(pa.terms.hashes[id], pa.terms.term(uint32(id)))) {
				return fmt.Sprintf("term %q: postings differ", pa.terms.term(uint32(id)))
			}
		}
	}
	return ""
}
