package main

import (
	"encoding/binary"
	"math/bits"
)

// Term limits: a token is a run of ASCII letters, digits and underscores
// that starts with a letter, lowercased; tokens shorter than minTerm or
// longer than maxTerm (base64 blobs, generated tables) are skipped.
const (
	minTerm = 2
	maxTerm = 40
)

// wordClass[b] is 0 for a byte that ends a token, 1 for a digit or an
// underscore, 2 for a letter (ASCII only).
var wordClass = func() (c [256]byte) {
	for b := range 256 {
		switch {
		case b >= 'a' && b <= 'z', b >= 'A' && b <= 'Z':
			c[b] = 2
		case b >= '0' && b <= '9', b == '_':
			c[b] = 1
		}
	}
	return c
}()

// The tokeniser reads a file eight bytes at a time, as a little-endian
// uint64: one test finds the next word byte or the end of a token, with
// no branch per byte, and a token is lowercased and hashed a word at a
// time. between and its uses mark bytes in a class with 0x80.
const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// between marks with 0x80 each byte b of x with m < b < n (n <= 128):
// for a byte below 0x80, (127+n) - b has its top bit set when b < n and
// b + (127-m) when b > m, with no borrow or carry past the byte; a byte
// from 0x80 up is cleared by &^ x.
func between(x, m, n uint64) uint64 {
	low := x &^ highs
	return (ones*(127+n) - low) &^ x & (low + ones*(127-m)) & highs
}

// wordBytes marks the bytes of x that are letters, digits or underscores:
// between's three tests, written out so that the function inlines. Folding
// case first (x | 0x20 in each byte) brings only 'A' to 'Z' into 'a' to
// 'z', and leaves the top bit alone.
func wordBytes(x uint64) uint64 {
	low := x &^ highs
	fold := low | ones*0x20
	letter := (ones*(127+'z'+1) - fold) & (fold + ones*(127-('a'-1)))
	digit := (ones*(127+'9'+1) - low) & (low + ones*(127-('0'-1)))
	under := (ones*(127+'_'+1) - low) & (low + ones*(127-('_'-1)))
	return (letter | digit | under) &^ x & highs
}

// lowerWord lowercases the ASCII letters of x.
func lowerWord(x uint64) uint64 { return x | between(x, 'A'-1, 'Z'+1)>>2 }

// keepBytes[r] keeps the first r bytes of a word (0 < r < 8), zeroing the
// rest.
var keepBytes = [8]uint64{0, 0xff, 0xffff, 0xffffff, 0xffffffff, 0xffffffffff, 0xffffffffffff, 0xffffffffffffff}

// firstBytes[r] marks the first r bytes of a word (r < 8).
var firstBytes = [8]uint64{0, 0x80, 0x8080, 0x808080, 0x80808080, 0x8080808080, 0x808080808080, 0x80808080808080}

// load8 reads the eight bytes of buf at p.
func load8(buf []byte, p int) uint64 { return binary.LittleEndian.Uint64(buf[p : p+8]) }

// hashWord adds the next eight bytes of a term, lowercased and zero-padded
// past its end, to the hash h (a term holds no zero byte, so padding cannot
// make two terms alike); mixHash finishes it, with the length, so that its
// high bits (the partition) and its low bits (a dict's slot) both depend on
// every byte.
func hashWord(h, w uint64) uint64 { return bits.RotateLeft64((h^w)*0x9e3779b97f4a7c15, 29) }

const hashSeed = 0x243f6a8885a308d3

func mixHash(h uint64, n int) uint64 {
	h ^= uint64(n)
	h ^= h >> 32
	h *= 0xd6e8feb86659fd93
	h ^= h >> 32
	return h
}

// termHash is the hash of a term already lowercased, as the tokeniser
// computes it.
func termHash(term []byte) uint64 {
	h := uint64(hashSeed)
	for k := 0; k < len(term); k += 8 {
		var w [8]byte
		copy(w[:], term[k:])
		h = hashWord(h, binary.LittleEndian.Uint64(w[:]))
	}
	return mixHash(h, len(term))
}

// fileCounter counts the terms of one file at a time: its dict holds the
// file's distinct terms, tf[id] how often each occurs. Counting a file's
// tokens in a table of its own, small enough to stay in cache, means the
// build handles each distinct term of a file once instead of each token.
type fileCounter struct {
	terms *dict
	tf    []int32
	lower [maxTerm + 8]byte // the token being counted, lowercased
	pad   []byte            // a copy of text with no room for load8 past its end
}

func newFileCounter() *fileCounter { return &fileCounter{terms: newDict()} }

// slack is how many bytes past a text's end load8 may read: the tokeniser
// masks them off, but they must be there.
const slack = 8

// count tokenises text, one file's, into fc (emptied first) and returns
// how many tokens it counted. Reading past len(text), up to slack bytes,
// is free when its capacity allows (corpus.read leaves room); otherwise
// text is copied first.
func (fc *fileCounter) count(text []byte) int32 {
	fc.terms.reset()
	fc.tf = fc.tf[:0]
	n := len(text)
	if cap(text)-n < slack {
		fc.pad = append(append(fc.pad[:0], text...), make([]byte, slack)...)
		text = fc.pad
	}
	buf := text[:n+slack]
	var tokens int32
	start, inToken := 0, false
	for p := 0; p < n; p += 8 {
		w := wordBytes(load8(buf, p))
		if n-p < 8 {
			w &= firstBytes[n-p] // past the end: no word bytes
		}
		// Edges: the bytes whose class differs from the byte before's.
		before := w << 8
		if inToken {
			before |= 0x80
		}
		inToken = w>>63 != 0
		for edges := (w ^ before) & highs; edges != 0; edges &= edges - 1 {
			at := bits.TrailingZeros64(edges)
			if w>>at&1 != 0 {
				start = p + at>>3
			} else if fc.add(buf, start, p+at>>3) {
				tokens++
			}
		}
	}
	if inToken && fc.add(buf, start, n) {
		tokens++
	}
	return tokens
}

// add counts the token buf[start:end] if it is a term (it starts with a
// letter and has minTerm to maxTerm bytes), and reports whether it was.
// buf holds slack bytes past end.
func (fc *fileCounter) add(buf []byte, start, end int) bool {
	size := end - start
	if size < minTerm || size > maxTerm || wordClass[buf[start]] != 2 {
		return false
	}
	h := uint64(hashSeed)
	for k := 0; k < size; k += 8 {
		w := lowerWord(load8(buf, start+k))
		if size-k < 8 {
			w &= keepBytes[size-k]
		}
		binary.LittleEndian.PutUint64(fc.lower[k:], w)
		h = hashWord(h, w)
	}
	id := fc.terms.add(mixHash(h, size), fc.lower[:size])
	if int(id) == len(fc.tf) {
		fc.tf = append(fc.tf, 0)
	}
	fc.tf[id]++
	return true
}
