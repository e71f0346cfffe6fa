// Package plots draws hpgraph's results with gonum/plot: a benchmark's
// times and bandwidths (Bench, for hpgraph bench --plot) and a run's
// supersteps (Supersteps, for hpgraph run --plot). The functions take
// plain data and write one image, SVG, PNG or PDF (Format picks it from a
// file's extension); empty data draws an empty chart that says so.
package plots

import (
	"bytes"
	"fmt"
	"image/color"
	"io"
	"math"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// formats are the image formats drawn, by file extension.
var formats = []string{"svg", "png", "pdf"}

// pngDPI is the resolution of PNG images.
const pngDPI = 144

// Format is the image format of path, from its extension (any case):
// svg, png or pdf.
func Format(path string) (string, error) {
	ext := filepath.Ext(path)
	f := strings.ToLower(strings.TrimPrefix(ext, "."))
	if slices.Contains(formats, f) {
		return f, nil
	}
	if ext == "" {
		return "", fmt.Errorf("%s: no file extension to tell the image format; want a name ending in .svg, .png or .pdf", path)
	}
	return "", fmt.Errorf("%s: unknown image format %q; want a name ending in .svg, .png or .pdf", path, ext)
}

// palette colours the series (Tableau 10).
var palette = []color.Color{
	rgb(0x4e, 0x79, 0xa7), rgb(0xf2, 0x8e, 0x2b), rgb(0xe1, 0x57, 0x59), rgb(0x76, 0xb7, 0xb2), rgb(0x59, 0xa1, 0x4f),
	rgb(0xed, 0xc9, 0x48), rgb(0xb0, 0x7a, 0xa1), rgb(0xff, 0x9d, 0xa7), rgb(0x9c, 0x75, 0x5f), rgb(0xba, 0xb0, 0xac),
}

func rgb(r, g, b uint8) color.RGBA { return color.RGBA{R: r, G: g, B: b, A: 255} }

func seriesColor(i int) color.Color { return palette[i%len(palette)] }

var (
	black = color.Black
	grey  = rgb(0x99, 0x99, 0x99)
)

// figure is panels stacked in one column under a title, with one legend
// beside them on the right.
type figure struct {
	title       string
	panels      []*plot.Plot
	legend      plot.Legend
	width       vg.Length // of the panels
	panelHeight vg.Length
}

func newFigure(title string) *figure {
	l := plot.NewLegend()
	l.Top, l.Left = true, true
	l.Padding = vg.Points(2)
	l.TextStyle.Font.Size = vg.Points(10)
	return &figure{title: title, legend: l, width: 16 * vg.Centimeter, panelHeight: 9 * vg.Centimeter}
}

func titleStyle() text.Style {
	return text.Style{Font: font.From(plot.DefaultFont, 13), Handler: plot.DefaultTextHandler, XAlign: draw.XCenter, YAlign: draw.YTop}
}

// write draws the figure in format onto w. gonum/plot panics on data it
// cannot draw; that comes back as an error.
func (f *figure) write(w io.Writer, format string) (err error) {
	if !slices.Contains(formats, format) {
		return fmt.Errorf("plots: unknown image format %q; want svg, png or pdf", format)
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("plots: drawing the %s image failed: %v", format, r)
		}
	}()
	margin := vg.Points(8)
	ts := titleStyle()
	titleH := ts.Height(f.title) + margin
	legendW, legendH := vg.Length(0), vg.Length(0)
	if r := f.legend.Rectangle(draw.Canvas{}); r.Size().X > 0 {
		legendW, legendH = r.Size().X+2*margin, r.Size().Y
	}
	panelsW := max(f.width, ts.Width(f.title)+2*margin-legendW)
	for _, p := range f.panels {
		panelsW = max(panelsW, p.Title.TextStyle.Width(p.Title.Text)+2*margin)
	}
	width := panelsW + legendW
	height := titleH + max(vg.Length(len(f.panels))*f.panelHeight, legendH+margin)

	var c vg.CanvasWriterTo
	if format == "png" {
		c = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(width, height), vgimg.UseDPI(pngDPI))}
	} else if c, err = draw.NewFormattedCanvas(width, height, format); err != nil {
		return err
	}
	dc := draw.New(c)
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())
	dc.FillText(ts, vg.Point{X: dc.Center().X, Y: dc.Max.Y - margin/2}, f.title)
	body := draw.Crop(dc, margin/2, -legendW, margin/2, -titleH)
	if legendW > 0 {
		f.legend.Draw(draw.Crop(dc, width-legendW+margin, -margin, 0, -titleH))
	}
	// The panels in equal rows, their data areas' left edges lined up.
	tiles := draw.Tiles{Rows: len(f.panels), Cols: 1, PadY: vg.Points(12), PadRight: margin}
	cs := make([]draw.Canvas, len(f.panels))
	var left vg.Length
	for i, p := range f.panels {
		cs[i] = tiles.At(body, 0, i)
		left = max(left, p.DataCanvas(cs[i]).Min.X-cs[i].Min.X)
	}
	for i, p := range f.panels {
		p.Draw(draw.Crop(cs[i], left-(p.DataCanvas(cs[i]).Min.X-cs[i].Min.X), 0, 0, 0))
	}
	if format != "svg" {
		_, err = c.WriteTo(w)
		return err
	}
	var svg bytes.Buffer
	if _, err = c.WriteTo(&svg); err != nil {
		return err
	}
	_, err = w.Write(withFallbackFonts(svg.Bytes()))
	return err
}

