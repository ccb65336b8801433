package workloads

import "math"

// Shape of the UTS-like geometric unbalanced tree (BenchmarkUTS). The root
// has UTSRootKids children. Any other node has no children with probability
// 1-UTSQ and otherwise between 2 and UTSMaxKids, drawn from a Pareto
// distribution of index UTSAlpha truncated there (mean about 7.3): each node
// has 0.95 children on average, so the tree is finite but near-critical, and
// its subtrees are of wildly different sizes (most of the root's children
// are leaves, the largest holds about 45% of the tree) and widths (nodes of
// 2 and of 2,000 children). Every node does UTSWork rounds of a 64-bit mixer,
// about 0.5 µs, standing for UTS's SHA-1 per node. With UTSSeed the tree has
// 343,524 nodes and depth 74; the -short tree (UTSShortSeed) 22,343 nodes.
const (
	UTSQ         = 0.13
	UTSAlpha     = 1.3
	UTSMaxKids   = 2000
	UTSWork      = 250 // mixer rounds per node
	UTSRootKids  = 2000
	UTSSeed      = 9
	UTSShortSeed = 8
	UTSCutDepth  = 3 // the goroutine-per-child peer spawns for children of nodes at depths <= 3
)

// UTS is an implicit unbalanced tree: a node is a 64-bit id, and its number
// of children and their ids are derived from it by hashing, so a walk needs
// no memory and is reproducible. With Alloc set, Visit allocates a small
// node struct on the heap for every node, as walks of real trees do.
type UTS struct {
	RootKids int
	Seed     uint64
	Work     int
	Alloc    bool
	q        uint64 // UTSQ as a threshold on a 64-bit hash
}

// NewUTS makes the tree with rootKids children at the root.
func NewUTS(rootKids int, seed uint64, work int, alloc bool) *UTS {
	q := float64(UTSQ)
	return &UTS{RootKids: rootKids, Seed: seed, Work: work, Alloc: alloc, q: uint64(q * math.MaxUint64)}
}

// UTSCount is what a walk returns: the number of nodes and the sum of their
// values.
type UTSCount struct{ N, Sum uint64 }

// Add is the sum of two counts.
func (c UTSCount) Add(d UTSCount) UTSCount { return UTSCount{c.N + d.N, c.Sum + d.Sum} }

// UTSNode is the per-node struct of the allocating variant.
type UTSNode struct {
	ID    uint64
	Depth int32
	Kids  int32
	Value uint64
}

// Root is the id of the root.
func (t *UTS) Root() uint64 { return mix64(t.Seed ^ 0x5555) }

// UTSChild is the id of the i-th child of node id.
func UTSChild(id uint64, i int) uint64 { return mix64(id ^ uint64(i+1)*0xd1b54a32d192ed03) }

// kids is the number of children of node id at depth.
func (t *UTS) kids(id uint64, depth int) int {
	if depth == 0 {
		return t.RootKids
	}
	if h := mix64(id + 0x632be59bd9b4e019); h >= t.q {
		return 0
	}
	// Truncated Pareto: 2 / u^(1/alpha) for u uniform in (0, 1].
	u := (float64(mix64(id^0x9e3779b97f4a7c15)>>11) + 1) / (1 << 53)
	k := 2 / math.Pow(u, 1/UTSAlpha)
	if k >= UTSMaxKids {
		return UTSMaxKids
	}
	return int(k)
}

// Visit does the work of node id at depth and returns its number of
// children and its value.
func (t *UTS) Visit(id uint64, depth int) (kids int, value uint64) {
	if t.Alloc {
		n := newUTSNode(t, id, depth)
		return int(n.Kids), n.Value
	}
	return t.kids(id, depth), spin(id, t.Work)
}

// newUTSNode allocates a node: not inlined, so the node always reaches the
// heap, whatever the caller does with it.
//
//go:noinline
func newUTSNode(t *UTS, id uint64, depth int) *UTSNode {
	return &UTSNode{ID: id, Depth: int32(depth), Kids: int32(t.kids(id, depth)), Value: spin(id, t.Work)}
}

// Seq walks the subtree of node id serially.
func (t *UTS) Seq(id uint64, depth int) UTSCount {
	k, v := t.Visit(id, depth)
	c := UTSCount{1, v}
	for i := 0; i < k; i++ {
		c = c.Add(t.Seq(UTSChild(id, i), depth+1))
	}
	return c
}

// Shape returns the number of nodes, the largest number of children and
// the depth of the deepest node, without doing the nodes' work.
func (t *UTS) Shape() (nodes, widest, depth int) {
	var walk func(id uint64, d int)
	walk = func(id uint64, d int) {
		nodes++
		depth = max(depth, d)
		k := t.kids(id, d)
		widest = max(widest, k)
		for i := 0; i < k; i++ {
			walk(UTSChild(id, i), d+1)
		}
	}
	walk(t.Root(), 0)
	return nodes, widest, depth
}
