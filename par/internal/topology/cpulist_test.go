package topology

import (
	"slices"
	"strings"
	"testing"
)

func TestParseCPUList(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []int
		err  bool
	}{
		{"", nil, false},
		{"\n", nil, false},
		{"0", []int{0}, false},
		{"0-3\n", []int{0, 1, 2, 3}, false},
		{"5\n\x00", []int{5}, false}, // 128arm captures end files with NUL
		{"0-1,4,6-7", []int{0, 1, 4, 6, 7}, false},
		{"4,0-1,1", []int{0, 1, 4}, false},
		{"0-15:4", []int{0, 4, 8, 12}, false},
		{" 2 - 3 ", []int{2, 3}, false},
		{"3-1", nil, true},
		{"1,,2", nil, true},
		{",", nil, true},
		{"a", nil, true},
		{"-1", nil, true},
		{"1-", nil, true},
		{"+1", nil, true},
		{"0-15:0", nil, true},
		{"0-4294967295", nil, true},
		{"65536", nil, true},
		{"99999999999999999999", nil, true},
	} {
		got, err := ParseCPUList(c.in)
		if (err != nil) != c.err || !slices.Equal(got, c.want) {
			t.Errorf("ParseCPUList(%q) = %v, %v; want %v, error %v", c.in, got, err, c.want, c.err)
		}
	}
}

func TestParseCPUMap(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []int
		err  bool
	}{
		{"", nil, false},
		{"00000000", nil, false},
		{"3", []int{0, 1}, false},
		{"00000000,0000ffff\n", []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}, false},
		{"00000001,00000000", []int{32}, false},
		{"0x00000202", []int{1, 9}, false},
		{"0xffffffff,0x00000001", append([]int{0}, seq(32, 64)...), false},
		{"ff,", nil, true},
		{"123456789", nil, true},
		{"xyz", nil, true},
		{strings.Repeat("ffffffff,", 4096) + "1", nil, true},
	} {
		got, err := ParseCPUMap(c.in)
		if (err != nil) != c.err || !slices.Equal(got, c.want) {
			t.Errorf("ParseCPUMap(%q) = %v, %v; want %v, error %v", c.in, got, err, c.want, c.err)
		}
	}
}

func seq(lo, hi int) []int {
	var out []int
	for i := lo; i < hi; i++ {
		out = append(out, i)
	}
	return out
}

func TestFormatCPUList(t *testing.T) {
	for in, want := range map[string]string{"": "", "0": "0", "0-3,5,7-8": "0-3,5,7-8", "8,0-1,1": "0-1,8"} {
		l, err := ParseCPUList(in)
		if err != nil {
			t.Fatal(err)
		}
		if got := FormatCPUList(l); got != want {
			t.Errorf("FormatCPUList(%v) = %q, want %q", l, got, want)
		}
	}
}

// FuzzParseCPUList: the parser never panics, returns sorted distinct ids
// below MaxCPUs, and its result survives a FormatCPUList round trip.
func FuzzParseCPUList(f *testing.F) {
	for _, s := range []string{"", "0", "0-3", "0-1,4,6-7\n", "0-15:2", "1,,2", "3-1", "0-4294967295", "5\n\x00", "a-b", "-", ":", "0-65535"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		l, err := ParseCPUList(s)
		if err != nil {
			if l != nil {
				t.Fatalf("error %v with a result %v", err, l)
			}
			return
		}
		for i, c := range l {
			if c < 0 || c >= MaxCPUs || (i > 0 && c <= l[i-1]) {
				t.Fatalf("ParseCPUList(%q) = %v: not sorted distinct ids in range", s, l)
			}
		}
		back, err := ParseCPUList(FormatCPUList(l))
		if err != nil || !slices.Equal(back, l) {
			t.Fatalf("round trip of %v: %v, %v", l, back, err)
		}
	})
}

// FuzzParseCPUMap: the mask parser never panics and returns sorted ids
// below MaxCPUs.
func FuzzParseCPUMap(f *testing.F) {
	for _, s := range []string{"", "3", "00000000,0000ffff", "0x1,0x2", ",", "fffffffff", "g"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		l, err := ParseCPUMap(s)
		if err != nil {
			return
		}
		for i, c := range l {
			if c < 0 || c >= MaxCPUs || (i > 0 && c <= l[i-1]) {
				t.Fatalf("ParseCPUMap(%q) = %v", s, l)
			}
		}
	})
}
