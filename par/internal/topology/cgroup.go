package topology

import (
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"
)

// mount is one cgroup file system from the mount table.
type mount struct {
	fstype string   // "cgroup2", "cgroup" (v1) or "cpuset" (legacy)
	root   string   // the cgroup this mount exposes as its top ("/" usually)
	point  string   // where it is mounted, relative to the tree's root
	opts   []string // super options: the v1 controllers
}

// cgroupMounts reads the cgroup mounts from proc/self/mountinfo (which
// gives each mount's root, needed inside containers), else proc/mounts.
func (r *reader) cgroupMounts() []mount {
	var out []mount
	if s, ok := r.text("proc/self/mountinfo"); ok {
		for line := range strings.SplitSeq(s, "\n") {
			pre, post, ok := strings.Cut(line, " - ")
			if !ok {
				continue
			}
			f, g := strings.Fields(pre), strings.Fields(post)
			if len(f) < 5 || len(g) < 1 {
				continue
			}
			m := mount{fstype: g[0], root: unescapeMount(f[3]), point: unescapeMount(f[4])}
			if len(g) >= 3 {
				m.opts = strings.Split(g[2], ",")
			}
			if isCgroupFS(m.fstype) {
				out = append(out, m)
			}
		}
		if len(out) > 0 {
			return out
		}
	}
	if s, ok := r.text("proc/mounts"); ok {
		for line := range strings.SplitSeq(s, "\n") {
			f := strings.Fields(line)
			if len(f) < 4 || !isCgroupFS(f[2]) {
				continue
			}
			out = append(out, mount{fstype: f[2], root: "/", point: unescapeMount(f[1]), opts: strings.Split(f[3], ",")})
		}
	}
	if len(out) == 0 {
		// No mount table: look for cgroup v2 at its usual place.
		if _, err := fs.Stat(r.fsys, "sys/fs/cgroup/cgroup.controllers"); err == nil {
			out = append(out, mount{fstype: "cgroup2", root: "/", point: "/sys/fs/cgroup"})
		}
	}
	return out
}

func isCgroupFS(t string) bool { return t == "cgroup2" || t == "cgroup" || t == "cpuset" }

// unescapeMount decodes the octal escapes (\040 for a space) of the mount
// table.
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			if v, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(v))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// cgroupPaths reads proc/self/cgroup: the v2 path (line "0::/path") and the
// v1 path of each controller. Without it, proc/self/cpuset gives the path,
// as hwloc reads it.
func (r *reader) cgroupPaths() (v2 string, v1 map[string]string) {
	v1 = map[string]string{}
	if s, ok := r.text("proc/self/cgroup"); ok {
		for line := range strings.SplitSeq(s, "\n") {
			f := strings.SplitN(line, ":", 3)
			if len(f) != 3 || !strings.HasPrefix(f[2], "/") {
				continue
			}
			if f[0] == "0" && f[1] == "" {
				v2 = f[2]
				continue
			}
			for c := range strings.SplitSeq(f[1], ",") {
				if c != "" {
					v1[c] = f[2]
				}
			}
		}
	}
	if s, ok := r.text("proc/self/cpuset"); ok && strings.HasPrefix(s, "/") {
		if v2 == "" {
			v2 = s
		}
		if _, ok := v1["cpuset"]; !ok {
			v1["cpuset"] = s
		}
	}
	return v2, v1
}

// cgroupDirs returns the directories, relative to the tree's root, from the
// process's cgroup up to the mount's top, innermost first.
func cgroupDirs(m mount, cg string) []string {
	if cg == "" {
		cg = "/"
	}
	if m.root != "/" && m.root != "" {
		rel, ok := strings.CutPrefix(cg, m.root)
		if !ok || (rel != "" && !strings.HasPrefix(rel, "/")) {
			// The process's cgroup is outside this mount: only the mount's
			// top is visible.
			rel = "/"
		}
		cg = rel
	}
	cg = path.Clean("/" + cg)
	top := strings.TrimPrefix(path.Clean("/"+m.point), "/")
	var out []string
	for {
		d := path.Join(top, cg)
		if d == "" {
			d = "."
		}
		if fs.ValidPath(d) {
			out = append(out, d)
		}
		if cg == "/" || len(out) > 64 {
			return out
		}
		cg = path.Dir(cg)
	}
}

// readCgroups finds the cgroup cpuset and CPU quota of the process.
func (r *reader) readCgroups(b *builder) {
	mounts := r.cgroupMounts()
	if len(mounts) == 0 {
		return
	}
	v2, v1 := r.cgroupPaths()
	var cpuset []int
	haveSet := false
	addSet := func(s []int, where string) {
		if haveSet {
			cpuset = intersect(cpuset, toSet(s))
		} else {
			cpuset, haveSet = s, true
		}
		b.note("cgroup cpuset " + FormatCPUList(s) + " (" + where + ")")
	}
	quota := 0.0
	addQuota := func(q float64) {
		if q > 0 && (quota == 0 || q < quota) {
			quota = q
		}
	}
	for _, m := range mounts {
		switch {
		case m.fstype == "cgroup2":
			dirs := cgroupDirs(m, v2)
			for _, d := range dirs {
				if s, ok := r.list(d + "/cpuset.cpus.effective"); ok && len(s) > 0 {
					addSet(s, d)
					break
				}
			}
			for _, d := range dirs {
				addQuota(r.cpuMax(d + "/cpu.max"))
			}
		case m.fstype == "cpuset" || slices.Contains(m.opts, "cpuset"):
			// The legacy cpuset file system, and a cgroup v1 mount
			// with noprefix that emulates it, name the files without
			// "cpuset.".
			files := []string{"cpuset.effective_cpus", "cpuset.cpus"}
			if m.fstype == "cpuset" || slices.Contains(m.opts, "noprefix") {
				files = []string{"effective_cpus", "cpus"}
			}
		dirs:
			for _, d := range cgroupDirs(m, v1["cpuset"]) {
				for _, f := range files {
					if s, ok := r.list(d + "/" + f); ok && len(s) > 0 {
						addSet(s, d)
						break dirs
					}
				}
			}
		}
		if m.fstype == "cgroup" && slices.Contains(m.opts, "cpu") {
			for _, d := range cgroupDirs(m, v1["cpu"]) {
				q, okq := r.int(d + "/cpu.cfs_quota_us")
				p, okp := r.int(d + "/cpu.cfs_period_us")
				if okq && okp && q > 0 && p > 0 {
					addQuota(float64(q) / float64(p))
				}
			}
		}
	}
	if haveSet {
		b.cpuset = cpuset
		if cpuset == nil {
			b.cpuset = []int{}
		}
	}
	if quota > 0 {
		b.quota = quota
		b.note(fmt.Sprintf("cgroup CPU quota %.2f CPUs", quota))
	}
}

// cpuMax reads a cgroup v2 cpu.max file ("max 100000" or "QUOTA PERIOD")
// and returns quota/period, or 0 for no limit.
func (r *reader) cpuMax(name string) float64 {
	s, ok := r.text(name)
	if !ok {
		return 0
	}
	f := strings.Fields(s)
	if len(f) == 0 || f[0] == "max" {
		return 0
	}
	q, err := strconv.ParseInt(f[0], 10, 64)
	if err != nil || q <= 0 {
		return 0
	}
	p := int64(100000)
	if len(f) > 1 {
		if p, err = strconv.ParseInt(f[1], 10, 64); err != nil || p <= 0 {
			return 0
		}
	}
	return float64(q) / float64(p)
}
