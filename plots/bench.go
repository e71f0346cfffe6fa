package plots

import (
	"fmt"
	"io"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// BenchRow is one result of a benchmark: an algorithm on a graph and a
// backend.
type BenchRow struct {
	Graph, Algo, Backend string
	// MedianMS is the median compute time in milliseconds; a row without
	// one (0: failed or skipped) is left out.
	MedianMS float64
	// GBs is the achieved bandwidth, GB/s (bytes model over the median
	// time); 0 when there is none.
	GBs float64
	// CopyGBs is the backend's measured copy bandwidth in GB/s, the
	// roofline GBs is drawn against; 0 when it was not measured.
	CopyGBs float64
}

// Bench draws rows as grouped bars, one group per algorithm and one bar
// per graph and backend: the median time (log scale), and below it, where
// rows have them, the achieved GB/s (log scale) with each backend's copy
// bandwidth as a horizontal line, the roofline.
func Bench(w io.Writer, format, title string, rows []BenchRow) error {
	var algos, series []string
	var timed []BenchRow
	for _, r := range rows {
		if !(r.MedianMS > 0) || math.IsInf(r.MedianMS, 0) {
			continue
		}
		timed = append(timed, r)
		if !slices.Contains(algos, r.Algo) {
			algos = append(algos, r.Algo)
		}
		if s := seriesName(r); !slices.Contains(series, s) {
			series = append(series, s)
		}
	}
	f := newFigure(title)
	if len(timed) == 0 {
		f.panels = []*plot.Plot{emptyPanel("no benchmark results to draw (every row failed or was skipped)")}
		return f.write(w, format)
	}
	// Each algorithm's group is 0.8 wide, its bars side by side.
	width := 0.8 / float64(len(series))
	x := func(r BenchRow) float64 {
		return float64(slices.Index(algos, r.Algo)) - 0.4 + width*(float64(slices.Index(series, seriesName(r)))+0.5)
	}
	group := max(2*vg.Centimeter, vg.Length(len(series))*0.5*vg.Centimeter)
	f.width = max(f.width, vg.Length(len(algos))*group+3*vg.Centimeter)

	times := newPanel("median compute time per algorithm, ms (log scale; lower is better)", "")
	barsPanel(times, algos)
	timeBars := make([]*bars, len(series))
	var ms []float64
	for i := range series {
		timeBars[i] = newBars(width, seriesColor(i))
	}
	for _, r := range timed {
		timeBars[slices.Index(series, seriesName(r))].add(x(r), r.MedianMS)
		ms = append(ms, r.MedianMS)
	}
	for i, b := range timeBars {
		if len(b.xs) > 0 {
			times.Add(b)
		}
		f.legend.Add(series[i], b)
	}
	barAxis(&times.Y, ms)
	f.panels = append(f.panels, times)

	// Achieved bandwidth against the rooflines, where the rows have them.
	var gbs []float64
	bwBars := make([]*bars, len(series))
	for i := range series {
		bwBars[i] = newBars(width, seriesColor(i))
	}
	var backends []string
	roof := map[string]float64{}
	for _, r := range timed {
		if r.GBs > 0 && !math.IsInf(r.GBs, 0) {
			bwBars[slices.Index(series, seriesName(r))].add(x(r), r.GBs)
			gbs = append(gbs, r.GBs)
			if r.CopyGBs > 0 && !math.IsInf(r.CopyGBs, 0) && roof[r.Backend] == 0 {
				roof[r.Backend] = r.CopyGBs
				backends = append(backends, r.Backend)
			}
		}
	}
	if len(gbs) == 0 {
		return f.write(w, format)
	}
	bw := newPanel("achieved bandwidth, GB/s (log scale; bytes model / median time) and copy bandwidth (roofline)", "")
	barsPanel(bw, algos)
	for _, b := range bwBars {
		if len(b.xs) > 0 {
			bw.Add(b)
		}
	}
	for i, be := range backends {
		v := roof[be]
		line, err := plotter.NewLine(plotter.XYs{{X: -0.5, Y: v}, {X: float64(len(algos)) - 0.5, Y: v}})
		if err != nil {
			return err
		}
		line.LineStyle = draw.LineStyle{Color: black, Width: vg.Points(1.5), Dashes: rooflineDashes(i)}
		bw.Add(line)
		f.legend.Add(fmt.Sprintf("%s copy bandwidth %.1f GB/s (roofline)", be, v), line)
		gbs = append(gbs, v)
	}
	barAxis(&bw.Y, gbs)
	f.panels = append(f.panels, bw)
	return f.write(w, format)
}

func seriesName(r BenchRow) string { return r.Graph + " " + r.Backend }

// barsPanel sets p up for groups of bars named by algos.
func barsPanel(p *plot.Plot, algos []string) {
	ticks := make([]plot.Tick, len(algos))
	for i, a := range algos {
		ticks[i] = plot.Tick{Value: float64(i), Label: a}
	}
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	p.X.Tick.Length = 0
	p.X.Min, p.X.Max = -0.5, float64(len(algos))-0.5
	p.X.Padding, p.Y.Padding = 0, 0
	g := plotter.NewGrid()
	g.Vertical.Color = nil
	p.Add(g)
}

// barAxis puts a bar panel's y axis on a log scale, its bottom a power of
// ten below the shortest bar so that every bar shows.
func barAxis(a *plot.Axis, vs []float64) {
	if logAxis(a, vs, 1, 1.5) {
		a.Min = math.Pow10(int(math.Floor(math.Log10(a.Min / 2))))
	}
}

func rooflineDashes(i int) []vg.Length {
	switch i % 3 {
	case 0:
		return []vg.Length{vg.Points(6), vg.Points(3)}
	case 1:
		return []vg.Length{vg.Points(2), vg.Points(2)}
	}
	return []vg.Length{vg.Points(8), vg.Points(2), vg.Points(2), vg.Points(2)}
}
