package main

import (
	"math"
	"sort"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// plotSpeedup draws speedup over seq against workers, one line per peer,
// with the ideal line for reference.
func plotSpeedup(s *Set, w Workload, path string) error {
	procs := s.Procs()
	p := plot.New()
	p.Title.Text = "speedup over seq: " + w.Title
	p.X.Label.Text = "workers (GOMAXPROCS)"
	p.Y.Label.Text = "speedup (seq time / time)"
	var ticks []plot.Tick
	for _, c := range procs {
		ticks = append(ticks, plot.Tick{Value: float64(c), Label: strconv.Itoa(c)})
	}
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	maxp := float64(procs[len(procs)-1])
	// Room on the right for the legend.
	p.X.Min, p.X.Max = 1, maxp+0.9*math.Max(1, maxp-1)
	p.Y.Min = 0
	p.Legend.Top = true
	p.Legend.TextStyle.Font.Size = vg.Points(8)

	ideal := plotter.XYs{}
	for _, c := range procs {
		ideal = append(ideal, plotter.XY{X: float64(c), Y: float64(c)})
	}
	var lines []any
	ymax := maxp
	for _, name := range s.Names(w.Top + "/") {
		peer := nameKey(name, "peer")
		if peer == "seq" {
			continue
		}
		var xy plotter.XYs
		for _, c := range procs {
			r := rows(s, w.Top, c)
			for _, row := range r {
				if row.Name == name && !math.IsNaN(row.Speedup) {
					xy = append(xy, plotter.XY{X: float64(c), Y: row.Speedup})
					ymax = math.Max(ymax, row.Speedup)
				}
			}
		}
		if len(xy) > 0 {
			lines = append(lines, peer, xy)
		}
	}
	if err := plotutil.AddLinePoints(p, lines...); err != nil {
		return err
	}
	il, err := plotter.NewLine(ideal)
	if err != nil {
		return err
	}
	il.Dashes = []vg.Length{vg.Points(2), vg.Points(2)}
	p.Add(il)
	p.Legend.Add("ideal", il)
	p.Y.Max = ymax * 1.1
	p.Add(plotter.NewGrid())
	return p.Save(7*vg.Inch, 4.5*vg.Inch, path)
}

// plotGrain draws time relative to auto against the grain hint, one line
// per workload.
func plotGrain(s *Set, procs int, works []string, path string) error {
	p := plot.New()
	p.Title.Text = "granularity sweep: time / time without a hint"
	p.X.Label.Text = "grain hint (iterations, log scale)"
	p.Y.Label.Text = "time relative to auto"
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	p.Legend.Top = true
	var lines []any
	for _, w := range works {
		prefix := "Exp_Grain/work=" + w + "/"
		auto, ok := s.Median(prefix+"grain=auto", procs, "ns/op")
		if !ok {
			continue
		}
		var xy plotter.XYs
		for _, g := range keyValues(s, prefix, "grain") {
			n, err := strconv.Atoi(g)
			if err != nil {
				continue
			}
			if t, ok := s.Median(prefix+"grain="+g, procs, "ns/op"); ok {
				xy = append(xy, plotter.XY{X: float64(n), Y: t / auto})
			}
		}
		sort.Slice(xy, func(i, j int) bool { return xy[i].X < xy[j].X })
		if len(xy) > 0 {
			lines = append(lines, w, xy)
		}
	}
	if err := plotutil.AddLinePoints(p, lines...); err != nil {
		return err
	}
	p.Add(plotter.NewGrid())
	return p.Save(7*vg.Inch, 4.5*vg.Inch, path)
}