// svgFamily is a font-family declaration in gonum/plot's SVG: the one
// typeface its text was measured with (Liberation Serif by default).
var svgFamily = regexp.MustCompile(`font-family:([^;"']+);`)

// withFallbackFonts gives every font-family of an SVG document the
// typefaces that share its metrics, then the generic family: gonum/plot
// names Liberation Serif alone, and a viewer without it drew its default
// font, wider, and clipped the title. Times New Roman, Arial and Courier
// New are the metric twins of Liberation's Serif, Sans and Mono.
func withFallbackFonts(svg []byte) []byte {
	return svgFamily.ReplaceAllFunc(svg, func(m []byte) []byte {
		family := string(svgFamily.FindSubmatch(m)[1])
		var more string
		switch {
		case strings.Contains(family, "Mono"):
			more = "'Courier New',Courier,'Nimbus Mono PS','DejaVu Sans Mono',monospace"
		case strings.Contains(family, "Sans"):
			more = "Arial,Helvetica,'Nimbus Sans','DejaVu Sans',sans-serif"
		default:
			more = "'Times New Roman',Times,'Nimbus Roman','DejaVu Serif',serif"
		}
		return []byte("font-family:'" + family + "'," + more + ";")
	})
}

// newPanel is a plot with the figure's look. Its title says the y axis's
// unit: gonum/plot places a y label's room for a log axis wrongly (at the
// arithmetic middle of the range, near the top), shrinking the panel.
func newPanel(title, xLabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font.Size = vg.Points(11)
	p.X.Label.Text = xLabel
	p.X.Label.TextStyle.Font.Size = vg.Points(10)
	return p
}

// emptyPanel is a panel that says there is nothing to draw.
func emptyPanel(why string) *plot.Plot {
	p := newPanel(why, "")
	p.HideAxes()
	return p
}

// logAxis puts a on a log scale spanning the positive values of vs, with
// room around them (lo below the least, hi above the most); false, and a
// untouched, when none is positive.
func logAxis(a *plot.Axis, vs []float64, lo, hi float64) bool {
	least, most := math.Inf(1), math.Inf(-1)
	for _, v := range vs {
		if v > 0 && !math.IsInf(v, 0) {
			least, most = min(least, v), max(most, v)
		}
	}
	if math.IsInf(least, 1) {
		return false
	}
	a.Scale = plot.LogScale{}
	a.Tick.Marker = logTicks{}
	a.Min, a.Max = least/lo, most*hi
	return true
}

// logTicks marks a log axis: labels at the powers of ten, and at 2 and 5
// times them when the axis spans two decades or less.
type logTicks struct{}

