package apps

import (
	"bufio"
	"fmt"
	"io"
	"math"

	"github.com/hpgraph/hpgraph/apps/reference"
	"github.com/hpgraph/hpgraph/internal/par"
	"github.com/hpgraph/hpgraph/vertexprog"
)

var appSSSP = &App{
	Name:      "sssp",
	About:     "single-source shortest paths from --src (Bellman-Ford as min-plus SpMV; unit weights when unweighted)",
	Params:    []AnyParam{paramDelta},
	Source:    true,
	Weighted:  true,
	Columns:   []string{"dist"},
	LDBC:      LDBC{Output: true, Source: "sssp.source-vertex"},
	Program:   &SSSPProgram{},
	Tolerance: ssspTolerance,
	Traffic: func(in TrafficIn) Traffic {
		if in.Weighted {
			return Traffic{Bytes: 8*in.NNZ + 4*in.N,
				Model: "4*nnz + 4*nnz + 4*n: each stored nonzero's int32 column index and float32 weight read once and each vertex's float32 distance written once, for the whole run"}
		}
		return Traffic{Bytes: 4*in.NNZ + 4*in.N,
			Model: "4*nnz + 4*n: each stored nonzero's int32 column index read once and each vertex's float32 distance written once, for the whole run"}
	},
	run: runSSSP,
}

func runSSSP(g *vertexprog.Graph, req Request, opt vertexprog.Options) (*Result, error) {
	d := g.Dataset()
	delta := req.Delta
	if delta < 0 {
		delta = DefaultDelta(g)
	}
	opt.Values = lentValues[float32](req.Scratch)
	r, err := SSSPDelta(g, req.Source, delta, opt)
	if err != nil {
		return nil, err
	}
	req.Scratch.keep(nil, r.Dist)
	// (on every core: one pass on one was ~2 ms of a served kron21 query)
	parts := make([]struct {
		reached int
		far     float32
	}, par.Workers())
	par.Blocks(len(r.Dist), func(w, lo, hi int) {
		for _, x := range r.Dist[lo:hi] {
			if !math.IsInf(float64(x), 1) {
				parts[w].reached++
				parts[w].far = max(parts[w].far, x)
			}
		}
	})
	reached, far := 0, float32(0)
	for _, p := range parts {
		reached, far = reached+p.reached, max(far, p.far)
	}
	src := d.OriginalID(req.Source)
	return &Result{
		Stats:   statsOf(r.Run),
		Summary: fmt.Sprintf("source %d: reached %d vertices, farthest at %g", src, reached, far),
		Fields:  map[string]any{"source": src, "reached": reached, "farthest": float64(far)},
		Rows:    func(v int32, c []Cell) { c[0] = floatCell(float64(r.Dist[v])) },
		WriteText: func(w io.Writer) error {
			return writeVertexLines(w, g, func(bw *bufio.Writer, v int32, id int64) {
				fmt.Fprintf(bw, "%d %s\n", id, formatDist(float64(r.Dist[v])))
			})
		},
		WriteLDBC: func(w io.Writer) error { return writeLDBCDistances(w, g, r.Dist) },
		Check: func() error {
			want, err := reference.SSSP(d, req.Source)
			if err != nil {
				return err
			}
			return compareFloats("distance", d, want, func(v int) float64 { return float64(r.Dist[v]) }, ssspTolerance(&req.Params))
		},
	}, nil
}

// ssspTolerance: float32 sums of integer weights are exact; allow rounding
// for fractional weights.
func ssspTolerance(*Params) float64 { return 1e-6 }
