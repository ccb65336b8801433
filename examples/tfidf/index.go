package main

import (
	"bytes"
	"cmp"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync/atomic"
	"time"

	"github.com/parloop/parloop/par"
)

// Term limits: a token is a run of ASCII letters, digits and underscores
// that starts with a letter, lowercased; tokens shorter than minTerm or
// longer than maxTerm (base64 blobs, generated tables) are skipped.
const (
	minTerm = 2
	maxTerm = 40
)

// binarySniff is how much of a file is looked at for a NUL byte, as git
// does, to tell a binary file from a text one.
const binarySniff = 8000

// Doc is one file of the corpus.
type Doc struct {
	Path string // relative to the corpus root, with forward slashes
	Size int64  // bytes, from the directory walk
	Len  int32  // tokens indexed (0 for a binary or empty file)
}

// posting says that a term occurs tf times in document doc.
type posting struct {
	doc, tf int32
}

// shards is how many parts a term table is cut into, by a hash of the
// term, so that two tables merge shard by shard in parallel.
const shards = 64

// shard is one part of a term table: lists[terms[t]] are term t's
// postings.
type shard struct {
	terms map[string]uint32
	lists [][]posting
}

// table is a term table: every term seen, with the documents it occurs in.
// Each worker builds one from the documents it indexes; tables are merged
// at the end.
type table struct {
	shards [shards]shard

	// Per-worker scratch and counters, not part of the index.
	lower []byte        // the token being counted, lowercased
	data  []byte        // the file being read
	busy  time.Duration // time spent indexing files (hand-written strategies)
	err   error         // the first read error, of the lowest document
	errAt int32
}

func newTable() *table {
	t := &table{lower: make([]byte, 0, maxTerm), errAt: -1}
	for i := range t.shards {
		t.shards[i].terms = make(map[string]uint32)
	}
	return t
}

// FNV-1a, to pick a term's shard.
const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

func shardOf(h uint64) int { return int((h ^ h>>29 ^ h>>47) % shards) }

// shardOfTerm returns the shard that holds term.
func shardOfTerm(term string) int {
	h := uint64(fnvOffset)
	for i := 0; i < len(term); i++ {
		h = (h ^ uint64(term[i])) * fnvPrime
	}
	return shardOf(h)
}

// corpus is the list of files to index, with what every build shares: the
// documents' token counts and each document's indexing time (both written
// by whichever goroutine indexes that document, so never at once).
type corpus struct {
	root     string
	docs     []Doc
	sizes    []int64 // the files' sizes, par.Weighted's weights
	bytes    int64
	itemTime []time.Duration

	// For the largest-first strategy: the documents by decreasing size
	// (ties in path order) and their sizes in that order.
	bySize        []int32
	bySizeWeights []int64
}

