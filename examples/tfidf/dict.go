package main

import (
	"bytes"
	"slices"
)

// dict maps terms to dense ids 0, 1, 2, ... in the order they are first
// added. It is an open-addressing hash table with linear probing over the
// terms' 64-bit hashes (termHash), which the caller computes once per
// token; the terms' bytes live in one array, so a dict holds no pointer
// per term and costs the collector nothing to scan.
//
// Two kinds of dict are in a build: a file's (fileCounter: the distinct
// terms of the file being read, cleared for the next file) and a
// partition's (the terms of the finished index whose hash falls in it).
type dict struct {
	slots  []uint64 // 0 if empty, else the high 32 bits of a term's hash and its id+1 in the low 32; len is a power of 2
	hashes []uint64 // hashes[id]: the term's hash
	starts []uint32 // term id is text[starts[id]:starts[id+1]]
	text   []byte
	at     []uint32 // at[id]: the slot that holds id, for reset
}

// minSlots is a dict's smallest table.
const minSlots = 1 << 10

func newDict() *dict {
	return &dict{slots: make([]uint64, minSlots), starts: []uint32{0}}
}

// Len returns the number of terms.
func (d *dict) Len() int { return len(d.hashes) }

// term returns the bytes of term id.
func (d *dict) term(id uint32) []byte { return d.text[d.starts[id]:d.starts[id+1]] }

// slotOf is what a slot holds for term id of hash h.
func slotOf(h uint64, id uint32) uint64 { return h&^(1<<32-1) | uint64(id+1) }

// find returns term's id, or false if it has none; h is termHash(term).
func (d *dict) find(h uint64, term []byte) (uint32, bool) {
	mask := uint64(len(d.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		s := d.slots[i]
		if s == 0 {
			return 0, false
		}
		if id := uint32(s) - 1; s>>32 == h>>32 && bytes.Equal(d.term(id), term) {
			return id, true
		}
	}
}

// add returns term's id, giving it the next one if it has none yet; h is
// termHash(term).
func (d *dict) add(h uint64, term []byte) uint32 {
	mask := uint64(len(d.slots) - 1)
	i := h & mask
	for ; ; i = (i + 1) & mask {
		s := d.slots[i]
		if s == 0 {
			break
		}
		if id := uint32(s) - 1; s>>32 == h>>32 && bytes.Equal(d.term(id), term) {
			return id
		}
	}
	id := uint32(len(d.hashes))
	d.slots[i] = slotOf(h, id)
	d.hashes = append(d.hashes, h)
	d.text = append(d.text, term...)
	d.starts = append(d.starts, uint32(len(d.text)))
	d.at = append(d.at, uint32(i))
	if 2*len(d.hashes) > len(d.slots) { // at most half full
		d.grow()
	}
	return id
}

// grow doubles the table and places every term again.
func (d *dict) grow() {
	d.slots = make([]uint64, 2*len(d.slots))
	mask := uint64(len(d.slots) - 1)
	for id, h := range d.hashes {
		i := h & mask
		for d.slots[i] != 0 {
			i = (i + 1) & mask
		}
		d.slots[i] = slotOf(h, uint32(id))
		d.at[id] = uint32(i)
	}
}

// reset empties d, keeping its memory: the slots it used are cleared one
// by one when they are few, all at once otherwise.
func (d *dict) reset() {
	if 8*len(d.at) < len(d.slots) {
		for _, i := range d.at {
			d.slots[i] = 0
		}
	} else {
		clear(d.slots)
	}
	d.hashes, d.text, d.starts, d.at = d.hashes[:0], d.text[:0], d.starts[:1], d.at[:0]
}

// equal reports whether d and e hold the same terms with the same ids.
func (d *dict) equal(e *dict) bool {
	return bytes.Equal(d.text, e.text) && slices.Equal(d.starts, e.starts)
}
