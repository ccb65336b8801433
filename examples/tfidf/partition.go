package main

import (
	"cmp"
	"encoding/binary"
	"slices"
)

// The build's second phase: each partition of the index is built from
// every worker's bin for it, partitions in parallel. A partition is built
// by one goroutine from records no other partition reads, so the phase
// needs no lock and no merge: the workers' first-phase output is read
// once, in place.

// posting says that a term occurs tf times in document doc.
type posting struct {
	doc, tf int32
}

// partition is one part of the index: the terms whose hash falls in it,
// and their postings, term id's sorted by document in
// postings[starts[id]:starts[id+1]].
type partition struct {
	terms    *dict
	starts   []uint32
	postings []posting
}

// runRef names one worker's run: bins ws[w], run r, whose first document
// is first.
type runRef struct {
	first int32
	w, r  int
}

// runsInOrder returns every run of the workers' bins, by first document.
// Runs are stretches of consecutive documents and every document is in
// exactly one, so this is document order.
func runsInOrder(ws []*bins) []runRef {
	var refs []runRef
	for w, b := range ws {
		for r, first := range b.runs {
			refs = append(refs, runRef{first, w, r})
		}
	}
	slices.SortFunc(refs, func(a, b runRef) int { return cmp.Compare(a.first, b.first) })
	return refs
}

// buildPartition builds partition q from the workers' bins, reading their
// runs in document order, in two passes over the records: the first gives
// every term its id (in the order of first appearance, so the same on
// every build) and counts its documents, writing the id over the record's
// hash; the second places each posting at its term's next free slot of
// one array (a counting sort), so the lists cost one allocation in all.
func buildPartition(q int, ws []*bins, order []runRef) partition {
	le := binary.LittleEndian
	terms := newDict()
	var df []uint32
	for _, ref := range order {
		seg := ws[ref.w].segment(ref.r, q)
		for len(seg) > 0 {
			n := recordHead + int(seg[recordHead-1])
			id := terms.add(le.Uint64(seg[8:]), seg[recordHead:n])
			if int(id) == len(df) {
				df = append(df, 0)
			}
			df[id]++
			le.PutUint32(seg[8:], id)
			seg = seg[n:]
		}
	}
	starts := make([]uint32, len(df)+1)
	for id, n := range df {
		starts[id+1] = starts[id] + n
	}
	next := df // reused: next[id] is where term id's next posting goes
	copy(next, starts)
	postings := make([]posting, starts[len(df)])
	for _, ref := range order {
		seg := ws[ref.w].segment(ref.r, q)
		for len(seg) > 0 {
			id := le.Uint32(seg[8:])
			postings[next[id]] = posting{doc: int32(le.Uint32(seg)), tf: int32(le.Uint32(seg[4:]))}
			next[id]++
			seg = seg[recordHead+int(seg[recordHead-1]):]
		}
	}
	return partition{terms: terms, starts: starts, postings: postings}
}

// lookup returns term's postings (term lowercased, h its termHash), or nil.
func (p *partition) lookup(h uint64, term []byte) []posting {
	id, ok := p.terms.find(h, term)
	if !ok {
		return nil
	}
	return p.postings[p.starts[id]:p.starts[id+1]]
}
