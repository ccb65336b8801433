package topology

import (
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"
)

var summaryRE = regexp.MustCompile(`^packages=\d+ numa=\d+ l3=\d+ cores=\d+ threads=\d+$`)

func mapFS(files map[string]string) fstest.MapFS {
	m := fstest.MapFS{}
	for k, v := range files {
		m[k] = &fstest.MapFile{Data: []byte(v)}
	}
	return m
}

// Trees with missing, truncated or garbage files read without error, with
// the fallbacks the package documentation gives.
func TestMalformedTrees(t *testing.T) {
	const cpu = "sys/devices/system/cpu/"
	for _, c := range []struct {
		name   string
		files  map[string]string
		want   string // Summary, or "" to check only well-formedness
		usable string
	}{
		{"cpuinfo only", map[string]string{"proc/cpuinfo": "processor\t: 0\nmodel\t: x\nprocessor\t: 1\nprocessor : 2\n"},
			"packages=1 numa=1 l3=0 cores=3 threads=3", "0-2"},
		{"online only", map[string]string{cpu + "online": "0-3\n"}, "packages=1 numa=1 l3=0 cores=4 threads=4", "0-3"},
		{"online garbage, cpu dirs", map[string]string{
			cpu + "online": "zz", cpu + "cpu0/x": "", cpu + "cpu1/x": "", cpu + "cpu2/online": "0\n", cpu + "cpu3/online": "1", cpu + "cpux/online": "1", cpu + "cpu07/online": "1",
		}, "packages=1 numa=1 l3=0 cores=3 threads=3", "0-1,3"},
		{"garbage everywhere", map[string]string{
			cpu + "online": "0-1",
			cpu + "cpu0/topology/thread_siblings_list": "garbage",
			cpu + "cpu0/topology/thread_siblings":      "zzzz",
			cpu + "cpu0/topology/core_id":              "x",
			cpu + "cpu0/topology/physical_package_id":  "-1",
			cpu + "cpu1/topology/core_cpus_list":       "7",
			cpu + "cpu0/cache/index2/level":            "two",
			cpu + "cpu1/cache/index3/level":            "3",
			cpu + "cpu1/cache/index3/shared_cpu_list":  "0-999999999",
			cpu + "cpu0/cpu_capacity":                  "-1",
			"sys/devices/system/node/node0/cpulist":    "bad",
			"sys/devices/system/node/node0/distance":   "10 x",
			"sys/devices/system/node/node1/distance":   "",
			"proc/self/status":                         "Cpus_allowed_list:\t1-0\nCpus_allowed:\tzz\n",
			"proc/self/cgroup":                         "0::/../../../etc\n::\n0:\n",
			"proc/self/mountinfo":                      "garbage\n1 2 3 4\n - cgroup2\n",
			"proc/mounts":                              "cgroup2 /sys/fs/cgroup cgroup2 rw 0 0\nshort\n",
			"sys/fs/cgroup/etc/cpu.max":                "abc def",
			"sys/fs/cgroup/cpu.max":                    "-5 100000",
			"sys/fs/cgroup/cpuset.cpus.effective":      "1,,2",
		}, "packages=1 numa=1 l3=0 cores=2 threads=2", "0-1"}, // CPU 1's L3 has no readable set: none, as in hwloc
		// ia64 reports its L3 with an empty map: hwloc, and the reader,
		// take the core's CPUs.
		{"empty cache map", map[string]string{
			cpu + "online":                        "0-3",
			cpu + "cpu0/topology/thread_siblings": "3", cpu + "cpu1/topology/thread_siblings": "3",
			cpu + "cpu2/topology/thread_siblings": "c", cpu + "cpu3/topology/thread_siblings": "c",
			cpu + "cpu0/cache/index3/level": "3", cpu + "cpu0/cache/index3/shared_cpu_map": "00000000,00000000",
			cpu + "cpu2/cache/index3/level": "3", cpu + "cpu2/cache/index3/shared_cpu_map": "00000000",
			cpu + "cpu2/cache/index3/shared_cpu_list": "\n",
		}, "packages=1 numa=1 l3=2 cores=2 threads=4", "0-3"},
		{"core_id fallback", map[string]string{
			cpu + "online": "0-4",
			cpu + "cpu0/topology/physical_package_id": "0", cpu + "cpu0/topology/core_id": "0",
			cpu + "cpu1/topology/physical_package_id": "0", cpu + "cpu1/topology/core_id": "1",
			cpu + "cpu2/topology/physical_package_id": "1", cpu + "cpu2/topology/core_id": "0",
			cpu + "cpu3/topology/physical_package_id": "1", cpu + "cpu3/topology/core_id": "1",
			cpu + "cpu4/topology/physical_package_id": "0", cpu + "cpu4/topology/core_id": "0",
		}, "packages=2 numa=1 l3=0 cores=4 threads=5", "0-4"},
		{"affinity outside the machine is ignored", map[string]string{
			cpu + "online": "0-1", "proc/self/status": "Cpus_allowed_list:\t5-6\n",
		}, "packages=1 numa=1 l3=0 cores=2 threads=2", "0-1"},
		{"affinity mask", map[string]string{
			cpu + "online": "0-3", "proc/self/status": "Cpus_allowed:\t0000000a\n",
		}, "packages=1 numa=1 l3=0 cores=2 threads=2", "1,3"},
		{"cgroup v1 cpuset and quota", map[string]string{
			cpu + "online":                                  "0-7",
			"proc/self/cgroup":                              "3:cpuset:/a\n2:cpu,cpuacct:/b\n",
			"proc/mounts":                                   "cgroup /sys/fs/cgroup/cpuset cgroup rw,cpuset 0 0\ncgroup /sys/fs/cgroup/cpu,cpuacct cgroup rw,cpu,cpuacct 0 0\n",
			"sys/fs/cgroup/cpuset/a/cpuset.cpus":            "2-5\n",
			"sys/fs/cgroup/cpu,cpuacct/b/cpu.cfs_quota_us":  "150000\n",
			"sys/fs/cgroup/cpu,cpuacct/b/cpu.cfs_period_us": "100000\n",
		}, "packages=1 numa=1 l3=0 cores=4 threads=4", "2-5"},
		// A cgroup v1 mount with noprefix names its files as the legacy
		// cpuset file system does (hwloc's 16em64t-4s2ca2c-cpusetreorder).
		{"cgroup v1 noprefix", map[string]string{
			cpu + "online":        "0-15",
			"proc/self/cpuset":    "/job\n",
			"proc/mounts":         "none /dev/cpuset cgroup rw,relatime,cpuset,noprefix,release_agent=/sbin/x 0 0\n",
			"dev/cpuset/cpus":     "0-15\n",
			"dev/cpuset/job/cpus": "2-11,13\n",
			"dev/cpuset/job/mems": "0\n",
		}, "packages=1 numa=1 l3=0 cores=11 threads=11", "2-11,13"},
		{"large online list", map[string]string{cpu + "online": "0-1023"}, "packages=1 numa=1 l3=0 cores=1024 threads=1024", "0-1023"},
		{"out of range online list", map[string]string{cpu + "online": "0-70000", cpu + "cpu0/online": "1"},
			"packages=1 numa=1 l3=0 cores=1 threads=1", "0"},
	} {
		t.Run(c.name, func(t *testing.T) {
			top, err := Read(mapFS(c.files))
			if err != nil {
				t.Fatal(err)
			}
			if got := top.Summary(); (c.want != "" && got != c.want) || !summaryRE.MatchString(got) {
				t.Errorf("Summary() = %q, want %q\n%s", got, c.want, top)
			}
			if got := FormatCPUList(top.CPUs()); got != c.usable {
				t.Errorf("CPUs() = %s, want %s", got, c.usable)
			}
			checkPlacement(t, top)
			_ = top.String()
		})
	}
	t.Run("cgroup v1 quota", func(t *testing.T) {
		top, _ := Read(mapFS(map[string]string{
			cpu + "online":     "0-7",
			"proc/self/cgroup": "2:cpu,cpuacct:/b\n",
			"proc/mounts":      "cgroup /sys/fs/cgroup/cpu,cpuacct cgroup rw,cpu,cpuacct 0 0\n",
			"sys/fs/cgroup/cpu,cpuacct/b/cpu.cfs_quota_us":  "150000\n",
			"sys/fs/cgroup/cpu,cpuacct/b/cpu.cfs_period_us": "100000\n",
		}))
		if top.Usable() != 2 || top.Quota() != 1.5 {
			t.Errorf("Usable() = %d, Quota() = %v; want 2, 1.5", top.Usable(), top.Quota())
		}
	})
	for _, fsys := range []fs.FS{nil, fstest.MapFS{}, mapFS(map[string]string{"proc/cpuinfo": "no processors\n"})} {
		if _, err := Read(fsys); !errors.Is(err, ErrNoTopology) {
			t.Errorf("Read of a tree without CPU information: %v, want ErrNoTopology", err)
		}
	}
}

