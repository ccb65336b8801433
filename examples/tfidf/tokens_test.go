package main

import (
	"maps"
	"math/rand/v2"
	"strings"
	"testing"
)

// referenceCount is the tokeniser written a byte at a time: the terms of
// text with their counts, and the number of tokens.
func referenceCount(text []byte) (map[string]int32, int32) {
	isWord := func(b byte) bool {
		return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == '_'
	}
	counts := map[string]int32{}
	var n int32
	for i := 0; i < len(text); {
		if !isWord(text[i]) {
			i++
			continue
		}
		j := i
		for j < len(text) && isWord(text[j]) {
			j++
		}
		tok := strings.ToLower(string(text[i:j]))
		i = j
		if tok[0] < 'a' || tok[0] > 'z' || len(tok) < minTerm || len(tok) > maxTerm {
			continue
		}
		counts[tok]++
		n++
	}
	return counts, n
}

// countsOf returns what fc counted, as referenceCount does.
func countsOf(fc *fileCounter) map[string]int32 {
	m := map[string]int32{}
	for id := range fc.terms.Len() {
		m[string(fc.terms.term(uint32(id)))] = fc.tf[id]
	}
	return m
}

// checkCount compares the tokeniser with the reference on text, given
// with no room past its end and with room.
func checkCount(t *testing.T, fc *fileCounter, text []byte) {
	t.Helper()
	want, wantN := referenceCount(text)
	roomy := append(make([]byte, 0, len(text)+64), text...)
	for _, in := range [][]byte{text[:len(text):len(text)], roomy} {
		// Garbage past the end, which must be ignored.
		if cap(in) > len(in) {
			for i := len(in); i < cap(in); i++ {
				in[:cap(in)][i] = 'Q'
			}
		}
		n := fc.count(in)
		if got := countsOf(fc); n != wantN || !maps.Equal(got, want) {
			t.Fatalf("count(%q) = %d tokens, %v; want %d, %v", text, n, got, wantN, want)
		}
		for id := range fc.terms.Len() {
			term := fc.terms.term(uint32(id))
			if h := termHash(term); h != fc.terms.hashes[id] {
				t.Fatalf("count(%q): term %q hashed %#x; termHash says %#x", text, term, fc.terms.hashes[id], h)
			}
		}
	}
}

// Catches: a word-at-a-time tokeniser that differs from the byte-at-a-time
// definition (classes of bytes, case, tokens across word boundaries, the
// end of the text, bytes past it, the length limits), or hashes a term
// unlike termHash, on 20,000 random texts (5,000 under the race detector
// without -long) of every length up to 100 drawn from bytes chosen to sit
// on the classes' edges.
func TestCountMatchesReference(t *testing.T) {
	edges := []byte("azAZ09_@[`{/:^\x00\x7f\x80\xc1\xdb\xe1\xfa\xff \n.")
	r := rand.New(rand.NewPCG(5, 6))
	fc := newFileCounter()
	for range int(20000 * sizeScale()) {
		text := make([]byte, r.IntN(101))
		for i := range text {
			if r.IntN(4) == 0 {
				text[i] = edges[r.IntN(len(edges))]
			} else {
				text[i] = "abcdefghXYZ_19"[r.IntN(14)]
			}
		}
		checkCount(t, fc, text)
	}
	for _, s := range []string{"", "a", "ab", "AB cd", strings.Repeat("x", maxTerm), strings.Repeat("y", maxTerm+1),
		"func Foo(x int) { return x_1 + Ab9 }", strings.Repeat("word ", 300)} {
		checkCount(t, fc, []byte(s))
	}
}

// FuzzCount compares the tokeniser with the byte-at-a-time reference.
func FuzzCount(f *testing.F) {
	for _, s := range []string{"", "Hello, World", "x1 _y z__", "\xff\xfeAbc"} {
		f.Add([]byte(s))
	}
	fc := newFileCounter()
	f.Fuzz(func(t *testing.T, text []byte) { checkCount(t, fc, text) })
}
