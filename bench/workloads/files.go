package workloads

import (
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// Shape of the blocking-bodies workload: FilesN small files of FilesSize
// bytes, each body reading one and then sleeping FilesLatency, which stands
// for the latency of real I/O (a page cache read of 4 KB takes a few µs).
const (
	FilesN       = 500
	FilesSize    = 4096
	FilesLatency = 2 * time.Millisecond
)

// Files is the blocking workload: body i reads file i, stores its checksum
// in Out[i] and sleeps Latency. The files are made once by NewFiles.
type Files struct {
	Paths   []string
	Out     []uint64
	Latency time.Duration
	want    []uint64
	mu      sync.Mutex
	err     error // the first error a body met
}

// NewFiles writes n files of size random bytes into dir.
func NewFiles(dir string, n, size int, latency time.Duration) (*Files, error) {
	f := &Files{Paths: make([]string, n), Out: make([]uint64, n), want: make([]uint64, n), Latency: latency}
	r := rand.New(rand.NewPCG(5, 7))
	buf := make([]byte, size)
	for i := range n {
		for j := range buf {
			buf[j] = byte(r.Uint32())
		}
		f.Paths[i] = filepath.Join(dir, fmt.Sprintf("f%03d", i))
		if err := os.WriteFile(f.Paths[i], buf, 0o644); err != nil {
			return nil, err
		}
		f.want[i] = checksum(buf)
	}
	return f, nil
}

func checksum(b []byte) uint64 {
	h := fnv.New64a()
	h.Write(b)
	return h.Sum64() | 1 // never 0, the value of a body that did not run
}

// Read is body i: it reads file i, stores its checksum and sleeps.
func (f *Files) Read(i int) error {
	b, err := os.ReadFile(f.Paths[i])
	if err != nil {
		return err
	}
	f.Out[i] = checksum(b)
	time.Sleep(f.Latency)
	return nil
}

// Elem is Read for the verbs whose bodies return nothing: an error is kept
// for Verify.
func (f *Files) Elem(i int) {
	if err := f.Read(i); err != nil {
		f.mu.Lock()
		f.err = errors.Join(f.err, err)
		f.mu.Unlock()
	}
}

// Reset clears the outputs and the recorded error.
func (f *Files) Reset() {
	clear(f.Out)
	f.mu.Lock()
	f.err = nil
	f.mu.Unlock()
}

// Verify checks that every file was read, and no body failed.
func (f *Files) Verify() error {
	f.mu.Lock()
	err := f.err
	f.mu.Unlock()
	if err != nil {
		return err
	}
	for i, v := range f.Out {
		if v != f.want[i] {
			return mismatch("files", i, v, f.want[i])
		}
	}
	return nil
}
