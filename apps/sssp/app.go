package sssp

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/hpgraph/hpgraph/apps"
	"github.com/hpgraph/hpgraph/apps/reference"
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
	opt.SummaryOnly = req.Need == apps.NeedSummary
	r, err := RunDelta(g, req.Source, delta, opt)
	if err != nil {
		return nil, err
	}
	reached, far := r.Reached()
	src := d.OriginalID(req.Source)
	res := &apps.Result{
		Stats:   apps.StatsOf(r.Run),
		Summary: fmt.Sprintf("source %d: reached %d vertices, farthest at %g", src, reached, far),
		Fields:  map[string]any{"source": src, "reached": reached, "farthest": float64(far)},
	}
	if r.Dist == nil {
		fail := func(io.Writer) error { return errDistOnDevice }
		res.WriteText, res.WriteLDBC, res.Check = fail, fail, func() error { return errDistOnDevice }
		return res, nil
	}
	req.Scratch.Keep(nil, r.Dist)
	res.Rows = func(v int32, c []apps.Cell) { c[0] = apps.FloatCell(float64(r.Dist[v])) }
	res.WriteText = func(w io.Writer) error {
		return apps.WriteVertexLines(w, g, func(b []byte, v int32, id int64) []byte {
			if x := float64(r.Dist[v]); !math.IsInf(x, 1) {
				return apps.AppendFloat(b, id, x, 'g', -1)
			}
			return append(strconv.AppendInt(b, id, 10), " Infinity\n"...)
		})
	}
	res.WriteLDBC = func(w io.Writer) error { return writeLDBCDistances(w, g, r.Dist) }
	res.Check = func() error {
		want, err := reference.SSSP(d, req.Source)
		if err != nil {
			return err
		}
		return apps.CompareFloats("distance", d, want, func(v int) float64 { return float64(r.Dist[v]) }, tolerance(&req.Params))
	}
	return res, nil
}

// errDistOnDevice is what a summary-only SSSP answers when asked for
// more.
var errDistOnDevice = errors.New("sssp: the distances were left on the device (a summary-only query)")

// tolerance: float32 sums of integer weights are exact; allow rounding
// for fractional weights.
func tolerance(*apps.Params) float64 { return 1e-6 }

// writeLDBCDistances writes "id distance" lines, unreachable vertices at
// Infinity. A distance is a float32 sum; it is written as the shortest
// decimal that reads back as it, in LDBC's 16 significant digits.
func writeLDBCDistances(w io.Writer, g *vertexprog.Graph, dist []float32) error {
	return apps.WriteVertexLines(w, g, func(b []byte, v int32, id int64) []byte {
		x := float64(dist[v])
		if math.IsInf(x, 1) {
			return append(strconv.AppendInt(b, id, 10), " Infinity\n"...)
		}
		x, _ = strconv.ParseFloat(strconv.FormatFloat(x, 'g', -1, 32), 64)
		return apps.AppendFloat(b, id, x, 'e', 15)
	})
}