// corruptFS serves a capture with some regular files replaced by garbage,
// chosen and shaped by a hash of the seed and the file's name.
type corruptFS struct {
	base fs.FS
	seed string
}

var garbage = []func(orig string) string{
	func(string) string { return "" },
	func(string) string { return "\x00" },
	func(string) string { return "-1\n" },
	func(string) string { return "garbage\n" },
	func(string) string { return "0-99999999\n" },
	func(string) string { return "1,,2" },
	func(string) string { return "4294967296" },
	func(string) string { return strings.Repeat("ffffffff,", 5000) },
	func(o string) string { return o[:len(o)/2] },
	func(o string) string { return strings.ReplaceAll(o, "1", "-") },
	func(o string) string { return strings.ReplaceAll(o, ",", ",,") },
}

func (c corruptFS) Open(name string) (fs.File, error) {
	f, err := c.base.Open(name)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		return f, err
	}
	h := fnv.New64a()
	io.WriteString(h, c.seed+"\x00"+name)
	v := h.Sum64()
	if v%3 != 0 { // leave two files in three alone
		return f, nil
	}
	orig, err := io.ReadAll(f)
	f.Close()
	if err != nil {
		return nil, err
	}
	data := garbage[(v/3)%uint64(len(garbage))](string(orig))
	return fstest.MapFS{"f": {Data: []byte(data)}}.Open("f")
}

