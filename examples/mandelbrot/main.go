// Command mandelbrot renders the Mandelbrot set with par.For over the rows of
// the image, writes it as a PNG, and compares the time with a sequential
// render of the same image.
//
// Rows differ in cost by orders of magnitude (rows through the set iterate to
// the limit on most pixels, rows near the edge escape at once), so this is
// the classic irregular loop that static chunking balances badly.
//
//	go run ./examples/mandelbrot -w 2048 -h 2048 -iter 2000 -o /tmp/m.png
package main

import (
	"errors"
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"math"
	"os"
	"runtime"
	"time"

	"github.com/parloop/parloop/par"
)

// maxIterLimit bounds -iter: past it the interior dominates the run time and
// the picture does not change.
const maxIterLimit = 2000

// view is the part of the complex plane rendered: the whole set.
const (
	centerRe, centerIm = -0.75, 0.0
	span               = 3.0 // width and height of the square view
)

// escape returns the number of iterations of z = z² + c before |z| > 2, or
// maxIter if the point does not escape.
func escape(cr, ci float64, maxIter int) int {
	// No cardioid or bulb shortcut: the points of the set cost the full
	// maxIter, which is what makes the rows so uneven.
	var zr, zi float64
	for k := 0; k < maxIter; k++ {
		zr2, zi2 := zr*zr, zi*zi
		if zr2+zi2 > 4 {
			return k
		}
		zi = 2*zr*zi + ci
		zr = zr2 - zi2 + cr
	}
	return maxIter
}

// shade maps an escape count to a colour: black inside the set, a blue to
// orange ramp outside.
func shade(k, maxIter int) color.RGBA {
	if k >= maxIter {
		return color.RGBA{0, 0, 0, 255}
	}
	t := math.Pow(float64(k)/float64(maxIter), 0.25) // stretch the low counts
	return color.RGBA{
		R: uint8(9 * (1 - t) * t * t * t * 255),
		G: uint8(15 * (1 - t) * (1 - t) * t * t * 255),
		B: uint8(8.5 * (1 - t) * (1 - t) * (1 - t) * t * 255),
		A: 255,
	}
}

// renderRow fills row y of img.
func renderRow(img *image.RGBA, y, maxIter int) {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	scale := span / float64(max(w, h))
	ci := centerIm + (float64(h)/2-float64(y)-0.5)*scale
	row := img.Pix[y*img.Stride : y*img.Stride+4*w]
	for x := 0; x < w; x++ {
		cr := centerRe + (float64(x)-float64(w)/2+0.5)*scale
		c := shade(escape(cr, ci, maxIter), maxIter)
		row[4*x], row[4*x+1], row[4*x+2], row[4*x+3] = c.R, c.G, c.B, c.A
	}
}

// render draws a w×h image; forRows runs body(y) for every row y in [0,h).
func render(w, h, maxIter int, forRows func(n int, body func(y int))) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	forRows(h, func(y int) { renderRow(img, y, maxIter) })
	return img
}

// parallelRows runs the rows with par.For: one row is one iteration, and the
// scheduler splits the rows among the workers as they become idle.
func parallelRows(n int, body func(int)) { par.For(n, body) }

// sequentialRows runs the rows in order on the calling goroutine.
func sequentialRows(n int, body func(int)) {
	for y := 0; y < n; y++ {
		body(y)
	}
}

func run(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("mandelbrot", flag.ContinueOnError)
	fs.SetOutput(stdout)
	w := fs.Int("w", 1024, "image width in pixels")
	h := fs.Int("h", 1024, "image height in pixels")
	maxIter := fs.Int("iter", maxIterLimit, fmt.Sprintf("iterations per pixel before a point counts as inside (at most %d)", maxIterLimit))
	out := fs.String("o", "mandelbrot.png", "output PNG file")
	seq := fs.Bool("seq", true, "also render sequentially and report the speedup")
	if err := fs.Parse(args); err != nil {
		return err
	}
	switch {
	case *w <= 0 || *h <= 0:
		return fmt.Errorf("image size %dx%d: both sides must be positive", *w, *h)
	case *maxIter <= 0 || *maxIter > maxIterLimit:
		return fmt.Errorf("-iter %d: want 1 to %d", *maxIter, maxIterLimit)
	}

	start := time.Now()
	img := render(*w, *h, *maxIter, parallelRows)
	parTime := time.Since(start)
	fmt.Fprintf(stdout, "%dx%d, %d iterations: par.For %v on %d workers\n", *w, *h, *maxIter, parTime.Round(time.Microsecond), par.Default().Workers())

	if *seq {
		start = time.Now()
		render(*w, *h, *maxIter, sequentialRows)
		seqTime := time.Since(start)
		fmt.Fprintf(stdout, "sequential %v, speedup %.2fx (GOMAXPROCS=%d)\n", seqTime.Round(time.Microsecond), seqTime.Seconds()/parTime.Seconds(), runtime.GOMAXPROCS(0))
	}

	f, err := os.Create(*out)
	if err != nil {
		return err
	}
	if err := errors.Join(png.Encode(f, img), f.Close()); err != nil {
		return fmt.Errorf("writing %s: %w", *out, err)
	}
	fmt.Fprintf(stdout, "wrote %s\n", *out)
	return nil
}

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "mandelbrot:", err)
		}
		os.Exit(2)
	}
}
