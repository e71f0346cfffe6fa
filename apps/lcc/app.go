package lcc

import (
	"fmt"
	"io"

	"github.com/hpgraph/hpgraph/apps"
	"github.com/hpgraph/hpgraph/apps/reference"
	"github.com/hpgraph/hpgraph/vertexprog"
)

// App is lcc for the front ends (apps/registry).
var App = &apps.App{
	Name:      "lcc",
	About:     "local clustering coefficient, LDBC Graphalytics' definition (neighbours: in ∪ out; directed arcs or undirected edges among them)",
	Columns:   []string{"lcc"},
	LDBC:      apps.LDBC{Output: true},
	Program:   &Program{},
	Tolerance: tolerance,
	Traffic: func(in apps.TrafficIn) apps.Traffic {
		return apps.Traffic{Bytes: 8*in.NNZ + 8*in.N,
			Model: "4*nnz + 4*nnz + 8*n: the symmetric matrix's column indices read once, each vertex's neighbourhood list read at least once, each vertex's float64 coefficient written once"}
	},
	Answer: answer,
}

func answer(g *vertexprog.Graph, req apps.Request, opt vertexprog.Options) (*apps.Result, error) {
	d := g.Dataset()
	r, err := Run(g, opt)
	if err != nil {
		return nil, err
	}
	sum, positive := 0.0, 0
	for _, x := range r.LCC {
		sum += x
		if x > 0 {
			positive++
		}
	}
	mean := 0.0
	if d.N > 0 {
		mean = sum / float64(d.N)
	}
	return &apps.Result{
		Stats:   apps.StatsOf(r.Run),
		Summary: fmt.Sprintf("mean lcc %.6g over %d vertices; %d with lcc > 0", mean, d.N, positive),
		Fields:  map[string]any{"mean": mean, "positive": positive},
		Rows:    func(v int32, c []apps.Cell) { c[0] = apps.FloatCell(r.LCC[v]) },
		WriteText: func(w io.Writer) error {
			return apps.WriteVertexLines(w, g, func(b []byte, v int32, id int64) []byte {
				return apps.AppendFloat(b, id, r.LCC[v], 'g', 12)
			})
		},
		WriteLDBC: func(w io.Writer) error { return apps.WriteLDBCFloats(w, g, r.LCC) },
		Check: func() error {
			return apps.CompareFloats("lcc", d, reference.LCC(d), func(v int) float64 { return r.LCC[v] }, tolerance(&req.Params))
		},
	}, nil
}

// tolerance: the app divides arcs by d(d-1), the reference (on an
// undirected graph) edges by d(d-1)/2: the last bit may differ.
func tolerance(*apps.Params) float64 { return 1e-12 }
