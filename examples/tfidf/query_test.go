package main

import (
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/parloop/parloop/par"
)

// Catches: a BM25 score that departs from the formula (the idf, the
// saturation in tf, the length normalisation, N or the mean length counting
// binary or empty files), a ranking that does not put the rarest held
// terms first, and ties not broken by path. The corpus is
// testdata/ranking; the expected scores were computed by hand from the
// formula in Search's doc:
//
//	files with tokens: a.txt "the deque is deque" (4 tokens: "a" is too
//	short), b.txt "work stealing work stealing work" (5), c.txt "stealing
//	deque" (2), d.txt "work the" ×4 (8), e.txt and f.txt "deque" (1 each),
//	g.txt "stealing filler×19" (20); bin.dat is binary, empty.txt empty.
//	N = 7, avglen = 41/7 = 5.857143
//	idf(work: df 2)     = ln(1 + 5.5/2.5) = ln 3.2     = 1.163151
//	idf(stealing: df 3) = ln(1 + 4.5/3.5) = ln(16/7)   = 0.826679
//	idf(deque: df 4)    = ln(1 + 3.5/4.5) = ln(16/9)   = 0.575364
//	idf(the: df 2)      = 1.163151,  idf(is: df 1) = ln(1 + 6.5/1.5) = 1.673976
//	w(tf, len) = idf · 2.2·tf / (tf + 1.2·(0.25 + 0.75·len/avglen))
//	b: work 1.163151·6.6/(3 + 1.2·0.890244) = 1.886982,
//	   stealing 0.826679·4.4/(2 + 1.068293) = 1.185475: 3.072458
//	c: stealing 0.826679·2.2/(1 + 1.2·0.506098) = 1.131508,
//	   deque 0.575364·2.2/1.607317 = 0.787524: 1.919033
//	d: work 1.163151·8.8/(4 + 1.2·1.274390) = 1.851190
//	e, f: deque 0.575364·2.2/(1 + 1.2·0.378049) = 0.870769
//	a: deque 0.575364·4.4/(2 + 1.2·0.762195) = 0.868583,
//	   the 1.163151·2.2/1.914634 = 1.336512, is 1.673976·2.2/1.914634 = 1.923474
//	g: stealing 0.826679·2.2/(1 + 1.2·2.810976) = 0.415875
//
// For "work stealing deque" the rarest term is work, then stealing: b holds
// both; d holds work alone, and so comes before c (stealing and deque),
// which BM25 alone would put second (1.919 > 1.851); g (stealing, 0.416)
// before every file that holds only deque; e and f tie, by path.
func TestRankingByHand(t *testing.T) {
	c, err := walk(filepath.Join("testdata", "ranking"))
	if err != nil {
		t.Fatal(err)
	}
	x := buildWith(t, c, "sequential", nil)
	type hit struct {
		path  string
		score float64
		holds string
	}
	for _, tc := range []struct {
		query string
		want  []hit
	}{
		{"work stealing deque", []hit{
			{"b.txt", 3.072458, "work stealing"}, {"d.txt", 1.851190, "work"}, {"c.txt", 1.919033, "stealing deque"},
			{"g.txt", 0.415875, "stealing"}, {"e.txt", 0.870769, "deque"}, {"f.txt", 0.870769, "deque"}, {"a.txt", 0.868583, "deque"},
		}},
		{"Deque", []hit{
			{"e.txt", 0.870769, "deque"}, {"f.txt", 0.870769, "deque"}, {"a.txt", 0.868583, "deque"}, {"c.txt", 0.787524, "deque"},
		}},
		{"the IS the", []hit{{"a.txt", 1.923474 + 1.336512, "is the"}, {"d.txt", 1.851190, "the"}}},
		{"nosuchword", nil},
	} {
		r := x.Search(queryTerms(strings.Fields(tc.query)), 10)
		var got []hit
		for _, h := range r.Hits {
			got = append(got, hit{h.Path, h.Score, strings.Join(r.heldTerms(h), " ")})
		}
		ok := len(got) == len(tc.want) && r.Matched == len(tc.want)
		for i := 0; ok && i < len(got); i++ {
			ok = got[i].path == tc.want[i].path && got[i].holds == tc.want[i].holds && math.Abs(got[i].score-tc.want[i].score) < 2e-6
		}
		if !ok {
			t.Errorf("%q: %d matched, %v; want %v", tc.query, r.Matched, got, tc.want)
		}
	}
	// k cuts the same ranking.
	if r := x.Search(queryTerms([]string{"work", "stealing", "deque"}), 2); len(r.Hits) != 2 || r.Hits[1].Path != "d.txt" || r.Matched != 7 {
		t.Errorf("k = 2: %+v", r)
	}
	if r := x.Search(queryTerms([]string{"deque", "nosuchword"}), 10); !slices.Equal(r.Missing, []string{"nosuchword"}) || r.Matched != 4 {
		t.Errorf("a term no file holds: missing %q, %d matched; want [nosuchword], 4", r.Missing, r.Matched)
	}
}

