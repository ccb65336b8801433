package main

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Catches: rows skipped, rendered twice into the wrong place, or raced on
// (with -race) by the parallel render: it must equal the sequential render
// pixel by pixel.
func TestParallelRenderMatchesSequential(t *testing.T) {
	for _, size := range [][2]int{{1, 1}, {3, 2}, {96, 64}, {64, 257}} {
		w, h := size[0], size[1]
		got := render(w, h, 300, parallelRows)
		want := render(w, h, 300, sequentialRows)
		if !bytes.Equal(got.Pix, want.Pix) {
			for i := range got.Pix {
				if got.Pix[i] != want.Pix[i] {
					p := i / 4
					t.Fatalf("%dx%d: pixel (%d,%d) differs: parallel %v, sequential %v", w, h, p%w, p/w, got.Pix[i&^3:i&^3+4], want.Pix[i&^3:i&^3+4])
				}
			}
		}
	}
}

// Catches: a render that is uniform (both renders equally broken, e.g. every
// point escaping at once): the centre of the view is inside the set, the
// corners are outside.
func TestRenderShowsTheSet(t *testing.T) {
	img := render(64, 64, 200, parallelRows)
	black := func(x, y int) bool {
		c := img.RGBAAt(x, y)
		return c.R == 0 && c.G == 0 && c.B == 0
	}
	// (-0.75+0.36, 0) lies in the main cardioid; pixel x of c.re is
	// (re+0.75)/3*64+32.
	if !black(32+8, 32) {
		t.Errorf("a point of the main cardioid is not drawn as inside the set")
	}
	if black(0, 0) || black(63, 63) {
		t.Errorf("the corners of the view are drawn as inside the set")
	}
}

// Catches: a command that ignores its flags, writes no PNG or a PNG of the
// wrong size, or accepts an iteration count past the limit.
func TestRun(t *testing.T) {
	out := filepath.Join(t.TempDir(), "m.png")
	var stdout bytes.Buffer
	if err := run([]string{"-w", "40", "-h", "30", "-iter", "100", "-o", out}, &stdout); err != nil {
		t.Fatalf("run: %v\n%s", err, stdout.String())
	}
	if !strings.Contains(stdout.String(), "speedup") {
		t.Errorf("output does not report the speedup:\n%s", stdout.String())
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("decoding %s: %v", out, err)
	}
	if b := img.Bounds(); b.Dx() != 40 || b.Dy() != 30 {
		t.Errorf("PNG is %dx%d; want 40x30", b.Dx(), b.Dy())
	}
	if err := run([]string{"-iter", "2001", "-o", out}, &stdout); err == nil {
		t.Errorf("-iter 2001 accepted; the limit is 2000")
	}
}
