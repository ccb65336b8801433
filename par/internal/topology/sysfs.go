package topology

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"path"
	"slices"
	"strconv"
	"strings"
)

const (
	cpuDir  = "sys/devices/system/cpu"
	nodeDir = "sys/devices/system/node"
	// maxFile bounds what is read of one sysfs or procfs file.
	maxFile = 1 << 20
)

// ErrNoTopology is returned by Read when the tree holds no CPU information
// at all: neither sysfs CPU directories nor /proc/cpuinfo.
var ErrNoTopology = errors.New("topology: no CPU information in the tree")

// readOptions adjust Read for the live host.
type readOptions struct {
	// affinity, when set, replaces proc/self/status as the source of the
	// affinity mask.
	affinity func() ([]int, bool)
}

// Read reads the topology of the machine whose "/" is fsys: sysfs under
// "sys", procfs under "proc" and the cgroup file systems where
// proc/self/mountinfo or proc/mounts says they are mounted. Missing or
// malformed files fall back as described in the package documentation. A
// tree with /proc/cpuinfo but no sysfs gives a flat topology of the
// processors listed there; a tree with neither is ErrNoTopology.
func Read(fsys fs.FS) (*Topology, error) {
	return read(fsys, readOptions{})
}

func read(fsys fs.FS, opt readOptions) (*Topology, error) {
	if fsys == nil {
		return nil, ErrNoTopology
	}
	r := &reader{fsys: fsys, pkgKey: map[int][3]int{}, coreKey: map[int][3]int{}, pkgID: map[int]int{}, coreID: map[int]int{}}
	online, present, ok := r.onlineCPUs()
	if !ok {
		n := r.cpuinfoCount()
		if n == 0 {
			return nil, ErrNoTopology
		}
		t := Flat(n)
		t.notes = append(t.notes, "no sysfs CPU information; flat topology from /proc/cpuinfo")
		return t, nil
	}
	b := newBuilder(online)
	for _, c := range present {
		if !b.online[c] {
			b.offline = append(b.offline, c)
		}
	}
	for _, c := range b.ids {
		r.readCPU(b, c)
	}
	b.groupByID(LevelPackage, r.pkgKey, r.pkgID)
	b.groupByID(LevelCore, r.coreKey, r.coreID)
	r.readNodes(b)
	r.readKinds(b)
	if opt.affinity != nil {
		if a, ok := opt.affinity(); ok {
			b.affinity = a
		}
	} else {
		b.affinity = r.statusAffinity()
	}
	r.readCgroups(b)
	return b.finish(), nil
}

// reader reads small text files from the tree, tolerating every failure.
type reader struct {
	fsys fs.FS
	// Fallback keys for CPUs whose package or core set could not be read:
	// physical_package_id, and (package, die_id, core_id).
	pkgKey, coreKey map[int][3]int
	pkgID, coreID   map[int]int
}

// text returns the trimmed content of name, and false when it cannot be
// read.
func (r *reader) text(name string) (string, bool) {
	f, err := r.fsys.Open(name)
	if err != nil {
		return "", false
	}
	defer f.Close()
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(&limitReader{f, maxFile}); err != nil {
		return "", false
	}
	return cleanText(buf.String()), true
}

type limitReader struct {
	r interface{ Read([]byte) (int, error) }
	n int
}

func (l *limitReader) Read(p []byte) (int, error) {
	if l.n <= 0 {
		return 0, errors.New("topology: file too large")
	}
	if len(p) > l.n {
		p = p[:l.n]
	}
	n, err := l.r.Read(p)
	l.n -= n
	return n, err
}

// int returns the integer in name.
func (r *reader) int(name string) (int, bool) {
	s, ok := r.text(name)
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, false
	}
	return n, true
}

// list reads a cpu list file.
func (r *reader) list(name string) ([]int, bool) {
	s, ok := r.text(name)
	if !ok {
		return nil, false
	}
	l, err := ParseCPUList(s)
	return l, err == nil
}

// mask reads a hexadecimal cpu mask file.
func (r *reader) mask(name string) ([]int, bool) {
	s, ok := r.text(name)
	if !ok {
		return nil, false
	}
	l, err := ParseCPUMap(s)
	return l, err == nil
}

// source names a CPU set file pair: a list (e.g. "core_cpus_list") and
// the hexadecimal mask with the same content (e.g. "core_cpus").
type source struct{ list, mask string }

