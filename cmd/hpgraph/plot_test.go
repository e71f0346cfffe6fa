package main

import (
	"bytes"
	"encoding/xml"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hpgraph/hpgraph/vertexprog"
)

// svgTexts parses path as SVG and returns the text of its <text>
// elements; a missing file, malformed XML or another root fails t.
func svgTexts(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	d := xml.NewDecoder(bytes.NewReader(b))
	var texts []string
	root, inText := "", false
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("%s: not well-formed XML: %v", path, err)
		}
		switch el := tok.(type) {
		case xml.StartElement:
			if root == "" {
				root = el.Name.Local
			}
			inText = el.Name.Local == "text"
		case xml.EndElement:
			inText = false
		case xml.CharData:
			if inText {
				texts = append(texts, string(el))
			}
		}
	}
	if root != "svg" {
		t.Fatalf("%s: root element %q, want svg", path, root)
	}
	return strings.Join(texts, "\n")
}

func wantIn(t *testing.T, what, text string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("%s lacks %q:\n%s", what, w, text)
		}
	}
}

// bench --plot draws the table; the file appears whole, with no
// temporary beside it.
func TestBenchPlot(t *testing.T) {
	dir := t.TempDir()
	svg, pngFile := filepath.Join(dir, "bench.svg"), filepath.Join(dir, "bench.png")
	out, code := hpgraph(t, "bench", "grid:6x7", "kron:6", "--algo", "bfs,pagerank-iter", "--backend", "cpu",
		"--runs", "1", "--copy-mib", "1", "--plot", svg)
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	texts := svgTexts(t, svg)
	wantIn(t, "the bench plot", texts, "hpgraph bench", "median compute time per algorithm", "achieved bandwidth",
		"grid:6x7 cpu", "kron:6 cpu", "bfs", "pagerank-iter", "cpu copy bandwidth", "(roofline)")
	if out, code := hpgraph(t, "bench", "grid:6x7", "--algo", "cc", "--backend", "cpu", "--runs", "1", "--copy-mib", "1", "--plot", pngFile); code != 0 {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	f, err := os.Open(pngFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := png.Decode(f); err != nil {
		t.Errorf("%s is not a PNG: %v", pngFile, err)
	}
	if names := files(t, dir); !slices.Equal(names, []string{"bench.png", "bench.svg"}) {
		t.Errorf("the directory holds %v, want the two plots only", names)
	}
}

// run -v --plot draws the last run's supersteps, with the frontier edges
// from -v's log, which it still prints; without -v the plot is the same.
func TestRunPlot(t *testing.T) {
	dir := t.TempDir()
	g := filepath.Join(dir, "k8.hpg")
	if out, code := hpgraph(t, "gen", "kron", "--scale", "8", "-o", g); code != 0 {
		t.Fatalf("gen: exit %d:\n%s", code, out)
	}
	for _, c := range []struct {
		name string
		args []string
	}{
		{"verbose", []string{"-v"}},
		{"quiet", nil},
		{"runs", []string{"-v", "--runs", "3"}},
		{"queries", []string{"--src", "1,2,3"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			svg := filepath.Join(dir, c.name+".svg")
			args := append([]string{"run", "bfs", g, "--backend", "cpu", "--direction", "auto", "--plot", svg}, c.args...)
			out, code := hpgraph(t, args...)
			if code != 0 {
				t.Fatalf("exit %d:\n%s", code, out)
			}
			if logged := strings.Contains(out, "superstep 0: "); logged != slices.Contains(c.args, "-v") {
				t.Errorf("superstep log printed %v, want %v:\n%s", logged, !logged, out)
			}
			texts := svgTexts(t, svg)
			wantIn(t, "the run plot", texts, "bfs on k8.hpg, backend cpu", "supersteps", "frontier after each superstep",
				"time per superstep", "frontier edges", "superstep")
			if !strings.Contains(texts, "push supersteps") && !strings.Contains(texts, "pull supersteps") {
				t.Errorf("no direction in the legend:\n%s", texts)
			}
		})
	}
	// pagerank-ldbc pulls every superstep.
	svg := filepath.Join(dir, "pr.svg")
	if out, code := hpgraph(t, "run", "pagerank-ldbc", g, "--backend", "cpu", "--iterations", "4", "--plot", svg); code != 0 {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	wantIn(t, "the pagerank plot", svgTexts(t, svg), "pull supersteps (4)", "4 supersteps")
}

// A --plot that cannot be written fails before any work.
func TestPlotCheckedFirst(t *testing.T) {
	dir := t.TempDir()
	g := filepath.Join(dir, "k6.hpg")
	if out, code := hpgraph(t, "gen", "kron", "--scale", "6", "-o", g); code != 0 {
		t.Fatalf("gen: exit %d:\n%s", code, out)
	}
	missing := filepath.Join(dir, "no", "such", "dir")
	for _, c := range []failCase{
		{"run --plot in a missing directory", []string{"run", "bfs", g, "-v", "--plot", filepath.Join(missing, "r.svg")}, "--plot " + filepath.Join(missing, "r.svg") + ": directory " + missing + " does not exist"},
		{"bench --plot in a missing directory", []string{"bench", "grid:5x5", "--backend", "cpu", "--plot", filepath.Join(missing, "b.svg")}, "directory " + missing + " does not exist"},
		{"run --plot of an unknown format", []string{"run", "bfs", g, "--plot", filepath.Join(dir, "r.gif")}, "want a file name ending in .svg, .png or .pdf"},
		{"bench --plot without an extension", []string{"bench", "grid:5x5", "--plot", filepath.Join(dir, "plot")}, "want a file name ending in .svg, .png or .pdf"},
		{"run --plot onto its input", []string{"run", "bfs", g, "--plot", g}, "want a file name ending in"},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, code := hpgraph(t, c.args...)
			if code == 0 || !strings.Contains(out, c.want) {
				t.Fatalf("exit %d, want non-zero and %q:\n%s", code, c.want, out)
			}
			// Nothing ran: no superstep, no table, no time to answer.
			for _, work := range []string{"superstep 0", "median ms", "time to answer", "bench: grid"} {
				if strings.Contains(out, work) {
					t.Errorf("work was done before the error (%q):\n%s", work, out)
				}
			}
		})
	}
	if names := files(t, dir); !slices.Equal(names, []string{"k6.hpg"}) {
		t.Errorf("the directory holds %v, want the graph only", names)
	}
}

// The superstep log is matched to the run it came from; a log that does
// not agree gives no frontier edges.
func TestStepLog(t *testing.T) {
	var printed []string
	s, logf := newStepLog("x.svg", func(l string) { printed = append(printed, l) })
	for _, l := range []string{
		"superstep 0: push, 5 active after, 40 frontier edges, 1ms",
		"superstep 1: pull, 0 active after, 0 frontier edges, 2ms",
		"superstep 0: push, 7 active after, 60 frontier edges, 1ms", // the next run
		"something else",
		"superstep 1: pull, 3 active after, 25 frontier edges, 3ms",
	} {
		logf(l)
	}
	if len(printed) != 5 {
		t.Errorf("%d lines passed on, want 5", len(printed))
	}
	r := runStats{Active: []int{7, 3}, Directions: []vertexprog.Direction{vertexprog.Push, vertexprog.Pull},
		StepTimes: []time.Duration{time.Millisecond, 3 * time.Millisecond}}
	if got := s.frontierEdges(r); !slices.Equal(got, []int64{60, 25}) {
		t.Errorf("frontier edges %v, want [60 25]", got)
	}
	r.Active[1] = 4
	if got := s.frontierEdges(r); got != nil {
		t.Errorf("a log that disagrees gave %v", got)
	}
	if got := s.frontierEdges(runStats{}); got != nil {
		t.Errorf("no steps gave %v", got)
	}
	if s, logf := newStepLog("", nil); s != nil || logf != nil {
		t.Error("a step log without --plot")
	}
	var none *stepLog
	if none.frontierEdges(r) != nil {
		t.Error("a nil step log gave edges")
	}
}
