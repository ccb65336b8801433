package topology

import (
	"bufio"
	"encoding/xml"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/parloop/parloop/internal/capture"
)

// capturesDir holds hwloc's test captures (see its README.md): NAME.tar.gz
// is a machine's /sys and /proc, NAME.console lstopo's view of it, or
// NAME.xml where there is no console. A missing capture fails the tests.
const capturesDir = "testdata"

// numCaptures is how many captures capturesDir holds, so that a lost file
// cannot make the tests over all of them pass vacuously.
const numCaptures = 8

// expected is hwloc's view of a capture, parsed from its .console or .xml.
type expected struct {
	// sets maps an hwloc object type ("Package", "NUMANode", "L3Cache",
	// "L2Cache", "Group(Cluster)", "Core", "PU") to the CPU sets of its
	// objects, each as FormatCPUList, sorted. Objects with no CPU are
	// left out: they hold nothing a worker can use.
	sets map[string][]string
	// kinds are the cpusets of hwloc's CPU kinds, by increasing efficiency;
	// nil when the file lists one kind or none.
	kinds [][]int
	// dist maps pairs of NUMA node OS indexes to their latency.
	dist map[[2]int]int
	// memNodes are the OS indexes of the NUMA nodes without CPUs, sorted;
	// count("NUMANode") includes them.
	memNodes []int
}

func (e *expected) count(typ string) int {
	if typ == "NUMANode" {
		return len(e.sets[typ]) + len(e.memNodes)
	}
	return len(e.sets[typ])
}

// captureNames lists the captures, by base name.
func captureNames(t testing.TB) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(capturesDir, "*.tar.gz"))
	if err != nil || len(files) != numCaptures {
		t.Fatalf("%d captures in %s, want %d: %v", len(files), capturesDir, numCaptures, err)
	}
	var out []string
	for _, f := range files {
		out = append(out, strings.TrimSuffix(filepath.Base(f), ".tar.gz"))
	}
	return out
}

var archiveCache sync.Map // name -> func() (fs.FS, error)

// captureFS reads a capture's tarball once per test binary.
func captureFS(t testing.TB, name string) fs.FS {
	t.Helper()
	f, _ := archiveCache.LoadOrStore(name, sync.OnceValues(func() (fs.FS, error) {
		return capture.Open(filepath.Join(capturesDir, name+".tar.gz"))
	}))
	fsys, err := f.(func() (fs.FS, error))()
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return fsys
}

// prefetchCaptures reads all the tarballs at once (bzip2 is slow under the
// race detector) and waits for them.
func prefetchCaptures(t testing.TB) {
	var wg sync.WaitGroup
	for _, name := range captureNames(t) {
		wg.Go(func() {
			f, _ := archiveCache.LoadOrStore(name, sync.OnceValues(func() (fs.FS, error) {
				return capture.Open(filepath.Join(capturesDir, name+".tar.gz"))
			}))
			_, _ = f.(func() (fs.FS, error))()
		})
	}
	wg.Wait()
}

func captureTopology(t testing.TB, name string) *Topology {
	t.Helper()
	top, err := Read(captureFS(t, name))
	if err != nil {
		t.Fatalf("%s: Read: %v", name, err)
	}
	return top
}

// loadExpected parses NAME.console, else NAME.xml.
func loadExpected(t testing.TB, name string) *expected {
	t.Helper()
	base := filepath.Join(capturesDir, name)
	if b, err := os.ReadFile(base + ".console"); err == nil {
		e, err := parseConsole(string(b))
		if err != nil {
			t.Fatalf("%s.console: %v", name, err)
		}
		return e
	}
	b, err := os.ReadFile(base + ".xml")
	if err != nil {
		t.Fatalf("%s: neither .console nor .xml: %v", name, err)
	}
	e, err := parseXML(b)
	if err != nil {
		t.Fatalf("%s.xml: %v", name, err)
	}
	return e
}

var (
	// consoleLine: indentation, type, subtype ("NUMANode(HBM)"), L#,
	// attributes.
	consoleLine = regexp.MustCompile(`^( *)([^\s(]+)(?:\([^)]*\))?(?: L#(\d+))?(?: \(([^)]*)\))?`)
	pIndex      = regexp.MustCompile(`\bP#(\d+)`)
	kindLine    = regexp.MustCompile(`^CPU kind #(\d+) efficiency (\d+) cpuset (\S+)`)
	matrixHead  = regexp.MustCompile(`^Relative latency matrix .* between (\d+) NUMANodes .* by logical indexes`)
)

