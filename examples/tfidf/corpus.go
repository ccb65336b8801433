package main

import (
	"bytes"
	"cmp"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"slices"
	"sync/atomic"
	"time"

	"github.com/parloop/parloop/par"
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

// indexFile reads document i and puts its terms into b. The file is read
// in the parallel part: the I/O is part of the work. It adds the file's
// bytes to m (nil for none).
func (c *corpus) indexFile(b *bins, i int, m *meter) {
	start := time.Now()
	n, err := b.read(filepath.Join(c.root, filepath.FromSlash(c.docs[i].Path)), c.docs[i].Size)
	var text []byte // none for a file that could not be read, or a binary one
	if err != nil {
		b.noteErr(err, int32(i))
	} else if bytes.IndexByte(b.data[:min(n, binarySniff)], 0) < 0 {
		text = b.data[:n]
	}
	c.docs[i].Len = b.fc.count(text)
	b.put(int32(i))
	d := time.Since(start)
	c.itemTime[i] = d
	b.busy += d
	if m != nil {
		m.bytes.Add(c.docs[i].Size)
	}
}

// read reads a whole file, of about size bytes, into b.data, reusing it,
// and returns its length.
func (b *bins) read(path string, size int64) (int, error) {
	f, err := openRaw(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	if want := int(size) + 512; cap(b.data) < want {
		b.data = make([]byte, want)
	}
	b.data = b.data[:cap(b.data)]
	n := 0
	for {
		if n == len(b.data) { // the file grew since the walk
			b.data = append(b.data, 0)
			b.data = b.data[:cap(b.data)]
		}
		k, err := f.Read(b.data[n:])
		n += k
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
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