// Catches: query words tokenised unlike the files' words (case, repeats,
// punctuation, short or long tokens).
func TestQueryTerms(t *testing.T) {
	got := queryTerms([]string{"Work-Stealing", "work", "a", "x1", "DEQUE!", strings.Repeat("z", maxTerm+1)})
	if want := []string{"deque", "stealing", "work", "x1"}; !slices.Equal(got, want) {
		t.Errorf("queryTerms: %q; want %q", got, want)
	}
}

// Catches: an answer that holds fewer of the rarest terms than some file
// does. On a generated corpus, for queries of two to four words, the first
// hit must hold, of the query's terms by increasing document frequency, the
// longest run of the rarest that some file holds in full, checked against
// every file's terms read back from the postings.
func TestTopHitHoldsRarest(t *testing.T) {
	x := generatedIndex(t, 200)
	r := rand.New(rand.NewPCG(3, 4))
	for range 200 {
		terms := randomQuery(r, 2, 4)
		res := x.Search(terms, 1)
		if len(res.Hits) == 0 {
			continue
		}
		// Which files hold each term, and the terms by rarity.
		holders := map[string]map[string]bool{}
		for _, term := range res.Terms {
			holders[term] = map[string]bool{}
			for _, p := range x.postings(term) {
				holders[term][x.Docs[p.doc].Path] = true
			}
		}
		// Candidates: every file; keep those holding each term in turn,
		// when some do.
		cands := map[string]bool{}
		for _, d := range x.Docs {
			cands[d.Path] = true
		}
		for _, term := range res.Terms {
			keep := map[string]bool{}
			for p := range cands {
				if holders[term][p] {
					keep[p] = true
				}
			}
			if len(keep) > 0 {
				cands = keep
			}
		}
		if top := res.Hits[0].Path; !cands[top] {
			t.Errorf("query %q: the top hit %s holds %q; files holding more of the rarest terms (%q) exist", terms, top, res.heldTerms(res.Hits[0]), res.Terms)
		}
	}
}

// Catches: answers on Go's own source tree that a reader would not accept:
// for each query, a file about it must be among the first five.
func TestGorootQueries(t *testing.T) {
	if testing.Short() {
		t.Skip("indexes GOROOT/src")
	}
	if raceEnabled {
		t.Skip("indexes GOROOT/src, which takes a minute under the race detector")
	}
	c, err := walk(gorootSrc(t))
	if err != nil {
		t.Fatal(err)
	}
	pool := par.NewPool()
	defer pool.Close()
	x := buildWith(t, c, "stealing", pool)
	for query, want := range map[string]string{
		"work stealing deque":         "cmd/compile/internal/escape/solve.go",
		"goroutine preemption signal": "runtime/preempt.go",
		"escape analysis":             "cmd/compile/internal/escape/escape.go",
	} {
		r := x.Search(queryTerms(strings.Fields(query)), 5)
		var top []string
		for _, h := range r.Hits {
			top = append(top, h.Path)
		}
		if !slices.Contains(top, want) {
			t.Errorf("%q: the first five are %q; want %s among them", query, top, want)
		}
	}
}

// Catches: a top-k selection that loses or misorders hits: for random
// queries on a generated corpus, the best k for every k are the first k of
// the whole ranking, which is sorted by better.
func TestSearchTopK(t *testing.T) {
	x := generatedIndex(t, 150)
	r := rand.New(rand.NewPCG(7, 8))
	for range 50 {
		terms := randomQuery(r, 1, 4)
		all := x.Search(terms, len(x.Docs))
		if len(all.Hits) != all.Matched || !slices.IsSortedFunc(all.Hits, better) {
			t.Fatalf("query %q: %d hits of %d matched, sorted %v", terms, len(all.Hits), all.Matched, slices.IsSortedFunc(all.Hits, better))
		}
		for _, k := range []int{1, 2, 3, 7, 10, 40} {
			got := x.Search(terms, k)
			if want := all.Hits[:min(k, len(all.Hits))]; !slices.Equal(got.Hits, want) || got.Matched != all.Matched {
				t.Fatalf("query %q, k = %d: %v; want %v", terms, k, got.Hits, want)
			}
		}
	}
}

// generatedIndex builds, sequentially, the index of a generated corpus of
// files files.
func generatedIndex(t *testing.T, files int) *Index {
	t.Helper()
	dir := t.TempDir()
	makeCorpus(t, dir, files, 1)
	c, err := walk(dir)
	if err != nil {
		t.Fatal(err)
	}
	return buildWith(t, c, "sequential", nil)
}

// randomQuery draws a query of lo to hi words of the generated corpus'
// vocabulary.
func randomQuery(r *rand.Rand, lo, hi int) []string {
	var words []string
	for range lo + r.IntN(hi-lo+1) {
		words = append(words, vocabulary[r.IntN(len(vocabulary))])
	}
	return queryTerms(words)
}
