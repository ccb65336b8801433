package main

import (
	"encoding/binary"
	"time"
)

// The build's first phase: each worker reads and tokenises files into bins
// of its own, one record per distinct term of each file, binned by the
// term's partition (the top bits of its hash). Nothing is shared between
// workers, and nothing the first phase writes is read again until every
// file is done; the second phase (partition.go) then builds each
// partition from every worker's bin for it.

// partitionBits sets how many partitions the index is cut into: 256, so
// that a partition's terms (about a thousand in GOROOT/src) fit in a
// core's cache while it is built, and that even 16 workers find enough of
// them to balance the second phase.
const (
	partitionBits = 8
	partitions    = 1 << partitionBits
)

// partitionOf returns the partition of a term with hash h.
func partitionOf(h uint64) int { return int(h >> (64 - partitionBits)) }

// A record in a bin: the document (4 bytes), the term's count in it (4),
// the term's hash (8), the term's length (1) and its bytes, little-endian.
const recordHead = 17

// appendRecord appends one record to bin.
func appendRecord(bin []byte, doc, tf int32, h uint64, term []byte) []byte {
	bin = binary.LittleEndian.AppendUint32(bin, uint32(doc))
	bin = binary.LittleEndian.AppendUint32(bin, uint32(tf))
	bin = binary.LittleEndian.AppendUint64(bin, h)
	bin = append(bin, byte(len(term)))
	return append(bin, term...)
}

// bins is one worker's output of the first phase, with its scratch.
//
// The second phase must see each partition's records in document order,
// so that every term's postings come out sorted without a sort. A worker
// indexes the documents of a piece in order, but its pieces need not be in
// order (it may steal a piece below one it did). So bins cuts its records
// into runs, each a stretch of consecutive documents, and remembers where
// each run starts in each bin; the second phase reads all the workers' runs
// in the order of their first documents.
type bins struct {
	bin  [partitions][]byte
	runs []int32              // runs[r]: run r's first document
	offs [partitions][]uint32 // offs[q][r]: where run r starts in bin[q]
	next int32                // the document after the last one indexed, -1 at first

	fc    *fileCounter
	data  []byte        // the file being read
	busy  time.Duration // time spent indexing files
	err   error         // the first read error, of the lowest document
	errAt int32
}

func newBins() *bins { return &bins{next: -1, errAt: -1, fc: newFileCounter()} }

// put adds document doc's counted terms (in b.fc) to the bins.
func (b *bins) put(doc int32) {
	if doc != b.next {
		b.runs = append(b.runs, doc)
		for q := range b.bin {
			b.offs[q] = append(b.offs[q], uint32(len(b.bin[q])))
		}
	}
	b.next = doc + 1
	t := b.fc.terms
	for id, h := range t.hashes {
		q := partitionOf(h)
		b.bin[q] = appendRecord(b.bin[q], doc, b.fc.tf[id], h, t.term(uint32(id)))
	}
}

// segment returns run r's records in bin q. The offsets are kept by
// partition, so that the second phase, which builds one partition from
// every run, reads them in order.
func (b *bins) segment(r, q int) []byte {
	offs, end := b.offs[q], len(b.bin[q])
	if r+1 < len(offs) {
		end = int(offs[r+1])
	}
	return b.bin[q][offs[r]:end]
}

// noteErr keeps err if it is of the lowest document so far.
func (b *bins) noteErr(err error, doc int32) {
	if b.errAt < 0 || doc < b.errAt {
		b.err, b.errAt = err, doc
	}
}