// Every capture, with a third of its files replaced by garbage (several
// deterministic draws), still reads into a consistent topology.
func TestCorruptedCaptures(t *testing.T) {
	for _, name := range captureNames(t) {
		t.Run(name, func(t *testing.T) {
			base := captureFS(t, name)
			for _, seed := range []string{"a", "b", "c", "d"} {
				top, err := Read(corruptFS{base, seed})
				if err != nil {
					t.Fatalf("seed %s: %v", seed, err)
				}
				if !summaryRE.MatchString(top.Summary()) || top.Usable() < 1 {
					t.Fatalf("seed %s: Summary() = %q, Usable() = %d", seed, top.Summary(), top.Usable())
				}
				checkPlacement(t, top)
				checkVictims(t, top, top.Placement(min(top.Usable(), 16)))
				_ = top.String()
			}
		})
	}
}

// FuzzRead builds a tree from fuzzed contents of the files the reader
// looks at and checks that reading it never panics.
func FuzzRead(f *testing.F) {
	const cpu = "sys/devices/system/cpu/"
	paths := []string{
		cpu + "online", cpu + "present",
		cpu + "cpu0/topology/core_cpus_list", cpu + "cpu1/topology/thread_siblings",
		cpu + "cpu0/topology/package_cpus_list", cpu + "cpu1/topology/core_id",
		cpu + "cpu0/cache/index2/level", cpu + "cpu0/cache/index2/shared_cpu_map",
		"sys/devices/system/node/node0/cpulist", "sys/devices/system/node/node0/distance",
		"proc/self/status", "proc/self/cgroup", "proc/self/mountinfo", "sys/fs/cgroup/cpu.max",
		"sys/fs/cgroup/cpuset.cpus.effective",
		// Conflicting masks: packages, cores, caches and nodes that
		// disagree with cpu0's.
		cpu + "cpu1/topology/package_cpus", cpu + "cpu2/topology/core_siblings_list",
		cpu + "cpu2/topology/core_cpus", cpu + "cpu1/cache/index3/level",
		cpu + "cpu1/cache/index3/shared_cpu_list", cpu + "cpu2/cache/index3/level",
		cpu + "cpu2/cache/index3/shared_cpu_map", cpu + "cpu1/topology/die_id",
		cpu + "cpu1/topology/die_cpus_list", "sys/devices/system/node/node1/cpumap",
		"sys/devices/system/node/node1/meminfo",
	}
	f.Add("0-3|0-3|0,2|3|0-1|0|2|3|0-1|10 20|||||||0000000f|2-3|4|3|1-3|3|c|0|0-1|c|Node 1 MemTotal: 4 kB")
	f.Add("0-1|0-1|0|00000003|0-1|1|2|3|0-1|10|Cpus_allowed_list: 0|0::/|1 1 0:1 / /sys/fs/cgroup rw - cgroup2 x rw|max|0-1")
	f.Add("0-3|||||||||||||||")
	f.Add("x|y|z|")
	f.Fuzz(func(t *testing.T, s string) {
		m := fstest.MapFS{}
		for i, part := range strings.SplitN(s, "|", len(paths)) {
			m[paths[i]] = &fstest.MapFile{Data: []byte(part)}
		}
		top, err := Read(m)
		if err != nil {
			return
		}
		if !summaryRE.MatchString(top.Summary()) || top.Usable() < 1 {
			t.Fatalf("Summary() = %q, Usable() = %d", top.Summary(), top.Usable())
		}
		checkDomains(t, top)
		checkPlacement(t, top)
		if top.Usable() <= 64 { // checkVictims is quadratic in the CPUs
			checkVictims(t, top, top.Placement(top.Usable()))
		}
		_ = top.String()
	})
}

// checkDomains: the domains of each level are disjoint sets of usable
// CPUs, and every usable CPU is in exactly one core.
func checkDomains(t *testing.T, top *Topology) {
	t.Helper()
	usable := toSet(top.CPUs())
	for l := range numLevels {
		seen := map[int]bool{}
		for _, d := range top.Domains(l) {
			for _, c := range d.CPUs {
				if seen[c] || !usable[c] {
					t.Fatalf("%v domains: CPU %d twice or not usable: %v", l, c, top.Domains(l))
				}
				seen[c] = true
			}
		}
		if l == LevelCore && len(seen) != len(usable) {
			t.Fatalf("cores cover %d of %d usable CPUs", len(seen), len(usable))
		}
	}
}

// BenchmarkReadFlat reads machines with CPUs but no topology files, where
// every fallback hands one set to all the CPUs: the time per CPU should
// not grow with their number.
func BenchmarkReadFlat(b *testing.B) {
	for _, n := range []int{1024, 8192} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			fsys := mapFS(map[string]string{"sys/devices/system/cpu/online": fmt.Sprintf("0-%d", n-1)})
			for b.Loop() {
				if _, err := Read(fsys); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