// set reads the first source that names at least one CPU. Within a source
// the mask wins when both can be parsed: hwloc reads the masks, and in a
// capture the two can disagree (in 64amd64-4s2n4ca2co the L2
// shared_cpu_list files name one CPU where the masks, and hwloc, name the
// two cores of a compute unit); on a live kernel both print the same
// cpumask.
func (r *reader) set(dir string, srcs ...source) ([]int, bool) {
	for _, s := range srcs {
		if s.mask != "" {
			if m, ok := r.mask(path.Join(dir, s.mask)); ok && len(m) > 0 {
				return m, true
			}
		}
		if s.list != "" {
			if l, ok := r.list(path.Join(dir, s.list)); ok && len(l) > 0 {
				return l, true
			}
		}
	}
	return nil, false
}

// isEmptySet reports whether the mask or the list of src, in dir, reads as
// an empty set.
func (r *reader) isEmptySet(dir string, src source) bool {
	if t, ok := r.text(path.Join(dir, src.mask)); ok {
		if m, err := ParseCPUMap(t); err == nil && len(m) == 0 {
			return true
		}
	}
	if t, ok := r.text(path.Join(dir, src.list)); ok {
		if l, err := ParseCPUList(t); err == nil && len(l) == 0 {
			return true
		}
	}
	return false
}

