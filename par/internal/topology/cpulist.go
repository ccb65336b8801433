package topology

import (
	"errors"
	"slices"
	"strconv"
	"strings"
)

// MaxCPUs bounds the CPU ids this package accepts from a file. Linux's
// NR_CPUS is at most 8192 today; the bound is higher so that no real machine
// is cut off, and low enough that a malformed range such as "0-4294967295"
// cannot make the parser allocate without limit.
const MaxCPUs = 1 << 16

var (
	errEmptyList = errors.New("topology: empty cpu list element")
	errRange     = errors.New("topology: cpu id out of range")
	errSyntax    = errors.New("topology: malformed cpu list")
)

// cleanText trims what sysfs files carry around their value: spaces, the
// trailing newline and, in some captured trees, trailing NUL bytes.
func cleanText(s string) string {
	return strings.Trim(s, " \t\r\n\x00")
}

// ParseCPUList parses a Linux cpu list such as "0-3,8,10-15" (the format of
// sysfs *_list files, cpulist files, cgroup cpuset files and the
// Cpus_allowed_list line of /proc/PID/status). It also accepts the stride
// form "0-15:2" (cpuset(7)). An empty string is an empty set. The result is
// sorted and free of duplicates. Ids of MaxCPUs or more are an error.
func ParseCPUList(s string) ([]int, error) {
	s = cleanText(s)
	if s == "" {
		return nil, nil
	}
	var out []int
	for part := range strings.SplitSeq(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			return nil, errEmptyList
		}
		stride := 1
		if r, st, ok := strings.Cut(part, ":"); ok {
			n, err := parseID(st)
			if err != nil || n == 0 {
				return nil, errSyntax
			}
			stride, part = n, r
		}
		lo, hi := part, part
		if a, b, ok := strings.Cut(part, "-"); ok {
			lo, hi = a, b
		}
		l, err := parseID(lo)
		if err != nil {
			return nil, err
		}
		h, err := parseID(hi)
		if err != nil {
			return nil, err
		}
		if h < l {
			return nil, errSyntax
		}
		for c := l; c <= h; c += stride {
			out = append(out, c)
		}
		if len(out) > MaxCPUs {
			return nil, errRange
		}
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

func parseID(s string) (int, error) {
	s = strings.TrimSpace(s)
	if s == "" || s[0] == '+' || s[0] == '-' {
		return 0, errSyntax
	}
	n, err := strconv.ParseUint(s, 10, 32)
	if err != nil {
		return 0, errSyntax
	}
	if n >= MaxCPUs {
		return 0, errRange
	}
	return int(n), nil
}

// ParseCPUMap parses a Linux cpu mask in the format of sysfs cpumap and
// *_siblings files: comma-separated 32-bit hexadecimal words, most
// significant first, such as "00000000,0000ffff". A leading "0x" is
// accepted. The result is sorted.
func ParseCPUMap(s string) ([]int, error) {
	s = cleanText(s)
	s = strings.TrimPrefix(strings.TrimPrefix(s, "0x"), "0X")
	if s == "" {
		return nil, nil
	}
	words := strings.Split(s, ",")
	if len(words)*32 > MaxCPUs+32 {
		return nil, errRange
	}
	var out []int
	for i, w := range words {
		w = strings.TrimPrefix(strings.TrimPrefix(strings.TrimSpace(w), "0x"), "0X")
		if w == "" || len(w) > 8 {
			return nil, errSyntax
		}
		v, err := strconv.ParseUint(w, 16, 32)
		if err != nil {
			return nil, errSyntax
		}
		base := (len(words) - 1 - i) * 32
		for b := range 32 {
			if v&(1<<b) != 0 {
				if base+b >= MaxCPUs {
					return nil, errRange
				}
				out = append(out, base+b)
			}
		}
	}
	slices.Sort(out)
	return out, nil
}

// FormatCPUList is the inverse of ParseCPUList: it renders a set of CPU ids
// in the compact range form "0-3,8". The input need not be sorted.
func FormatCPUList(cpus []int) string {
	s := slices.Clone(cpus)
	slices.Sort(s)
	s = slices.Compact(s)
	var b strings.Builder
	for i := 0; i < len(s); {
		j := i
		for j+1 < len(s) && s[j+1] == s[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(s[i]))
		if j > i {
			b.WriteByte('-')
			b.WriteString(strconv.Itoa(s[j]))
		}
		i = j + 1
	}
	return b.String()
}

// intersect returns the sorted elements of a that are also in set.
func intersect(a []int, set map[int]bool) []int {
	var out []int
	for _, c := range a {
		if set[c] {
			out = append(out, c)
		}
	}
	return out
}

func toSet(a []int) map[int]bool {
	m := make(map[int]bool, len(a))
	for _, c := range a {
		m[c] = true
	}
	return m
}
