package plots

import (
	"io"
	"slices"
	"strconv"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Step is one superstep of a run.
type Step struct {
	// Direction is how the superstep ran: push or pull (another name gets
	// a marker of its own).
	Direction string
	// Active is the number of vertices active after the superstep: the
	// next superstep's frontier.
	Active int64
	// FrontierEdges are that frontier's edges; negative when unknown.
	FrontierEdges int64
	// Time is the superstep's wall time.
	Time time.Duration
}

// Supersteps draws a run's supersteps: the frontier each leaves (active
// vertices, and frontier edges where known; log scale, zeros left out)
// and each superstep's time (log scale) below, the markers' shape and
// colour saying the direction.
func Supersteps(w io.Writer, format, title string, steps []Step) error {
	f := newFigure(title)
	if len(steps) == 0 {
		f.panels = []*plot.Plot{emptyPanel("no supersteps ran")}
		return f.write(w, format)
	}
	var dirs []string
	for _, s := range steps {
		if !slices.Contains(dirs, s.Direction) {
			dirs = append(dirs, s.Direction)
		}
	}
	// push before pull, whatever ran first.
	slices.SortStableFunc(dirs, func(a, b string) int { return dirRank(a) - dirRank(b) })
	f.width = max(f.width, min(vg.Length(len(steps))*0.4*vg.Centimeter, 60*vg.Centimeter))

	xLabel := "superstep"
	frontier := newPanel("frontier after each superstep: active vertices (log scale; 0 not shown)", xLabel)
	times := newPanel("time per superstep, ms (log scale)", xLabel)
	var active, edges, ms []float64
	for _, s := range steps {
		active = append(active, float64(s.Active))
		if s.FrontierEdges > 0 {
			edges = append(edges, float64(s.FrontierEdges))
		}
		ms = append(ms, s.Time.Seconds()*1e3)
	}
	hasEdges := len(edges) > 0
	if hasEdges {
		frontier.Title.Text = "frontier after each superstep: active vertices and their edges (log scale; 0 not shown)"
	}
	logAxis(&frontier.Y, append(slices.Clone(active), edges...), 1.6, 1.6)
	logAxis(&times.Y, ms, 1.6, 1.6)
	for _, p := range []*plot.Plot{frontier, times} {
		p.X.Min, p.X.Max = -0.5, float64(len(steps))-0.5
		p.X.Tick.Marker = intTicks{}
		g := plotter.NewGrid()
		g.Vertical.Color = nil
		p.Add(g)
	}

	// A thin line through each series, in superstep order, then the
	// markers by direction.
	trace := func(p *plot.Plot, ys []float64, sty draw.LineStyle) (*plotter.Line, error) {
		var xys plotter.XYs
		for i, y := range ys {
			if y > 0 {
				xys = append(xys, plotter.XY{X: float64(i), Y: y})
			}
		}
		if len(xys) == 0 {
			return nil, nil
		}
		l, err := plotter.NewLine(xys)
		if err != nil {
			return nil, err
		}
		l.LineStyle = sty
		p.Add(l)
		return l, nil
	}
	thin := draw.LineStyle{Color: grey, Width: vg.Points(0.75)}
	if _, err := trace(frontier, active, thin); err != nil {
		return err
	}
	if _, err := trace(times, ms, thin); err != nil {
		return err
	}
	var edgeMarks *plotter.Scatter
	if hasEdges {
		var ys []float64
		for _, s := range steps {
			ys = append(ys, float64(s.FrontierEdges))
		}
		dashed := draw.LineStyle{Color: grey, Width: vg.Points(0.75), Dashes: []vg.Length{vg.Points(3), vg.Points(2)}}
		if _, err := trace(frontier, ys, dashed); err != nil {
			return err
		}
		var pts plotter.XYs
		for i, y := range ys {
			if y > 0 {
				pts = append(pts, plotter.XY{X: float64(i), Y: y})
			}
		}
		sc, err := plotter.NewScatter(pts)
		if err != nil {
			return err
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: grey, Radius: vg.Points(3), Shape: draw.RingGlyph{}}
		frontier.Add(sc)
		edgeMarks = sc
	}
	for i, d := range dirs {
		sty := dirStyle(d, i)
		for _, panel := range []struct {
			p  *plot.Plot
			ys []float64
		}{{frontier, active}, {times, ms}} {
			var pts plotter.XYs
			for j, s := range steps {
				if s.Direction == d && panel.ys[j] > 0 {
					pts = append(pts, plotter.XY{X: float64(j), Y: panel.ys[j]})
				}
			}
			if len(pts) == 0 {
				continue
			}
			sc, err := plotter.NewScatter(pts)
			if err != nil {
				return err
			}
			sc.GlyphStyle = sty
			panel.p.Add(sc)
		}
		n := 0
		for _, s := range steps {
			if s.Direction == d {
				n++
			}
		}
		name := d
		if name == "" {
			name = "(no direction)"
		}
		f.legend.Add(name+" supersteps"+count(n), legendGlyph{sty})
	}
	if edgeMarks != nil {
		f.legend.Add("frontier edges", edgeMarks)
	}
	f.panels = []*plot.Plot{frontier, times}
	return f.write(w, format)
}

// count is n as a legend's note.
func count(n int) string { return " (" + strconv.Itoa(n) + ")" }

func dirRank(d string) int {
	switch d {
	case "push":
		return 0
	case "pull":
		return 1
	}
	return 2
}

// dirStyle is the marker of direction d, the i-th drawn.
func dirStyle(d string, i int) draw.GlyphStyle {
	switch d {
	case "push":
		return draw.GlyphStyle{Color: palette[0], Radius: vg.Points(3.5), Shape: draw.TriangleGlyph{}}
	case "pull":
		return draw.GlyphStyle{Color: palette[1], Radius: vg.Points(3), Shape: draw.CircleGlyph{}}
	}
	shapes := []draw.GlyphDrawer{draw.BoxGlyph{}, draw.PyramidGlyph{}, draw.CrossGlyph{}}
	return draw.GlyphStyle{Color: seriesColor(2 + i), Radius: vg.Points(3), Shape: shapes[i%len(shapes)]}
}

// legendGlyph is a legend entry's marker.
type legendGlyph struct{ sty draw.GlyphStyle }

func (g legendGlyph) Thumbnail(c *draw.Canvas) { c.DrawGlyph(g.sty, c.Center()) }
