package main

// Term limits: a token is a run of ASCII letters, digits and underscores
// that starts with a letter, lowercased; tokens shorter than minTerm or
// longer than maxTerm (base64 blobs, generated tables) are skipped.
const (
	minTerm = 2
	maxTerm = 40
)

// Byte classes, for the tokeniser: wordClass[b] is 0 for a byte that ends
// a token, 1 for a digit or an underscore, 2 for a letter; lowerOf[b] is b
// lowercased (ASCII only).
var wordClass, lowerOf = func() (c, l [256]byte) {
	for b := range 256 {
		l[b] = byte(b)
		switch {
		case b >= 'a' && b <= 'z':
			c[b] = 2
		case b >= 'A' && b <= 'Z':
			c[b], l[b] = 2, byte(b)+'a'-'A'
		case b >= '0' && b <= '9', b == '_':
			c[b] = 1
		}
	}
	return c, l
}()

// FNV-1a, computed over a term's bytes as they are lowercased.
const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

// mixHash finishes an FNV-1a hash so that its high bits (the partition)
// and its low bits (a dict's slot) both depend on every byte.
func mixHash(h uint64) uint64 {
	h ^= h >> 32
	h *= 0xd6e8feb86659fd93
	h ^= h >> 32
	return h
}

// termHash is the hash of a term already lowercased, as the tokeniser
// computes it.
func termHash(term []byte) uint64 {
	h := uint64(fnvOffset)
	for _, b := range term {
		h = (h ^ uint64(b)) * fnvPrime
	}
	return mixHash(h)
}

// fileCounter counts the terms of one file at a time: its dict holds the
// file's distinct terms, tf[id] how often each occurs. Counting a file's
// tokens in a table of its own, small enough to stay in cache, means the
// build handles each distinct term of a file once instead of each token.
type fileCounter struct {
	terms *dict
	tf    []int32
	lower [maxTerm]byte // the token being counted, lowercased
}

func newFileCounter() *fileCounter { return &fileCounter{terms: newDict()} }

// count tokenises data, the text of one file, into fc (emptied first) and
// returns how many tokens it counted.
func (fc *fileCounter) count(data []byte) int32 {
	fc.terms.reset()
	fc.tf = fc.tf[:0]
	var n int32
	for i := 0; i < len(data); {
		if wordClass[data[i]] == 0 {
			i++
			continue
		}
		j := i + 1
		for j < len(data) && wordClass[data[j]] != 0 {
			j++
		}
		tok := data[i:j]
		i = j
		if wordClass[tok[0]] != 2 || len(tok) < minTerm || len(tok) > maxTerm {
			continue
		}
		low := fc.lower[:len(tok)]
		h := uint64(fnvOffset)
		for k, b := range tok {
			b = lowerOf[b]
			low[k] = b
			h = (h ^ uint64(b)) * fnvPrime
		}
		id := fc.terms.add(mixHash(h), low)
		if int(id) == len(fc.tf) {
			fc.tf = append(fc.tf, 0)
		}
		fc.tf[id]++
		n++
	}
	return n
}
