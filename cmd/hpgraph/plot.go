package main

import (
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/hpgraph/hpgraph/plots"
)

// --plot draws bench's results and run's supersteps (package plots) into
// an SVG, PNG or PDF file, by its extension, written as every output is
// (write.go).

const plotUsage = "draw the results into this image file: .svg, .png or .pdf"

// checkPlot fails before any work when --plot cannot be written: an
// unknown image format, or what checkOutput refuses.
func checkPlot(path string, inputs ...string) error {
	if path == "" {
		return nil
	}
	if _, err := plots.Format(path); err != nil {
		return fmt.Errorf("--plot %s: want a file name ending in .svg, .png or .pdf", path)
	}
	return checkOutput("--plot", path, inputs...)
}

// writePlot writes path through draw, in the format of its extension.
func writePlot(path string, draw func(w io.Writer, format string) error) error {
	format, err := plots.Format(path)
	if err != nil {
		return err
	}
	if err := writeText(path, false, func(w writer) error { return draw(w, format) }); err != nil {
		return fmt.Errorf("--plot %s: %w", path, err)
	}
	return nil
}

// writeBenchPlot draws bench's record: each result's median time and
// achieved GB/s, against its backend's copy bandwidth.
func writeBenchPlot(path string, rec *benchRecord) error {
	var rows []plots.BenchRow
	for _, r := range rec.Results {
		if r.Error != "" || r.Skipped != "" || r.Runs == 0 {
			continue
		}
		rows = append(rows, plots.BenchRow{Graph: r.Graph, Algo: r.Algorithm, Backend: r.Backend,
			MedianMS: r.MedianMS, GBs: r.GBs, CopyGBs: rec.Devices[r.Backend].CopyBandwidth / 1e9})
	}
	title := fmt.Sprintf("hpgraph bench, %s, %s: median of %d runs", rec.Host.Hostname, rec.Date, rec.Settings.Runs)
	return writePlot(path, func(w io.Writer, format string) error { return plots.Bench(w, format, title, rows) })
}

// stepLog keeps the superstep lines the engine logs (vertexprog.Options.Log)
// for run --plot: those of the latest run, which start again at superstep
// 0, passing each line on to the log it replaced (-v's).
type stepLog struct {
	lines []string
	next  func(string)
}

// newStepLog puts a stepLog in front of log when plotting, else returns
// nil and log.
func newStepLog(plot string, log func(string)) (*stepLog, func(string)) {
	if plot == "" {
		return nil, log
	}
	s := &stepLog{next: log}
	return s, s.log
}

func (s *stepLog) log(line string) {
	if strings.HasPrefix(line, "superstep 0:") {
		s.lines = s.lines[:0]
	}
	if strings.HasPrefix(line, "superstep ") {
		s.lines = append(s.lines, line)
	}
	if s.next != nil {
		s.next(line)
	}
}

// stepLine is the engine's superstep log line (vertexprog's loop).
var stepLine = regexp.MustCompile(`^superstep (\d+): (\w+), (\d+) active after, (-?\d+) frontier edges, `)

// frontierEdges are the frontier edges of each of the last run's steps
// from the log, or nil where the log does not tell them (no line per
// step, or lines that do not agree with the run's steps).
func (s *stepLog) frontierEdges(r runStats) []int64 {
	if s == nil || len(s.lines) != len(r.Active) {
		return nil
	}
	edges := make([]int64, len(s.lines))
	for i, l := range s.lines {
		m := stepLine.FindStringSubmatch(l)
		if m == nil || m[1] != strconv.Itoa(i) || m[2] != r.Directions[i].String() || m[3] != strconv.Itoa(r.Active[i]) {
			return nil
		}
		edges[i], _ = strconv.ParseInt(m[4], 10, 64)
	}
	return edges
}

// writeRunPlot draws the supersteps of run's last run (of the last query).
func writeRunPlot(path, algo, graph string, last *outcome, queries, runs int, log *stepLog) error {
	r := last.run
	edges := log.frontierEdges(r)
	steps := make([]plots.Step, len(r.Active))
	for i := range steps {
		steps[i] = plots.Step{Active: int64(r.Active[i]), FrontierEdges: -1}
		if i < len(r.Directions) {
			steps[i].Direction = r.Directions[i].String()
		}
		if i < len(r.StepTimes) {
			steps[i].Time = r.StepTimes[i]
		}
		if edges != nil {
			steps[i].FrontierEdges = edges[i]
		}
	}
	title := fmt.Sprintf("%s on %s, backend %s: %s; %d supersteps", algo, filepath.Base(graph), r.Backend, last.summary, len(steps))
	switch {
	case queries > 1:
		title += fmt.Sprintf(" (the last of %d queries)", queries)
	case runs > 1:
		title += fmt.Sprintf(" (the last of %d runs)", runs)
	}
	return writePlot(path, func(w io.Writer, format string) error { return plots.Supersteps(w, format, title, steps) })
}
