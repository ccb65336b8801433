package topology

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// treeNode is one object of the rendered tree.
type treeNode struct {
	level Level  // numLevels for a PU, -1 for the machine
	id    int    // OS index, -1 when unknown
	kind  int    // core kind, for cores
	mem   uint64 // memory size in bytes, for NUMA nodes; 0 when unknown
	cpus  []int
	kids  []*treeNode
}

// label renders the node as lstopo does, with its logical index l.
func (n *treeNode) label(l int, kinds int) string {
	var s string
	switch n.level {
	case numLevels:
		return fmt.Sprintf("PU L#%d (P#%d)", l, n.id)
	case LevelL3, LevelL2:
		return fmt.Sprintf("%s L#%d", strings.TrimSuffix(n.level.String(), "Cache"), l)
	default:
		s = fmt.Sprintf("%s L#%d", n.level, l)
	}
	var attrs []string
	if n.id >= 0 {
		attrs = append(attrs, fmt.Sprintf("P#%d", n.id))
	}
	if n.mem > 0 {
		attrs = append(attrs, formatBytes(n.mem))
	}
	if len(attrs) > 0 {
		s += " (" + strings.Join(attrs, " ") + ")"
	}
	if n.level == LevelCore && kinds > 1 {
		s += fmt.Sprintf(" cpukind=%d", n.kind)
	}
	return s
}

func contains(outer map[int]bool, inner []int) bool {
	for _, c := range inner {
		if !outer[c] {
			return false
		}
	}
	return true
}

// tree nests the usable domains by inclusion, as hwloc does: larger sets
// first, and for equal sets the outer level first.
func (t *Topology) tree() *treeNode {
	type obj struct {
		n   *treeNode
		set map[int]bool
	}
	root := &treeNode{level: -1, cpus: t.CPUs()}
	var objs []obj
	for l := range numLevels {
		for _, d := range t.Domains(l) {
			n := &treeNode{level: l, id: d.ID, kind: t.Kind(d.CPUs[0]), cpus: d.CPUs}
			if l == LevelNUMA {
				n.mem = t.nodeMem[d.ID]
			}
			objs = append(objs, obj{n, toSet(d.CPUs)})
		}
	}
	for _, c := range t.CPUs() {
		objs = append(objs, obj{&treeNode{level: numLevels, id: c, cpus: []int{c}}, map[int]bool{c: true}})
	}
	// A die or cluster with the same CPUs as another object says nothing
	// more: hwloc merges such groups.
	levelsOf := map[string]int{}
	for _, o := range objs {
		levelsOf[FormatCPUList(o.n.cpus)]++
	}
	objs = slices.DeleteFunc(objs, func(o obj) bool {
		return (o.n.level == LevelDie || o.n.level == LevelCluster) && levelsOf[FormatCPUList(o.n.cpus)] > 1
	})
	slices.SortStableFunc(objs, func(a, b obj) int {
		return cmp.Or(cmp.Compare(len(b.n.cpus), len(a.n.cpus)), cmp.Compare(a.n.level, b.n.level))
	})
	sets := map[*treeNode]map[int]bool{root: toSet(root.cpus)}
	// kidOf[n][c] is the first child of n holding CPU c: a child holding
	// an object holds its first CPU, so the descent looks at that child
	// alone, unless children overlap (a NUMA node across packages).
	kidOf := map[*treeNode]map[int]*treeNode{}
	for _, o := range objs {
		parent := root
		for {
			k := kidOf[parent][o.n.cpus[0]]
			if k != nil && !contains(sets[k], o.n.cpus) {
				k = nil
				for _, kid := range parent.kids {
					if contains(sets[kid], o.n.cpus) {
						k = kid
						break
					}
				}
			}
			if k == nil {
				break
			}
			parent = k
		}
		parent.kids = append(parent.kids, o.n)
		sets[o.n] = o.set
		if kidOf[parent] == nil {
			kidOf[parent] = map[int]*treeNode{}
		}
		for _, c := range o.n.cpus {
			if kidOf[parent][c] == nil {
				kidOf[parent][c] = o.n
			}
		}
	}
	var sortKids func(n *treeNode)
	sortKids = func(n *treeNode) {
		slices.SortStableFunc(n.kids, func(a, b *treeNode) int { return cmp.Compare(a.cpus[0], b.cpus[0]) })
		for _, k := range n.kids {
			sortKids(k)
		}
	}
	sortKids(root)
	// Memory-only NUMA nodes hang, childless, from the highest object
	// whose CPUs are the ones they are near (see memLocality), else from
	// the smallest object holding those CPUs, else from the machine, first
	// among its children, by OS index, as lstopo prints memory children.
	for _, m := range t.memNodes {
		loc, parent := t.memLocality(m), root
		for len(loc) > 0 && (parent == root || !slices.Equal(parent.cpus, loc)) {
			next := parent
			for _, k := range parent.kids {
				if k.level != numLevels && len(k.cpus) > 0 && contains(sets[k], loc) {
					next = k
					break
				}
			}
			if next == parent {
				break
			}
			parent = next
		}
		at := 0
		for at < len(parent.kids) && len(parent.kids[at].cpus) == 0 {
			at++
		}
		parent.kids = slices.Insert(parent.kids, at, &treeNode{level: LevelNUMA, id: m, mem: t.nodeMem[m]})
	}
	return root
}

