package plots

import (
	"bytes"
	"encoding/xml"
	"image/png"
	"io"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// svgTexts parses an SVG document and returns its root element's name and
// the text of its <text> elements; any XML error fails t.
func svgTexts(t *testing.T, doc []byte) (root string, texts []string) {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(doc))
	depth, inText := 0, false
	var cur strings.Builder
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("not well-formed XML: %v\n%.2000s", err, doc)
		}
		switch el := tok.(type) {
		case xml.StartElement:
			if depth == 0 {
				root = el.Name.Local
			}
			depth++
			if el.Name.Local == "text" {
				inText = true
				cur.Reset()
			}
		case xml.EndElement:
			depth--
			if el.Name.Local == "text" {
				inText = false
				texts = append(texts, cur.String())
			}
		case xml.CharData:
			if inText {
				cur.Write(el)
			}
		}
	}
	if depth != 0 {
		t.Fatalf("unbalanced SVG: depth %d at the end", depth)
	}
	if root != "svg" {
		t.Fatalf("root element %q, want svg", root)
	}
	return root, texts
}

func wantTexts(t *testing.T, texts []string, want ...string) {
	t.Helper()
	all := strings.Join(texts, "\n")
	for _, w := range want {
		if !strings.Contains(all, w) {
			t.Errorf("the SVG has no text %q; its texts:\n%s", w, all)
		}
	}
}

// benchRows has a failed row (no time), one without bandwidth and two
// backends, each with its roofline.
var benchRows = []BenchRow{
	{Graph: "kron:8", Algo: "bfs", Backend: "cpu", MedianMS: 0.12, GBs: 1.5, CopyGBs: 20},
	{Graph: "kron:8", Algo: "bfs", Backend: "cuda", MedianMS: 0.03, GBs: 6, CopyGBs: 3500},
	{Graph: "kron:8", Algo: "pagerank-iter", Backend: "cpu", MedianMS: 0.4, GBs: 3.1, CopyGBs: 20},
	{Graph: "kron:8", Algo: "pagerank-iter", Backend: "cuda"},
	{Graph: "grid:10x12", Algo: "tc", Backend: "cpu", MedianMS: 25},
	{Graph: "grid:10x12", Algo: "bfs", Backend: "cpu", MedianMS: 2.5, GBs: 0.2, CopyGBs: 20},
}

func TestBenchSVG(t *testing.T) {
	var b bytes.Buffer
	if err := Bench(&b, "svg", "hpgraph bench test", benchRows); err != nil {
		t.Fatal(err)
	}
	_, texts := svgTexts(t, b.Bytes())
	wantTexts(t, texts, "hpgraph bench test", "median compute time per algorithm", "achieved bandwidth",
		"kron:8 cpu", "kron:8 cuda", "grid:10x12 cpu", "bfs", "pagerank-iter", "tc",
		"cpu copy bandwidth 20.0 GB/s (roofline)", "cuda copy bandwidth 3500.0 GB/s (roofline)")
	// The failed row draws nothing, and no series is named twice.
	for _, s := range []string{"kron:8 cpu", "grid:10x12 cpu"} {
		if n := slices.Index(texts, s); n < 0 || slices.Contains(texts[n+1:], s) {
			t.Errorf("legend entry %q: not exactly once in %q", s, texts)
		}
	}
}

// Without bandwidths there is no second panel.
func TestBenchTimesOnly(t *testing.T) {
	var b bytes.Buffer
	rows := []BenchRow{{Graph: "g", Algo: "cc", Backend: "cpu", MedianMS: 3}}
	if err := Bench(&b, "svg", "t", rows); err != nil {
		t.Fatal(err)
	}
	_, texts := svgTexts(t, b.Bytes())
	wantTexts(t, texts, "g cpu", "cc", "median compute time")
	if slices.ContainsFunc(texts, func(s string) bool { return strings.Contains(s, "roofline") }) {
		t.Errorf("a roofline without bandwidths: %q", texts)
	}
}

var steps = []Step{
	{Direction: "push", Active: 12, FrontierEdges: 200, Time: 20 * time.Microsecond},
	{Direction: "push", Active: 300, FrontierEdges: 5000, Time: 90 * time.Microsecond},
	{Direction: "pull", Active: 700, FrontierEdges: 9000, Time: 400 * time.Microsecond},
	{Direction: "pull", Active: 40, FrontierEdges: 300, Time: 350 * time.Microsecond},
	{Direction: "push", Active: 0, FrontierEdges: 0, Time: 10 * time.Microsecond},
}

