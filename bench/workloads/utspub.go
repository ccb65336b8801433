package workloads

import (
	"crypto/sha1"
	"encoding/binary"
	"math"
)

// The Unbalanced Tree Search benchmark's published trees (Olivier, Huan,
// Liu, Prins, Dinan, Sadayappan, Tseng, "UTS: An Unbalanced Tree Search
// Benchmark", LCPC 2006), as its reference code derives them: a node is
// the 20-byte SHA-1 state of its parent's state and its index (one hash per
// child), and its number of children comes from the state's last four
// bytes. Both trees are checked against the published node counts and
// depths (workloads_test.go).
//
//   - T1, geometric (-t 1 -a 3 -d 10 -b 4 -r 19): every node above depth
//     10 has a geometric number of children with mean 4; 4,130,071 nodes,
//     depth 10, bushy and shallow.
//   - T3, binomial (-t 0 -b 2000 -q 0.124875 -m 8 -r 42): 2,000 children at
//     the root; below it each node has 8 children with probability
//     0.124875, else none; 4,112,897 nodes, depth 1,572: deep and narrow,
//     most of the tree hanging from a few long chains.
const (
	UTST1Nodes, UTST1Depth = 4_130_071, 10
	UTST3Nodes, UTST3Depth = 4_112_897, 1_572
)

// SHA1Node is a node of a published UTS tree: its SHA-1 state and depth.
type SHA1Node struct {
	State [20]byte
	Depth int32
	Bin   bool // the binomial tree T3, else the geometric T1
}

// UTST1 and UTST3 are the roots of the published trees.
func UTST1() SHA1Node { return SHA1Node{State: utsInit(19)} }
func UTST3() SHA1Node { return SHA1Node{State: utsInit(42), Bin: true} }

func utsInit(seed int) [20]byte {
	var b [20]byte
	binary.BigEndian.PutUint32(b[16:], uint32(seed))
	return sha1.Sum(b[:])
}

// Kids is n's number of children.
func (n SHA1Node) Kids() int {
	u := float64(binary.BigEndian.Uint32(n.State[16:])&0x7fffffff) / (1 << 31)
	if n.Bin {
		switch {
		case n.Depth == 0:
			return 2000
		case u < 0.124875:
			return 8
		}
		return 0
	}
	if n.Depth >= 10 {
		return 0
	}
	const p = 1.0 / (1.0 + 4)
	return int(math.Floor(math.Log(1-u) / math.Log(1-p)))
}

// Child is n's i-th child: one SHA-1 of n's state and i.
func (n SHA1Node) Child(i int) SHA1Node {
	var b [24]byte
	copy(b[:20], n.State[:])
	binary.BigEndian.PutUint32(b[20:], uint32(i))
	return SHA1Node{State: sha1.Sum(b[:]), Depth: n.Depth + 1, Bin: n.Bin}
}

// Count is the sequential walk: the number of nodes under and at n.
func (n SHA1Node) Count() int {
	c := 1
	for i := range n.Kids() {
		c += n.Child(i).Count()
	}
	return c
}