// walk lists every regular file under root, in lexical order. Symbolic
// links and other irregular files are left out.
func walk(root string) (*corpus, error) {
	c := &corpus{root: root}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.Type().IsRegular() {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		c.docs = append(c.docs, Doc{Path: filepath.ToSlash(rel), Size: info.Size()})
		c.sizes = append(c.sizes, info.Size())
		c.bytes += info.Size()
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(c.docs) == 0 {
		return nil, fmt.Errorf("%s: no files to index", root)
	}
	if len(c.docs) > 1<<31-1 {
		return nil, fmt.Errorf("%s: %d files, more than an index holds", root, len(c.docs))
	}
	c.itemTime = make([]time.Duration, len(c.docs))
	for i := range c.docs {
		c.bySize = append(c.bySize, int32(i))
	}
	slices.SortStableFunc(c.bySize, func(a, b int32) int { return cmp.Compare(c.sizes[b], c.sizes[a]) })
	for _, i := range c.bySize {
		c.bySizeWeights = append(c.bySizeWeights, c.sizes[i])
	}
	return c, nil
}

// reset clears what a build writes into the corpus.
func (c *corpus) reset() {
	for i := range c.docs {
		c.docs[i].Len = 0
	}
	clear(c.itemTime)
}

// indexFile reads document i and counts its tokens into t. The file is read
// in the parallel part: the I/O is part of the work. It adds the file's
// bytes to m (nil for none).
func (c *corpus) indexFile(t *table, i int, m *meter) {
	start := time.Now()
	n, err := t.read(filepath.Join(c.root, filepath.FromSlash(c.docs[i].Path)), c.docs[i].Size)
	if err != nil {
		if t.errAt < 0 || int32(i) < t.errAt {
			t.err, t.errAt = err, int32(i)
		}
	} else if bytes.IndexByte(t.data[:min(n, binarySniff)], 0) < 0 {
		c.docs[i].Len = t.add(int32(i), t.data[:n])
	}
	d := time.Since(start)
	c.itemTime[i] = d
	t.busy += d
	if m != nil {
		m.bytes.Add(c.docs[i].Size)
	}
}

// read reads a whole file, of about size bytes, into t.data, reusing it,
// and returns its length.
func (t *table) read(path string, size int64) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	if want := int(size) + 512; cap(t.data) < want {
		t.data = make([]byte, want)
	}
	t.data = t.data[:cap(t.data)]
	n := 0
	for {
		if n == len(t.data) { // the file grew since the walk
			t.data = append(t.data, 0)
			t.data = t.data[:cap(t.data)]
		}
		k, err := f.Read(t.data[n:])
		n += k
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
}

func isLetter(b byte) bool { return b|0x20 >= 'a' && b|0x20 <= 'z' }
func isWord(b byte) bool   { return isLetter(b) || b >= '0' && b <= '9' || b == '_' }

// add counts the tokens of data, the text of document d, into t and
// returns how many it counted.
func (t *table) add(d int32, data []byte) int32 {
	var n int32
	for i := 0; i < len(data); {
		if !isWord(data[i]) {
			i++
			continue
		}
		j := i + 1
		for j < len(data) && isWord(data[j]) {
			j++
		}
		tok := data[i:j]
		i = j
		if !isLetter(tok[0]) || len(tok) < minTerm || len(tok) > maxTerm {
			continue
		}
		t.lower = t.lower[:len(tok)]
		h := uint64(fnvOffset)
		for k, b := range tok {
			if b >= 'A' && b <= 'Z' {
				b += 'a' - 'A'
			}
			t.lower[k] = b
			h = (h ^ uint64(b)) * fnvPrime
		}
		t.shards[shardOf(h)].count(d, t.lower)
		n++
	}
	return n
}

// count adds one occurrence of term in document d. Documents are counted
// one at a time, so d's posting, if any, is the list's last.
func (s *shard) count(d int32, term []byte) {
	k, ok := s.terms[string(term)] // no allocation for the lookup
	if !ok {
		k = uint32(len(s.lists))
		s.terms[string(term)] = k
		s.lists = append(s.lists, nil)
	}
	ps := s.lists[k]
	if n := len(ps); n > 0 && ps[n-1].doc == d {
		ps[n-1].tf++
		return
	}
	s.lists[k] = append(ps, posting{doc: d, tf: 1})
}

// forShards runs body(s) for every shard s, in parallel or not.
type forShards func(body func(s int))

// sequentially runs the shards one after another.
func sequentially(body func(s int)) {
	for s := range shards {
		body(s)
	}
}

// onPool runs the shards with par.For on pool.
func onPool(pool *par.Pool) forShards {
	return func(body func(s int)) { par.For(shards, body, par.On(pool)) }
}

// merger returns the function that merges two term tables into one, every
// term with its postings of both, shard by shard with each. It is
// commutative up to the order of postings within a list, which finish
// sorts away, so the workers' tables may be merged in any order.
func merger(each forShards) func(a, b *table) *table {
	return func(a, b *table) *table {
		each(func(s int) { a.shards[s].merge(&b.shards[s]) })
		if b.err != nil && (a.err == nil || b.errAt < a.errAt) {
			a.err, a.errAt = b.err, b.errAt
		}
		a.busy += b.busy
		return a
	}
}

// merge moves b's terms into s.
func (s *shard) merge(b *shard) {
	if len(s.terms) < len(b.terms) {
		*s, *b = *b, *s
	}
	for term, kb := range b.terms {
		if ka, ok := s.terms[term]; ok {
			s.lists[ka] = append(s.lists[ka], b.lists[kb]...)
		} else {
			s.terms[term] = uint32(len(s.lists))
			s.lists = append(s.lists, b.lists[kb])
		}
	}
	*b = shard{}
}

// Index is a finished inverted index.
type Index struct {
	Docs   []Doc
	shards [shards]shard // every list sorted by document
}

// finish turns the merged table into an index: each term's postings sorted
// by document (a worker's postings are in the order it indexed documents,
// and a worker may take a piece that comes before one it already did).
func (c *corpus) finish(t *table, each forShards) (*Index, error) {
	if t.err != nil {
		return nil, t.err
	}
	each(func(s int) {
		for _, ps := range t.shards[s].lists {
			if !slices.IsSortedFunc(ps, byDoc) {
				slices.SortFunc(ps, byDoc)
			}
		}
	})
	return &Index{Docs: slices.Clone(c.docs), shards: t.shards}, nil
}

func byDoc(a, b posting) int { return cmp.Compare(a.doc, b.doc) }

// Terms returns the number of distinct terms.
func (x *Index) Terms() int {
	n := 0
	for _, s := range x.shards {
		n += len(s.terms)
	}
	return n
}

// postings returns term's postings, sorted by document.
func (x *Index) postings(term string) []posting {
	s := &x.shards[shardOfTerm(term)]
	if k, ok := s.terms[term]; ok {
		return s.lists[k]
	}
	return nil
}

// diff returns a description of the first difference between two indexes,
// or "" if they are the same.
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
	for _, s := range a.shards {
		for term, k := range s.terms {
			if !slices.Equal(s.lists[k], b.postings(term)) {
				return fmt.Sprintf("term %q: postings differ", term)
			}
		}
	}
	return ""
}

// meter counts a build's progress for the progress bar: files done (from
// par.Progress for parloop's strategies, counted by hand for the others)
// and bytes done.
type meter struct {
	prog  par.Progress // parloop's strategies: par.Track(&m.prog)
	files atomic.Int64 // the hand-written strategies
	bytes atomic.Int64
}

// done returns the files and bytes indexed so far.
func (m *meter) done() (files, bytes int64) {
	return m.prog.Done() + m.files.Load(), m.bytes.Load()
}