func TestSuperstepsSVG(t *testing.T) {
	var b bytes.Buffer
	if err := Supersteps(&b, "svg", "bfs on test", steps); err != nil {
		t.Fatal(err)
	}
	_, texts := svgTexts(t, b.Bytes())
	wantTexts(t, texts, "bfs on test", "frontier after each superstep", "time per superstep", "superstep",
		"push supersteps (3)", "pull supersteps (2)", "frontier edges")

	// Unknown frontier edges: no such series.
	noEdges := slices.Clone(steps)
	for i := range noEdges {
		noEdges[i].FrontierEdges = -1
	}
	b.Reset()
	if err := Supersteps(&b, "svg", "t", noEdges); err != nil {
		t.Fatal(err)
	}
	_, texts = svgTexts(t, b.Bytes())
	wantTexts(t, texts, "push supersteps (3)", "pull supersteps (2)")
	if slices.Contains(texts, "frontier edges") {
		t.Errorf("frontier edges drawn though unknown")
	}
}

// Empty and degenerate data draw a chart that says so; nothing panics.
func TestEmptyData(t *testing.T) {
	cases := []struct {
		name string
		draw func(w io.Writer) error
		want string
	}{
		{"no supersteps", func(w io.Writer) error { return Supersteps(w, "svg", "t", nil) }, "no supersteps ran"},
		{"no rows", func(w io.Writer) error { return Bench(w, "svg", "t", nil) }, "no benchmark results"},
		{"only failed rows", func(w io.Writer) error {
			return Bench(w, "svg", "t", []BenchRow{{Graph: "g", Algo: "bfs", Backend: "cpu"}})
		}, "no benchmark results"},
		{"nothing active, no time", func(w io.Writer) error {
			return Supersteps(w, "svg", "t", []Step{{Direction: "pull"}, {Direction: "push", FrontierEdges: -1}})
		}, "pull supersteps (1)"},
		{"one step", func(w io.Writer) error {
			return Supersteps(w, "svg", "t", []Step{{Direction: "pull", Active: 1, Time: time.Millisecond}})
		}, "pull supersteps (1)"},
		{"equal values", func(w io.Writer) error {
			return Bench(w, "svg", "t", []BenchRow{{Graph: "g", Algo: "bfs", Backend: "cpu", MedianMS: 1, GBs: 1, CopyGBs: 1}})
		}, "roofline"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := c.draw(&b); err != nil {
				t.Fatal(err)
			}
			_, texts := svgTexts(t, b.Bytes())
			wantTexts(t, texts, c.want)
		})
	}
}

func TestPNGAndPDF(t *testing.T) {
	var b bytes.Buffer
	if err := Supersteps(&b, "png", "t", steps); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&b)
	if err != nil {
		t.Fatalf("not a PNG: %v", err)
	}
	if r := img.Bounds(); r.Dx() < 500 || r.Dy() < 500 {
		t.Errorf("PNG of %v: too small", r)
	}
	b.Reset()
	if err := Bench(&b, "pdf", "t", benchRows); err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(b.Bytes(), []byte("%PDF-")) {
		t.Errorf("not a PDF: %.20q", b.Bytes())
	}
	if err := Bench(io.Discard, "gif", "t", benchRows); err == nil {
		t.Error("gif: no error")
	}
}

func TestFormat(t *testing.T) {
	for path, want := range map[string]string{"a.svg": "svg", "dir/B.PNG": "png", "x.y.pdf": "pdf", "a.gif": "", "noext": "", "a.svg.gz": ""} {
		got, err := Format(path)
		if got != want || (err != nil) != (want == "") {
			t.Errorf("Format(%q) = %q, %v; want %q", path, got, err, want)
		}
		if err != nil && !strings.Contains(err.Error(), ".svg, .png or .pdf") {
			t.Errorf("Format(%q): error %q does not say what is wanted", path, err)
		}
	}
}

// Every font an SVG names has fallbacks of the same metrics and a generic
// family: a viewer without Liberation Serif (the font gonum/plot measures
// text with) drew its default serif, wider, and clipped the title.
func TestSVGFontsFallBack(t *testing.T) {
	var b bytes.Buffer
	if err := Bench(&b, "svg", "hpgraph bench test", benchRows); err != nil {
		t.Fatal(err)
	}
	families := regexp.MustCompile(`font-family:([^;"]*);`).FindAllStringSubmatch(b.String(), -1)
	if len(families) == 0 {
		t.Fatal("no font-family in the SVG")
	}
	for _, f := range families {
		list := strings.Split(f[1], ",")
		if len(list) < 3 || list[0] != "'Liberation Serif'" || list[1] != "'Times New Roman'" || list[len(list)-1] != "serif" {
			t.Fatalf("font-family %q: want Liberation Serif, its metric twin Times New Roman, ..., serif", f[1])
		}
	}
	if _, texts := svgTexts(t, b.Bytes()); !slices.Contains(texts, "hpgraph bench test") {
		t.Fatalf("the SVG no longer parses to its texts: %q", texts)
	}
}
