package sssp

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/hpgraph/hpgraph/apps"
	"github.com/hpgraph/hpgraph/apps/reference"
	"github.com/hpgraph/hpgraph/internal/par"
	"github.com/hpgraph/hpgraph/vertexprog"
)

// App is sssp for the front ends (apps/registry).
var App = &apps.App{
	Name:      "sssp",
	About:     "single-source shortest paths from --src (Bellman-Ford as min-plus SpMV; unit weights when unweighted)",
	Params:    []apps.AnyParam{ParamDelta},
	Source:    true,
	Weighted:  true,
	Columns:   []string{"dist"},
	LDBC:      apps.LDBC{Output: true, Source: "sssp.source-vertex"},
	Program:   &Program{},
	Tolerance: tolerance,
	Traffic: func(in apps.TrafficIn) apps.Traffic {
		if in.Weighted {
			return apps.Traffic{Bytes: 8*in.NNZ + 4*in.N,
				Model: "4*nnz + 4*nnz + 4*n: each stored nonzero's int32 column index and float32 weight read once and each vertex's float32 distance written once, for the whole run"}
		}
		return apps.Traffic{Bytes: 4*in.NNZ + 4*in.N,
			Model: "4*nnz + 4*n: each stored nonzero's int32 column index read once and each vertex's float32 distance written once, for the whole run"}
	},
	Answer: answer,
}

func answer(g *vertexprog.Graph, req apps.Request, opt vertexprog.Options) (*apps.Result, error) {
	d := g.Dataset()
	delta := req.Delta
	if delta < 0 {
		delta = DefaultDelta(g)
	}
	opt.Values = apps.Lent[float32](req.Scratch)
	r, err := RunDelta(g, req.Source, delta, opt)
	if err != nil {
		return nil, err
	}
	req.Scratch.Keep(nil, r.Dist)
	reached, far := summarize(r.Dist)
	src := d.OriginalID(req.Source)
	return &apps.Result{
		Stats:   apps.StatsOf(r.Run),
		Summary: fmt.Sprintf("source %d: reached %d vertices, farthest at %g", src, reached, far),
		Fields:  map[string]any{"source": src, "reached": reached, "farthest": float64(far)},
		Rows:    func(v int32, c []apps.Cell) { c[0] = apps.FloatCell(float64(r.Dist[v])) },
		WriteText: func(w io.Writer) error {
			return apps.WriteVertexLines(w, g, func(bw *bufio.Writer, v int32, id int64) {
				fmt.Fprintf(bw, "%d %s\n", id, formatDist(float64(r.Dist[v])))
			})
		},
		WriteLDBC: func(w io.Writer) error { return writeLDBCDistances(w, g, r.Dist) },
		Check: func() error {
			want, err := reference.SSSP(d, req.Source)
			if err != nil {
				return err
			}
			return apps.CompareFloats("distance", d, want, func(v int) float64 { return float64(r.Dist[v]) }, tolerance(&req.Params))
		},
	}, nil
}

// tolerance: float32 sums of integer weights are exact; allow rounding
// for fractional weights.
func tolerance(*apps.Params) float64 { return 1e-6 }

// writeLDBCDistances writes "id distance" lines, unreachable vertices at
// Infinity. A distance is a float32 sum; it is written as the shortest
// decimal that reads back as it, in LDBC's 16 significant digits.
func writeLDBCDistances(w io.Writer, g *vertexprog.Graph, dist []float32) error {
	return apps.WriteVertexLines(w, g, func(bw *bufio.Writer, v int32, id int64) {
		x := float64(dist[v])
		if math.IsInf(x, 1) {
			fmt.Fprintf(bw, "%d Infinity\n", id)
			return
		}
		x, _ = strconv.ParseFloat(strconv.FormatFloat(x, 'g', -1, 32), 64)
		fmt.Fprintf(bw, "%d %.15e\n", id, x)
	})
}

// formatDist is a distance in --out's lines: Infinity where unreached.
func formatDist(x float64) string {
	if math.IsInf(x, 1) {
		return "Infinity"
	}
	return fmt.Sprintf("%g", x)
}

// summarize counts the reached vertices (finite distances) and the
// largest finite distance, on every core (one pass on one was ~2 ms of a
// served kron21 query). A distance is non-negative or +Inf (Prepare's
// weights), so its bits order as its value does, and the pass works on
// them without a branch: with branches on the value, which a kron21's
// unreached vertices, scattered, make the processor guess wrong half
// the time, it took 8.8 ms on two cores instead of 1.0-2.2
// (BenchmarkSummarize). Each worker counts in its own variables and
// stores its part once (counting into parts[w] at every vertex put the
// workers on the same cache lines: 10.3 ms). Any other value (NaN, a
// negative) takes the pass by value, whose answer max gives.
func summarize(dist []float32) (reached int, far float32) {
	const infBits = 0x7f800000
	type part struct {
		reached int
		far     uint32
	}
	parts := make([]part, par.Workers())
	par.Blocks(len(dist), func(w, lo, hi int) {
		var p part
		for _, x := range dist[lo:hi] {
			b := math.Float32bits(x)
			d := b ^ infBits
			finite := (d | -d) >> 31 // 1 unless x is +Inf
			p.reached += int(finite)
			p.far = max(p.far, b&-finite)
		}
		parts[w] = p
	})
	var top uint32
	for _, p := range parts {
		reached, top = reached+p.reached, max(top, p.far)
	}
	if top > infBits {
		return summarizeValues(dist)
	}
	return reached, math.Float32frombits(top)
}

// summarizeValues is summarize by value, for distances of any bits.
func summarizeValues(dist []float32) (reached int, far float32) {
	for _, x := range dist {
		if !math.IsInf(float64(x), 1) {
			reached++
			far = max(far, x)
		}
	}
	return reached, far
}
