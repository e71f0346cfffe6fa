package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/hpgraph/hpgraph/datasets"
	"github.com/spf13/pflag"
)

// LDBC Graphalytics in run: a graph's .properties gives the parameters
// the user does not (sources, PageRank's damping and iterations), and
// --out-format ldbc writes the "id value" lines of LDBC's expected
// outputs, so that they compare with LDBC's validation.

const (
	outHPGraph = "hpgraph"
	outLDBC    = "ldbc"
)

// ldbcOutputs are the algorithms with an LDBC output: BFS, SSSP,
// PageRank, WCC, LCC and CDLP.
var ldbcOutputs = []string{"bfs", "sssp", "pagerank", "pagerank-ldbc", "cc", "lcc", "cdlp"}

// prepareLDBC checks --out-format for alg, and fills the parameters that
// the flags leave unset from the .properties of an LDBC graph at path.
func prepareLDBC(fs *pflag.FlagSet, path, alg string, lf *loadFlags, p *params, srcText *string) error {
	switch p.outFormat {
	case "", outHPGraph:
	case outLDBC:
		if !slices.Contains(ldbcOutputs, alg) {
			return fmt.Errorf("--out-format ldbc: %s has no LDBC output; %s have", alg, strings.Join(ldbcOutputs, ", "))
		}
	default:
		return fmt.Errorf("--out-format %q: want hpgraph or ldbc", p.outFormat)
	}
	props, err := ldbcProperties(path, lf)
	if err != nil || props == nil {
		return err
	}
	src := map[string]string{"bfs": "bfs.source-vertex", "sssp": "sssp.source-vertex"}[alg]
	if src != "" && *srcText == "" {
		if v, ok := props.Get(src); ok {
			if _, _, err := props.Int(src); err != nil {
				return err
			}
			*srcText = v
		}
	}
	if alg == "cdlp" {
		return ldbcIterations(fs, props, "cdlp.max-iterations", p)
	}
	if alg != "pagerank-ldbc" {
		return nil
	}
	if d, ok, err := props.Float("pr.damping-factor"); err != nil {
		return err
	} else if ok && !fs.Changed("damping") {
		p.damping = d
	}
	return ldbcIterations(fs, props, "pr.num-iterations", p)
}

// ldbcIterations sets p.iterations from the property key unless
// --iterations was given.
func ldbcIterations(fs *pflag.FlagSet, props *datasets.LDBCProperties, key string, p *params) error {
	if n, ok, err := props.Int(key); err != nil {
		return err
	} else if ok && !fs.Changed("iterations") {
		if n < 0 || n > math.MaxInt32 {
			return fmt.Errorf("%s: %s = %d: expected a number of iterations", props.File, props.Key(key), n)
		}
		p.iterations = int(n)
	}
	return nil
}

// ldbcProperties reads the .properties of the LDBC graph that path names,
// or returns nil when path names none or it has none.
func ldbcProperties(path string, lf *loadFlags) (*datasets.LDBCProperties, error) {
	in, err := lf.input()
	if err != nil || datasets.LDBCFormat(path, in) != datasets.FormatLDBC {
		return nil, err
	}
	files, err := datasets.FindLDBCFiles(path)
	if err != nil || files.Properties == "" {
		// (loading says what is missing)
		return nil, nil
	}
	return datasets.ReadLDBCProperties(files.Properties)
}

// output makes o write ldbc's lines when --out-format ldbc asks.
func (p params) output(o *outcome, ldbc func(w io.Writer) error) *outcome {
	if p.outFormat == outLDBC {
		o.write = ldbc
	}
	return o
}

// ldbcUnreachable is the depth LDBC's BFS output gives an unreachable
// vertex: the largest int64.
const ldbcUnreachable = math.MaxInt64

// ldbcBFS writes "id depth" lines, unreachable vertices at ldbcUnreachable.
func ldbcBFS(d *datasets.Graph, depth func() []int32) func(w io.Writer) error {
	return func(w io.Writer) error {
		dep := depth()
		if dep == nil {
			return errors.New("bfs: the depths were left on the device (a summary-only query)")
		}
		return writeLines(w, d.N, func(bw *bufio.Writer, v int32) {
			x := int64(dep[v])
			if x < 0 {
				x = ldbcUnreachable
			}
			fmt.Fprintf(bw, "%d %d\n", d.OriginalID(v), x)
		})
	}
}

// ldbcSSSP writes "id distance" lines, unreachable vertices at Infinity.
// A distance is a float32 sum; it is written as the shortest decimal that
// reads back as it, in LDBC's 16 significant digits.
func ldbcSSSP(d *datasets.Graph, dist []float32) func(w io.Writer) error {
	return func(w io.Writer) error {
		return writeLines(w, d.N, func(bw *bufio.Writer, v int32) {
			x := float64(dist[v])
			if math.IsInf(x, 1) {
				fmt.Fprintf(bw, "%d Infinity\n", d.OriginalID(v))
				return
			}
			x, _ = strconv.ParseFloat(strconv.FormatFloat(x, 'g', -1, 32), 64)
			fmt.Fprintf(bw, "%d %.15e\n", d.OriginalID(v), x)
		})
	}
}

// ldbcValues writes "id value" lines in LDBC's 16 significant digits
// (PageRank, LCC).
func ldbcValues(d *datasets.Graph, x []float64) func(w io.Writer) error {
	return func(w io.Writer) error {
		return writeLines(w, d.N, func(bw *bufio.Writer, v int32) {
			fmt.Fprintf(bw, "%d %.15e\n", d.OriginalID(v), x[v])
		})
	}
}

// ldbcLabels writes "id label" lines (WCC), labels as componentIDs.
func ldbcLabels(d *datasets.Graph, label []int32) func(w io.Writer) error {
	return func(w io.Writer) error {
		first := componentIDs(d, label)
		return writeLines(w, d.N, func(bw *bufio.Writer, v int32) {
			fmt.Fprintf(bw, "%d %d\n", d.OriginalID(v), first[label[v]])
		})
	}
}

// componentIDs gives every component label (a vertex of the component)
// the component's smallest id in the file, whatever order the vertices
// were numbered in (--relabel): LDBC's WCC labels.
func componentIDs(d *datasets.Graph, label []int32) []int64 {
	first := make([]int64, d.N)
	for v := range first {
		first[v] = math.MaxInt64
	}
	for v, l := range label {
		first[l] = min(first[l], d.OriginalID(int32(v)))
	}
	return first
}
