package workloads

import "math"

// Shape of the unbalanced tree walk: the root has TreeRootKids children;
// every other node has TreeM children with probability TreeQ and none
// otherwise (a critical binomial tree, as in the UTS benchmark). With
// TreeM*TreeQ just under 1 the subtrees of the root are deep, narrow, and of
// wildly different sizes: most die at once, a few run thousands deep.
const (
	TreeRootKids = 2000
	TreeM        = 2
	TreeQ        = 0.499
	TreeWork     = 24 // rounds of mixing per node
	TreeSeed     = 3
	TreeCutDepth = 3 // the hand-tuned peer forks only at depths <= 3
)

// Tree is an implicit random tree: a node is a 64-bit state and its children
// are derived from it, so the walk allocates nothing and is reproducible.
type Tree struct {
	RootKids, M, Work int
	thresh            uint64
	Seed              uint64
}

// NewTree makes the tree with the given shape.
func NewTree(rootKids, m int, q float64, work int, seed uint64) *Tree {
	return &Tree{RootKids: rootKids, M: m, Work: work, Seed: seed, thresh: uint64(q * math.MaxUint64)}
}

// Root is the state of the root.
func (t *Tree) Root() uint64 { return mix64(t.Seed) }

func (t *Tree) kids(h uint64, depth int) int {
	if depth == 0 {
		return t.RootKids
	}
	if h < t.thresh {
		return t.M
	}
	return 0
}

func child(h uint64, i int) uint64 { return mix64(h + uint64(i+1)*0x9e3779b97f4a7c15) }

func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// Seq walks the subtree at h serially and returns its node count and the sum
// of its nodes' values.
func (t *Tree) Seq(h uint64, depth int) (n, sum uint64) {
	n, sum = 1, spin(h, t.Work)
	k := t.kids(h, depth)
	for i := 0; i < k; i++ {
		cn, cs := t.Seq(child(h, i), depth+1)
		n += cn
		sum += cs
	}
	return n, sum
}

// Join walks the subtree at h, forking over the children of every node at a
// depth <= cutDepth (a binary split of the child list) and walking deeper
// nodes serially.
func (t *Tree) Join(h uint64, depth, cutDepth int, join Joiner) (n, sum uint64) {
	if depth > cutDepth {
		return t.Seq(h, depth)
	}
	v := spin(h, t.Work)
	n, sum = t.kidsJoin(h, depth, 0, t.kids(h, depth), cutDepth, join)
	return n + 1, sum + v
}

func (t *Tree) kidsJoin(h uint64, depth, lo, hi, cutDepth int, join Joiner) (n, sum uint64) {
	switch hi - lo {
	case 0:
		return 0, 0
	case 1:
		return t.Join(child(h, lo), depth+1, cutDepth, join)
	}
	mid := int(uint(lo+hi) / 2)
	var r [4]uint64
	join(func() { r[0], r[1] = t.kidsJoin(h, depth, lo, mid, cutDepth, join) },
		func() { r[2], r[3] = t.kidsJoin(h, depth, mid, hi, cutDepth, join) })
	return r[0] + r[2], r[1] + r[3]
}

// Kids is the number of children of node h at depth, Child the hash of its
// i-th child and Visit the work done at a node (its value): the pieces of
// Seq and Join, for callers that fork without a Joiner.
func (t *Tree) Kids(h uint64, depth int) int { return t.kids(h, depth) }

// Child returns the hash of the i-th child of node h.
func Child(h uint64, i int) uint64 { return child(h, i) }

// Visit does the work of node h and returns its value.
func (t *Tree) Visit(h uint64) uint64 { return spin(h, t.Work) }

// Depth is the depth of the deepest node.
func (t *Tree) Depth(h uint64, depth int) int {
	d := depth
	for i := 0; i < t.kids(h, depth); i++ {
		d = max(d, t.Depth(child(h, i), depth+1))
	}
	return d
}