// parseConsole reads lstopo's console output: the indented tree up to the
// first "depth" line, then the CPU kinds and the NUMA latency matrix.
//
// A NUMA node is printed as a memory child of the object with the same
// CPUs (below memory-side caches, MemCache, where there are some), so it
// takes that object's CPUs. A node without CPUs hangs from an object
// holding no PU (a Group of its own), or from the machine while other
// nodes hold CPUs below it: it is a memory-only node.
func parseConsole(text string) (*expected, error) {
	type obj struct {
		typ    string
		indent int
		cpus   []int
		parent *obj
		os     int // P#, -1 when none
	}
	var objs []*obj
	var stack []*obj
	numaOS := map[int]int{} // NUMANode L# -> P#
	lines := strings.Split(text, "\n")
	i := 0
	for ; i < len(lines); i++ {
		line := lines[i]
		if strings.HasPrefix(strings.TrimSpace(line), "depth ") {
			break
		}
		m := consoleLine.FindStringSubmatch(line)
		if m == nil || line == "" {
			continue
		}
		o := &obj{typ: m[2], indent: len(m[1])}
		if o.typ == "L2dCache" {
			o.typ = "L2Cache" // the reader's L2 is the data or unified one
		}
		for len(stack) > 0 && stack[len(stack)-1].indent >= o.indent {
			stack = stack[:len(stack)-1]
		}
		if len(stack) > 0 {
			o.parent = stack[len(stack)-1]
		}
		p := pIndex.FindStringSubmatch(m[4])
		o.os = -1
		if p != nil {
			o.os, _ = strconv.Atoi(p[1])
		}
		switch o.typ {
		case "PU":
			if p == nil {
				return nil, fmt.Errorf("PU without P#: %q", line)
			}
			id, _ := strconv.Atoi(p[1])
			for a := o; a != nil; a = a.parent {
				a.cpus = append(a.cpus, id)
			}
		case "NUMANode":
			if p != nil && m[3] != "" {
				l, _ := strconv.Atoi(m[3])
				numaOS[l], _ = strconv.Atoi(p[1])
			}
		}
		objs = append(objs, o)
		stack = append(stack, o)
	}
	e := &expected{sets: map[string][]string{}, dist: map[[2]int]int{}}
	// cpuParent is the object a NUMA node's CPUs are those of.
	cpuParent := func(o *obj) *obj {
		p := o.parent
		for p != nil && p.typ == "MemCache" {
			p = p.parent
		}
		return p
	}
	nodesBelowMachine := false
	for _, o := range objs {
		if p := cpuParent(o); o.typ == "NUMANode" && p != nil && p.parent != nil && len(p.cpus) > 0 {
			nodesBelowMachine = true
		}
	}
	for _, o := range objs {
		cpus := o.cpus
		if o.typ == "NUMANode" {
			cpus = nil
			if p := cpuParent(o); p != nil && (p.parent != nil || !nodesBelowMachine) {
				cpus = p.cpus
			}
			if len(cpus) == 0 {
				e.memNodes = append(e.memNodes, o.os)
				continue
			}
		}
		if len(cpus) > 0 && o.typ != "MemCache" {
			e.sets[o.typ] = append(e.sets[o.typ], FormatCPUList(cpus))
		}
	}
	for k := range e.sets {
		slices.Sort(e.sets[k])
	}
	slices.Sort(e.memNodes)
	var kinds [][]int
	for ; i < len(lines); i++ {
		if m := kindLine.FindStringSubmatch(lines[i]); m != nil {
			set, err := ParseCPUMap(m[3])
			if err != nil {
				return nil, fmt.Errorf("kind cpuset %q: %v", m[3], err)
			}
			eff, _ := strconv.Atoi(m[2])
			for len(kinds) <= eff {
				kinds = append(kinds, nil)
			}
			kinds[eff] = set
		}
		if m := matrixHead.FindStringSubmatch(lines[i]); m != nil && len(e.dist) == 0 {
			// The header names the columns by logical index, not
			// always in increasing order; each row starts with its own.
			n, _ := strconv.Atoi(m[1])
			head := strings.Fields(lines[i+1])
			if len(head) != n+1 {
				return nil, fmt.Errorf("latency matrix header %q", lines[i+1])
			}
			for r := range n {
				f := strings.Fields(lines[i+2+r])
				row, _ := strconv.Atoi(f[0])
				for c := range n {
					col, _ := strconv.Atoi(head[1+c])
					v, _ := strconv.Atoi(f[1+c])
					e.dist[[2]int{numaOS[row], numaOS[col]}] = v
				}
			}
		}
	}
	if len(kinds) > 1 {
		e.kinds = kinds
	}
	return e, nil
}

