package main

import (
	"crypto/sha256"
	"encoding/binary"
	"sync/atomic"
)

// Graph is a directed graph in compressed sparse row form: node v's
// neighbours are Targets[Offsets[v]:Offsets[v+1]].
type Graph struct {
	Offsets []int32
	Targets []int32
	seed    uint64
}

// mix is SplitMix64's finalizer: a cheap hash of x with every bit
// depending on every input bit.
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// Generate returns a graph of n nodes in which node v has 1 to 5
// neighbours (3 on average), each chosen by a hash of seed, v and its
// index, so the same seed gives the same graph. It panics if n < 1 or n
// does not fit an int32.
func Generate(n int, seed uint64) *Graph {
	if n < 1 || n > 1<<31-1 {
		panic("main: Generate: n out of range")
	}
	g := &Graph{Offsets: make([]int32, n+1), seed: seed}
	g.Targets = make([]int32, 0, 3*n)
	for v := range n {
		h := mix(seed ^ uint64(v)*0x9e3779b97f4a7c15)
		for k := range 1 + h%5 {
			t := mix(h + k + 1)
			g.Targets = append(g.Targets, int32(t%uint64(n)))
		}
		g.Offsets[v+1] = int32(len(g.Targets))
	}
	return g
}

// Len returns the number of nodes.
func (g *Graph) Len() int { return len(g.Offsets) - 1 }

// Neighbours returns v's neighbours.
func (g *Graph) Neighbours(v int32) []int32 {
	return g.Targets[g.Offsets[v]:g.Offsets[v+1]]
}

// Key is the work a search does at each node: rounds of SHA-256 over the
// node's label (the node and the graph's seed), folded to 64 bits. It
// stands for what a real search computes at a node: a cost, a
// fingerprint, a match.
func (g *Graph) Key(v int32, rounds int) uint64 {
	var b [sha256.Size]byte
	binary.LittleEndian.PutUint64(b[:], g.seed)
	binary.LittleEndian.PutUint32(b[8:], uint32(v))
	for range rounds {
		b = sha256.Sum256(b[:])
	}
	return binary.LittleEndian.Uint64(b[:])
}

// Result is what a search finds: the nodes reachable from the source, how
// many of them are marked (their key's low 4 bits are 0, one node in 16),
// and the sum of their keys, which changes if any node is missed or
// counted twice.
type Result struct {
	Reached, Marked int64
	KeySum          uint64
}

// add adds node key k to r.
func (r *Result) add(k uint64) {
	r.Reached++
	if k&15 == 0 {
		r.Marked++
	}
	r.KeySum += k
}

// bitset is a set of nodes, one bit each, for one goroutine.
type bitset []uint64

func newBitset(n int) bitset { return make(bitset, (n+63)/64) }

// add adds v and reports whether it was absent.
func (s bitset) add(v int32) bool {
	w, m := &s[v>>6], uint64(1)<<(v&63)
	if *w&m != 0 {
		return false
	}
	*w |= m
	return true
}

// atomicBitset is a set of nodes, one bit each, that goroutines add to at
// once. add claims a node: of all the concurrent adds of one node,
// exactly one reports true, as Or is an atomic read-modify-write whose
// old value shows whether the bit was set before; the plain Load first
// skips the locked instruction for a node already seen, and a stale load
// only sends the caller to the Or, which decides.
type atomicBitset []atomic.Uint64

func newAtomicBitset(n int) atomicBitset { return make(atomicBitset, (n+63)/64) }

func (s atomicBitset) add(v int32) bool {
	w, m := &s[v>>6], uint64(1)<<(v&63)
	if w.Load()&m != 0 {
		return false
	}
	return w.Or(m)&m == 0
}
