package workloads

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// Size of the skewed-documents workload (word counting).
const (
	DocsN      = 5000
	DocsAlpha  = 0.3      // Pareto shape of the lengths (truncated): most documents short, a few of a megabyte
	DocsMin    = 10       // shortest document, bytes
	DocsMax    = 1 << 20  // longest document, bytes
	DocsShortN = 5000     // -short: as many documents,
	DocsShortM = 32 << 10 // ... of at most 32 KB
	DocsVocab  = 20_000   // distinct words
	DocsSeed   = 7
)

// Docs is a set of synthetic text documents whose lengths follow a
// truncated Pareto distribution, like the files of a source tree: Text holds
// them back to back and document i is Text[Off[i]:Off[i+1]]. The words come
// from a vocabulary of DocsVocab made-up words with a Zipf-like frequency
// and are separated by spaces and newlines.
type Docs struct {
	Text string
	Off  []int
}

// NewDocs makes n documents of lengths drawn from a Pareto(alpha) truncated
// to [lo, hi] bytes, from a fixed seed. Document boundaries fall on word
// boundaries (a word never spans two documents).
func NewDocs(n int, alpha float64, lo, hi int, seed uint64) *Docs {
	r := rand.New(rand.NewPCG(seed, 3))
	// Lengths: inverse CDF of the truncated Pareto.
	lens := make([]int, n)
	total := 0
	l, h := float64(lo), float64(hi)
	la, ha := math.Pow(l, alpha), math.Pow(h, alpha)
	for i := range lens {
		u := r.Float64()
		x := math.Pow(-(u*ha-u*la-ha)/(ha*la), -1/alpha)
		lens[i] = min(hi, max(lo, int(x)))
		total += lens[i]
	}
	// The vocabulary: words of 2 to 9 lower-case letters.
	vocab := make([][]byte, DocsVocab)
	for i := range vocab {
		w := make([]byte, 2+r.IntN(8))
		for j := range w {
			w[j] = byte('a' + r.IntN(26))
		}
		vocab[i] = w
	}
	// A table of word indices drawn from a Zipf(1.1) law, picked from
	// uniformly: cheap to draw from, and frequent words repeat as in text.
	z := rand.NewZipf(r, 1.1, 1, DocsVocab-1)
	table := make([]uint32, 1<<16)
	for i := range table {
		table[i] = uint32(z.Uint64())
	}
	text := make([]byte, 0, total+n*10)
	d := &Docs{Off: make([]int, 1, n+1)}
	for _, want := range lens {
		start := len(text)
		for len(text)-start < want {
			w := vocab[table[r.Uint32()&(1<<16-1)]]
			text = append(text, w...)
			sep := byte(' ')
			if r.Uint32()%12 == 0 {
				sep = '\n'
			}
			text = append(text, sep)
		}
		d.Off = append(d.Off, len(text))
	}
	d.Text = string(text)
	return d
}

// N is the number of documents.
func (d *Docs) N() int { return len(d.Off) - 1 }

// Doc is document i.
func (d *Docs) Doc(i int) string { return d.Text[d.Off[i]:d.Off[i+1]] }

// Sizes are the documents' lengths in bytes, as weights.
func (d *Docs) Sizes() []int64 {
	w := make([]int64, d.N())
	for i := range w {
		w[i] = int64(d.Off[i+1] - d.Off[i])
	}
	return w
}

// Counts are word counts.
type Counts = map[string]int

// CountWords adds the words of documents [lo, hi) to m: a word is a maximal
// run of bytes other than space and newline. A key is a substring of Text,
// so counting allocates only as the map grows.
func (d *Docs) CountWords(m Counts, lo, hi int) {
	for i := lo; i < hi; i++ {
		doc := d.Doc(i)
		start := -1
		for j := 0; j < len(doc); j++ {
			if c := doc[j]; c == ' ' || c == '\n' {
				if start >= 0 {
					m[string(doc[start:j])]++
					start = -1
				}
			} else if start < 0 {
				start = j
			}
		}
		if start >= 0 {
			m[string(doc[start:])]++
		}
	}
}

// MergeCounts adds the smaller of a and b into the larger and returns it.
// Either may be nil.
func MergeCounts(a, b Counts) Counts {
	if len(a) < len(b) {
		a, b = b, a
	}
	if a == nil {
		return b
	}
	for w, c := range b {
		a[w] += c
	}
	return a
}

// CountsSum is a summary of a word count that does not depend on the map's
// order: the distinct words, the total count and a checksum of (word,
// count) pairs.
type CountsSum struct {
	Distinct, Total int
	Check           uint64
}

// Summarize computes the summary of m.
func Summarize(m Counts) CountsSum {
	s := CountsSum{Distinct: len(m)}
	for w, c := range m {
		s.Total += c
		h := uint64(14695981039346656037)
		for i := 0; i < len(w); i++ {
			h = (h ^ uint64(w[i])) * 1099511628211
		}
		s.Check += (h ^ uint64(c)) * 0x9e3779b97f4a7c15
	}
	return s
}

func (s CountsSum) String() string {
	return fmt.Sprintf("%d words, %d distinct, checksum %016x", s.Total, s.Distinct, s.Check)
}