type xmlObject struct {
	Type    string      `xml:"type,attr"`
	OSIndex string      `xml:"os_index,attr"`
	CPUSet  string      `xml:"cpuset,attr"`
	Objects []xmlObject `xml:"object"`
}

type xmlTopology struct {
	Objects   []xmlObject `xml:"object"`
	Distances []struct {
		Indexing string   `xml:"indexing,attr"`
		Indexes  string   `xml:"indexes"`
		Values   []string `xml:"u64values"`
	} `xml:"distances2"`
}

// parseXML reads an hwloc v2 XML export. Each object's cpuset attribute is
// what hwloc found usable (online and allowed); objects with an empty
// cpuset are left out.
func parseXML(b []byte) (*expected, error) {
	var top xmlTopology
	if err := xml.Unmarshal(b, &top); err != nil {
		return nil, err
	}
	e := &expected{sets: map[string][]string{}, dist: map[[2]int]int{}}
	var walk func(o xmlObject) error
	walk = func(o xmlObject) error {
		set, err := ParseCPUMap(o.CPUSet)
		if err != nil {
			return fmt.Errorf("cpuset %q: %v", o.CPUSet, err)
		}
		if len(set) > 0 && o.Type != "Machine" {
			e.sets[o.Type] = append(e.sets[o.Type], FormatCPUList(set))
		}
		for _, k := range o.Objects {
			if err := walk(k); err != nil {
				return err
			}
		}
		return nil
	}
	for _, o := range top.Objects {
		if err := walk(o); err != nil {
			return nil, err
		}
	}
	for k := range e.sets {
		slices.Sort(e.sets[k])
	}
	for _, d := range top.Distances {
		if d.Indexing != "os" {
			continue
		}
		var idx, vals []int
		for f := range strings.FieldsSeq(d.Indexes) {
			v, _ := strconv.Atoi(f)
			idx = append(idx, v)
		}
		sc := bufio.NewScanner(strings.NewReader(strings.Join(d.Values, " ")))
		sc.Split(bufio.ScanWords)
		for sc.Scan() {
			v, _ := strconv.Atoi(sc.Text())
			vals = append(vals, v)
		}
		if len(vals) != len(idx)*len(idx) {
			return nil, fmt.Errorf("distance matrix: %d values for %d nodes", len(vals), len(idx))
		}
		for r, a := range idx {
			for c, b := range idx {
				e.dist[[2]int{a, b}] = vals[r*len(idx)+c]
			}
		}
	}
	return e, nil
}

// TestParseExpected checks the parsers on inline samples, so that a
// regression in them cannot make the capture tests vacuous.
func TestParseExpected(t *testing.T) {
	e, err := parseConsole(`Machine (P#0)
  Package L#0 (P#3)
    NUMANode L#0 (P#0 local=274MiB)
    L2Cache L#0 (size=1KiB)
      Core L#0 (P#0)
        PU L#0 (P#0)
        PU L#1 (P#2)
    Core L#1 (P#1)
      PU L#2 (P#1)
depth 0:           1 Machine (type #0)
CPU kind #0 efficiency 0 cpuset 0x00000002
CPU kind #1 efficiency 1 cpuset 0x00000005
`)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{"Package": {"0-2"}, "NUMANode": {"0-2"}, "L2Cache": {"0,2"}, "Core": {"0,2", "1"}, "PU": {"0", "1", "2"}}
	for k, v := range want {
		if !slices.Equal(e.sets[k], v) {
			t.Errorf("%s: got %v, want %v", k, e.sets[k], v)
		}
	}
	if len(e.kinds) != 2 || !slices.Equal(e.kinds[0], []int{1}) {
		t.Errorf("kinds: %v", e.kinds)
	}
	x, err := parseXML([]byte(`<topology><object type="Machine" cpuset="0x3"><object type="Package" cpuset="0x3"><object type="Core" cpuset="0x1"><object type="PU" cpuset="0x1"/></object><object type="Core" cpuset="0x0"/></object></object></topology>`))
	if err != nil {
		t.Fatal(err)
	}
	if x.count("Package") != 1 || x.count("Core") != 1 || x.count("PU") != 1 {
		t.Errorf("xml: %v", x.sets)
	}
}