// numbered lists the entries of dir named prefix followed by a decimal
// number, and returns the numbers, sorted.
func (r *reader) numbered(dir, prefix string) []int {
	ents, err := fs.ReadDir(r.fsys, dir)
	if err != nil {
		return nil
	}
	var out []int
	for _, e := range ents {
		rest, ok := strings.CutPrefix(e.Name(), prefix)
		if !ok || rest == "" {
			continue
		}
		n, err := strconv.Atoi(rest)
		if err != nil || n < 0 || n >= MaxCPUs || strconv.Itoa(n) != rest {
			continue
		}
		out = append(out, n)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// onlineCPUs returns the online and present CPUs. ok is false where sysfs
// has no CPU information.
func (r *reader) onlineCPUs() (online, present []int, ok bool) {
	dirs := r.numbered(cpuDir, "cpu")
	present, pok := r.list(path.Join(cpuDir, "present"))
	if !pok || len(present) == 0 {
		present = dirs
	}
	if l, ok := r.list(path.Join(cpuDir, "online")); ok && len(l) > 0 {
		return l, present, true
	}
	// Older kernels and some captures have no "online" file: every cpuN
	// directory is online unless its cpuN/online says 0.
	for _, c := range dirs {
		if v, ok := r.int(fmt.Sprintf("%s/cpu%d/online", cpuDir, c)); ok && v == 0 {
			continue
		}
		online = append(online, c)
	}
	return online, present, len(online) > 0
}

// cpuinfoCount counts the "processor" lines of /proc/cpuinfo.
func (r *reader) cpuinfoCount() int {
	s, ok := r.text("proc/cpuinfo")
	if !ok {
		return 0
	}
	n := 0
	sc := bufio.NewScanner(strings.NewReader(s))
	for sc.Scan() {
		k, _, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == "processor" {
			n++
		}
	}
	return min(n, MaxCPUs)
}

// readCPU reads cpuN/topology and cpuN/cache for one online CPU.
func (r *reader) readCPU(b *builder, c int) {
	dir := fmt.Sprintf("%s/cpu%d", cpuDir, c)
	top := dir + "/topology"

	pkgID, hasPkgID := r.int(top + "/physical_package_id")
	if !hasPkgID || pkgID < 0 {
		pkgID = -1
	}
	pkgSet, ok := r.set(top, source{"package_cpus_list", "package_cpus"}, source{"core_siblings_list", "core_siblings"})
	if ok {
		b.report(LevelPackage, c, pkgSet, pkgID)
	} else if pkgID >= 0 {
		r.pkgKey[c], r.pkgID[c] = [3]int{pkgID}, pkgID
	}
	// pkgKey identifies the package for the core_id fallback below: its
	// mask where there is one (physical_package_id can conflict with it),
	// else its id.
	pkgKey := pkgID
	if len(pkgSet) > 0 {
		pkgKey = -2 - slices.Min(pkgSet)
	}
	dieKey := -1

	// Dies and clusters exist only where the kernel gives them an id;
	// die_id -1 (and cluster_id -1) marks an architecture without them,
	// whose *_cpus files are then meaningless.
	if dieID, ok := r.int(top + "/die_id"); ok && dieID >= 0 {
		dieKey = dieID
		if s, ok := r.set(top, source{"die_cpus_list", "die_cpus"}); ok {
			b.report(LevelDie, c, s, dieID)
		}
	}
	if clID, ok := r.int(top + "/cluster_id"); ok && clID >= 0 {
		if s, ok := r.set(top, source{"cluster_cpus_list", "cluster_cpus"}); ok {
			b.report(LevelCluster, c, s, clID)
		}
	}

	coreID, hasCoreID := r.int(top + "/core_id")
	if !hasCoreID || coreID < 0 {
		coreID = -1
	}
	if s, ok := r.set(top, coreSources...); ok {
		b.report(LevelCore, c, r.sameCore(c, coreID, pkgID, pkgSet, s), coreID)
	} else if coreID >= 0 {
		r.coreKey[c], r.coreID[c] = [3]int{pkgKey, dieKey, coreID}, coreID
	}
	r.readCaches(b, c, dir)
}

// coreSources are the files naming a CPU's core, newest kernels first.
var coreSources = []source{{"core_cpus_list", "core_cpus"}, {"thread_siblings_list", "thread_siblings"}}

// sameCore keeps, of the siblings s of CPU c, those with c's core_id and in
// c's package: its package mask pkgSet where there is one, else its
// physical_package_id pkgID (the id only counts where there is no mask: it
// can conflict with the masks, which hwloc follows). Older kernels report
// the two cores of an AMD Bulldozer compute unit as thread siblings
// although their core_ids differ; like hwloc, each such CPU is then its own
// core.
func (r *reader) sameCore(c, coreID, pkgID int, pkgSet, s []int) []int {
	if coreID < 0 {
		return s
	}
	inPkg := toSet(pkgSet)
	out := make([]int, 0, len(s))
	for _, o := range s {
		if o != c {
			top := fmt.Sprintf("%s/cpu%d/topology/", cpuDir, o)
			if id, ok := r.int(top + "core_id"); ok && id != coreID {
				continue
			}
			if len(pkgSet) > 0 {
				if !inPkg[o] {
					continue
				}
			} else if p, ok := r.int(top + "physical_package_id"); ok && pkgID >= 0 && p != pkgID {
				continue
			}
		}
		out = append(out, o)
	}
	return out
}

// readCaches reads the L2 and L3 entries of cpuN/cache/index*, dir being
// cpuN. As in hwloc, a cache whose CPU set is empty (ia64 reports its L3
// so) holds the CPUs of the core, and one whose set cannot be read is
// left out.
func (r *reader) readCaches(b *builder, c int, dir string) {
	for _, i := range r.numbered(dir+"/cache", "index") {
		idx := fmt.Sprintf("%s/cache/index%d", dir, i)
		lvl, ok := r.int(idx + "/level")
		if !ok || (lvl != 2 && lvl != 3) {
			continue
		}
		if typ, ok := r.text(idx + "/type"); ok && strings.EqualFold(typ, "Instruction") {
			continue
		}
		l := LevelL2
		if lvl == 3 {
			l = LevelL3
		}
		if _, done := b.sets[l][c]; done {
			continue
		}
		s, ok := r.set(idx, source{"shared_cpu_list", "shared_cpu_map"})
		if !ok && r.isEmptySet(idx, source{"shared_cpu_list", "shared_cpu_map"}) {
			s, ok = r.set(dir+"/topology", coreSources...)
		}
		if !ok {
			continue
		}
		id, ok := r.int(idx + "/id")
		if !ok {
			id = -1
		}
		b.report(l, c, s, id)
	}
}

// readNodes reads the NUMA nodes, their memory sizes and their distances.
// As in hwloc's Linux backend, a node whose CPUs overlap those of a node
// with a lower number is ignored, and a node without an online CPU (an
// empty cpumap: CXL, HBM or persistent memory; or CPUs all offline) is
// kept as a memory-only node, outside every CPU's domains.
func (r *reader) readNodes(b *builder) {
	nodes := r.numbered(nodeDir, "node")
	taken := map[int]bool{} // CPUs of the nodes kept so far
	for _, n := range nodes {
		dir := fmt.Sprintf("%s/node%d", nodeDir, n)
		s, ok := r.nodeCPUs(dir)
		switch {
		case !ok:
		case slices.ContainsFunc(s, func(c int) bool { return taken[c] }):
			b.note(fmt.Sprintf("NUMA node %d overlaps a lower-numbered node; ignored", n))
		case !slices.ContainsFunc(s, func(c int) bool { return b.online[c] }):
			b.memNodes = append(b.memNodes, n)
		default:
			for _, c := range s {
				taken[c] = true
				b.report(LevelNUMA, c, s, n)
			}
		}
		if ok {
			if m, ok := r.nodeMemory(dir); ok {
				b.nodeMem[n] = m
			}
		}
		// Row n of the matrix lists the distances to the nodes in
		// increasing order of their numbers.
		if d, ok := r.text(dir + "/distance"); ok {
			f := strings.Fields(d)
			if len(f) == len(nodes) {
				for j, v := range f {
					if x, err := strconv.Atoi(v); err == nil && x >= 0 {
						b.dist[[2]int{n, nodes[j]}] = x
					}
				}
			}
		}
	}
}

// nodeCPUs reads the CPUs of the NUMA node directory dir: its cpumap, else
// its cpulist, as read (offline CPUs included), possibly empty. ok is false
// where neither can be parsed: hwloc then ignores the node.
func (r *reader) nodeCPUs(dir string) (cpus []int, ok bool) {
	if s, ok := r.text(dir + "/cpumap"); ok {
		if l, err := ParseCPUMap(s); err == nil {
			return l, true
		}
	}
	if s, ok := r.text(dir + "/cpulist"); ok {
		if l, err := ParseCPUList(s); err == nil {
			return l, true
		}
	}
	return nil, false
}

// nodeMemory reads the MemTotal line of a NUMA node's meminfo ("Node 2
// MemTotal:  67108864 kB") and returns it in bytes.
func (r *reader) nodeMemory(dir string) (uint64, bool) {
	s, ok := r.text(dir + "/meminfo")
	if !ok {
		return 0, false
	}
	_, rest, ok := strings.Cut(s, "MemTotal:")
	if !ok {
		return 0, false
	}
	f := strings.Fields(rest)
	if len(f) < 2 || f[1] != "kB" {
		return 0, false
	}
	kb, err := strconv.ParseUint(f[0], 10, 64)
	if err != nil || kb > math.MaxUint64>>10 {
		return 0, false
	}
	return kb << 10, true
}

// readKinds ranks the core kinds of a hybrid machine: Intel's cpu_core and
// cpu_atom PMUs first, then cpu_capacity (Arm big.LITTLE), then the base
// frequency, the order hwloc uses. A source counts only when every online
// CPU has a value and the values differ.
func (r *reader) readKinds(b *builder) {
	core, okc := r.list("sys/devices/cpu_core/cpus")
	atom, oka := r.list("sys/devices/cpu_atom/cpus")
	if okc && oka && len(core) > 0 && len(atom) > 0 {
		isAtom := toSet(atom)
		for _, c := range b.ids {
			if isAtom[c] {
				b.kind[c] = 0
			} else {
				b.kind[c] = 1
			}
		}
		b.nkinds = 2
		return
	}
	for _, file := range []string{"cpu_capacity", "cpufreq/base_frequency"} {
		vals := map[int]int{}
		for _, c := range b.ids {
			v, ok := r.int(fmt.Sprintf("%s/cpu%d/%s", cpuDir, c, file))
			if !ok || v <= 0 {
				vals = nil
				break
			}
			vals[c] = v
		}
		var distinct []int
		for _, v := range vals {
			distinct = append(distinct, v)
		}
		slices.Sort(distinct)
		distinct = slices.Compact(distinct)
		if len(distinct) < 2 {
			continue
		}
		for c, v := range vals {
			b.kind[c], _ = slices.BinarySearch(distinct, v)
		}
		b.nkinds = len(distinct)
		return
	}
}

// statusAffinity reads Cpus_allowed_list (else the Cpus_allowed mask) from
// proc/self/status.
func (r *reader) statusAffinity() []int {
	s, ok := r.text("proc/self/status")
	if !ok {
		return nil
	}
	var fromMask []int
	for line := range strings.SplitSeq(s, "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		switch strings.TrimSpace(k) {
		case "Cpus_allowed_list":
			if l, err := ParseCPUList(v); err == nil && len(l) > 0 {
				return l
			}
		case "Cpus_allowed":
			if l, err := ParseCPUMap(v); err == nil && len(l) > 0 {
				fromMask = l
			}
		}
	}
	return fromMask
}