// formatBytes renders a memory size as lstopo does: in the largest of
// KiB, MiB, GiB and TiB that leaves at least 10 of them, rounded.
func formatBytes(n uint64) string {
	units := []string{"KiB", "MiB", "GiB", "TiB"}
	shift := 10
	for i := range len(units) - 1 {
		if n < 10<<(10*(i+2)) {
			break
		}
		shift += 10
	}
	return fmt.Sprintf("%d%s", (n>>(shift-1)+1)>>1, units[shift/10-1])
}

// String renders the topology as a small lstopo-like tree of the usable
// CPUs: packages, dies, NUMA nodes, L3 and L2 domains, clusters, cores and
// PUs (L# logical indexes, P# OS indexes), with single-child chains joined
// by " + " as lstopo's console output does. Lines before the tree give the
// CPU counts and what restricted them; lines after it give the NUMA
// distances and the core kinds where there is more than one. A NUMA node
// shows its memory size where sysfs gives it ("NUMANode L#0 (P#0 64GiB)");
// one without CPUs (MemoryNodes) is a childless NUMANode line under the
// object whose CPUs it is near, or under the machine, and has its row in
// the distance matrix.
func (t *Topology) String() string {
	var b strings.Builder
	usable := t.CPUs()
	fmt.Fprintf(&b, "Machine (%d usable of %d online CPUs", len(usable), len(t.cpus))
	if len(t.offline) > 0 {
		fmt.Fprintf(&b, ", offline %s", FormatCPUList(t.offline))
	}
	if t.flat {
		b.WriteString(", flat: no topology information")
	}
	b.WriteString(")\n")
	if t.affinity != nil {
		fmt.Fprintf(&b, "  # affinity %s\n", FormatCPUList(t.affinity))
	}
	for _, n := range t.notes {
		fmt.Fprintf(&b, "  # %s\n", n)
	}
	if t.quota > 0 {
		fmt.Fprintf(&b, "  # at most %d workers (quota)\n", t.Usable())
	}
	// Logical indexes follow the order of the tree, as in lstopo.
	var logical [numLevels + 1]int
	lbl := func(n *treeNode) string {
		l := logical[n.level]
		logical[n.level]++
		return n.label(l, t.kinds)
	}
	var walk func(n *treeNode, depth int)
	walk = func(n *treeNode, depth int) {
		line := lbl(n)
		for len(n.kids) == 1 {
			n = n.kids[0]
			line += " + " + lbl(n)
		}
		b.WriteString(strings.Repeat("  ", depth) + line + "\n")
		for _, k := range n.kids {
			walk(k, depth+1)
		}
	}
	for _, k := range t.tree().kids {
		walk(k, 1)
	}
	t.renderDistances(&b)
	if t.kinds > 1 {
		for k := range t.kinds {
			var cpus []int
			for _, c := range usable {
				if t.Kind(c) == k {
					cpus = append(cpus, c)
				}
			}
			name := "efficiency"
			if k == t.kinds-1 {
				name = "performance"
			}
			fmt.Fprintf(&b, "CPU kind #%d (%s) PUs %s\n", k, name, FormatCPUList(cpus))
		}
	}
	return b.String()
}

// renderDistances writes the NUMA distance matrix of the usable nodes and
// the memory-only ones.
func (t *Topology) renderDistances(b *strings.Builder) {
	nodes := t.Domains(LevelNUMA)
	if len(nodes)+len(t.memNodes) < 2 {
		return
	}
	var ids []int
	for _, n := range nodes {
		if n.ID >= 0 {
			ids = append(ids, n.ID)
		}
	}
	ids = append(ids, t.memNodes...)
	slices.Sort(ids)
	ids = slices.Compact(ids)
	any := false
	for _, x := range ids {
		for _, y := range ids {
			if _, ok := t.dist[[2]int{x, y}]; ok {
				any = true
			}
		}
	}
	if !any {
		return
	}
	b.WriteString("NUMA distances (by P#):\n  index")
	for _, y := range ids {
		fmt.Fprintf(b, " %5d", y)
	}
	b.WriteString("\n")
	for _, x := range ids {
		fmt.Fprintf(b, "  %5d", x)
		for _, y := range ids {
			s := "?"
			if d, ok := t.dist[[2]int{x, y}]; ok {
				s = strconv.Itoa(d)
			}
			fmt.Fprintf(b, " %5s", s)
		}
		b.WriteString("\n")
	}
}
