package workloads

import "sync"

// Size of the irregular workload.
const (
	MandelSize    = 1024
	MandelMaxIter = 2000
)

// Mandel is the mandelbrot set over [-2.5, 1.5] x [-2, 2], parallel over
// rows. Rows through the set cost up to MaxIter iterations a pixel, rows far
// from it a few: the cost per row varies by two orders of magnitude.
type Mandel struct {
	W, H, MaxIter int
	Out           []uint16 // iterations per pixel, row-major

	refOnce sync.Once
	ref     []uint16
}

// NewMandel makes a w x h mandelbrot with at most maxIter iterations a pixel.
func NewMandel(w, h, maxIter int) *Mandel {
	return &Mandel{W: w, H: h, MaxIter: maxIter, Out: make([]uint16, w*h)}
}

// Row computes row y into m.Out.
func (m *Mandel) Row(y int) { mandelRow(m.Out[y*m.W:(y+1)*m.W], y, m.W, m.H, m.MaxIter) }

// Rows computes rows [lo, hi).
func (m *Mandel) Rows(lo, hi int) {
	for y := lo; y < hi; y++ {
		mandelRow(m.Out[y*m.W:(y+1)*m.W], y, m.W, m.H, m.MaxIter)
	}
}

// Plain computes every row serially.
func (m *Mandel) Plain() { m.Rows(0, m.H) }

// Reset clears the output.
func (m *Mandel) Reset() { clear(m.Out) }

// Reference is the image computed serially once per process.
func (m *Mandel) Reference() []uint16 {
	m.refOnce.Do(func() {
		r := NewMandel(m.W, m.H, m.MaxIter)
		r.Plain()
		m.ref = r.Out
	})
	return m.ref
}

// Verify compares the output with the serial reference, pixel by pixel.
func (m *Mandel) Verify() error {
	ref := m.Reference()
	for i, v := range m.Out {
		if v != ref[i] {
			return mismatch("mandelbrot", i, v, ref[i])
		}
	}
	return nil
}

// RowCost is the number of iterations row y takes, from the reference.
func (m *Mandel) RowCost(y int) int {
	ref := m.Reference()
	s := 0
	for _, v := range ref[y*m.W : (y+1)*m.W] {
		s += int(v)
	}
	return s
}

// Loop exposes m as a Loop over rows.
func (m *Mandel) Loop() *Loop {
	return &Loop{Name: "mandelbrot", N: m.H, Plain: m.Plain, Elem: m.Row, Range: m.Rows, Reset: m.Reset, Verify: m.Verify}
}

func mandelRow(out []uint16, y, w, h, maxIter int) {
	cy := -2 + 4*float64(y)/float64(h)
	for px := range out {
		cx := -2.5 + 4*float64(px)/float64(w)
		x, yy := 0.0, 0.0
		it := 0
		for ; it < maxIter; it++ {
			x2, y2 := x*x, yy*yy
			if x2+y2 > 4 {
				break
			}
			yy = 2*x*yy + cy
			x = x2 - y2 + cx
		}
		out[px] = uint16(it)
	}
}