func (logTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(lo > 0) || !(hi >= lo) || math.IsInf(hi, 0) {
		return nil
	}
	e0, e1 := int(math.Floor(math.Log10(lo))), int(math.Ceil(math.Log10(hi)))
	in := func(v float64) bool { return v >= lo*(1-1e-9) && v <= hi*(1+1e-9) }
	mark := func(labelled func(m int) bool) ([]plot.Tick, int) {
		var ticks []plot.Tick
		n := 0
		for e := e0; e <= e1; e++ {
			for m := 1; m <= 9; m++ {
				v := float64(m) * math.Pow10(e)
				if !in(v) {
					continue
				}
				t := plot.Tick{Value: v}
				if labelled(m) {
					t.Label = tickLabel(v)
					n++
				}
				ticks = append(ticks, t)
			}
		}
		return ticks, n
	}
	ticks, n := mark(func(m int) bool { return m == 1 || (e1-e0 <= 2 && (m == 2 || m == 5)) })
	if n < 2 {
		ticks, n = mark(func(int) bool { return true })
	}
	if n < 2 {
		ticks = append(ticks, plot.Tick{Value: lo, Label: tickLabel(lo)}, plot.Tick{Value: hi, Label: tickLabel(hi)})
	}
	return ticks
}

// tickLabel writes v short: 0.02, 500, 1e6.
func tickLabel(v float64) string {
	if v >= 1e5 || v < 1e-3 {
		s := strconv.FormatFloat(v, 'e', -1, 64)
		m, e, _ := strings.Cut(s, "e")
		x, _ := strconv.Atoi(e)
		return m + "e" + strconv.Itoa(x)
	}
	return strconv.FormatFloat(v, 'g', 6, 64)
}

// intTicks marks an axis of whole numbers (supersteps) with about ten
// labels.
type intTicks struct{}

func (intTicks) Ticks(lo, hi float64) []plot.Tick {
	lo, hi = math.Ceil(lo), math.Floor(hi)
	if hi < lo || math.IsInf(hi-lo, 0) {
		return nil
	}
	step := 1.0
	for i := 0; (hi-lo)/step > 10; i++ {
		step *= []float64{2, 2.5, 2}[i%3] // 1, 2, 5, 10, 20, 50, ...
	}
	var ticks []plot.Tick
	for v := math.Ceil(lo/step) * step; v <= hi; v += step {
		ticks = append(ticks, plot.Tick{Value: v, Label: strconv.FormatInt(int64(v), 10)})
	}
	return ticks
}

// bars is one series of a grouped bar chart on any y scale (a log one
// included): bar i is centred on xs[i], width wide in data units, and
// rises from the bottom of the panel to ys[i].
type bars struct {
	xs, ys []float64
	width  float64
	color  color.Color
	line   draw.LineStyle
}

func newBars(width float64, c color.Color) *bars {
	return &bars{width: width, color: c, line: draw.LineStyle{Color: black, Width: vg.Points(0.5)}}
}

func (b *bars) add(x, y float64) { b.xs, b.ys = append(b.xs, x), append(b.ys, y) }

func (b *bars) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	for i := range b.xs {
		x0, x1, y := trX(b.xs[i]-b.width/2), trX(b.xs[i]+b.width/2), trY(b.ys[i])
		pts := []vg.Point{{X: x0, Y: c.Min.Y}, {X: x0, Y: y}, {X: x1, Y: y}, {X: x1, Y: c.Min.Y}}
		c.FillPolygon(b.color, c.ClipPolygonXY(pts))
		c.StrokeLines(b.line, c.ClipLinesXY(append(pts, pts[0]))...)
	}
}

func (b *bars) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, xmax, ymin, ymax = math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for i := range b.xs {
		xmin, xmax = min(xmin, b.xs[i]-b.width/2), max(xmax, b.xs[i]+b.width/2)
		ymin, ymax = min(ymin, b.ys[i]), max(ymax, b.ys[i])
	}
	return xmin, xmax, ymin, ymax
}

func (b *bars) Thumbnail(c *draw.Canvas) {
	pts := []vg.Point{{X: c.Min.X, Y: c.Min.Y}, {X: c.Min.X, Y: c.Max.Y}, {X: c.Max.X, Y: c.Max.Y}, {X: c.Max.X, Y: c.Min.Y}}
	c.FillPolygon(b.color, pts)
	c.StrokeLines(b.line, append(pts, pts[0]))
}
