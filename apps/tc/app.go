package tc

import (
	"fmt"
	"io"

	"github.com/hpgraph/hpgraph/apps"
	"github.com/hpgraph/hpgraph/apps/reference"
	"github.com/hpgraph/hpgraph/vertexprog"
)

// App is tc for the front ends (apps/registry).
var App = &apps.App{
	Name:        "tc",
	About:       "triangle counting on the undirected simple graph",
	Params:      []apps.AnyParam{ParamPerVertex},
	Columns:     []string{"triangles"},
	Program:     &Program{},
	RelabelPays: true,
	Traffic: func(in apps.TrafficIn) apps.Traffic {
		arcs := orientedArcs(in.Graph)
		return apps.Traffic{Bytes: 4*in.NNZ + 4*arcs + 8*in.N, OrientedArcs: arcs,
			Model: "4*nnz + 4*dag_arcs + 8*n: the symmetric matrix's column indices read once, each oriented (lower to higher rank) adjacency list read at least once, each vertex's int64 count written once"}
	},
	Answer: answer,
}

func answer(g *vertexprog.Graph, req apps.Request, opt vertexprog.Options) (*apps.Result, error) {
	d := g.Dataset()
	r, err := Run(g, req.PerVertex || req.Need == apps.NeedRows, opt)
	if err != nil {
		return nil, err
	}
	res := &apps.Result{
		Stats:   apps.StatsOf(r.Run),
		Summary: fmt.Sprintf("%d triangles", r.Total),
		Fields:  map[string]any{"triangles": r.Total},
		WriteText: func(w io.Writer) error {
			if r.PerVertex == nil {
				_, err := fmt.Fprintf(w, "%d\n", r.Total)
				return err
			}
			return apps.WriteVertexLines(w, g, func(b []byte, v int32, id int64) []byte {
				return apps.AppendInts(b, id, int64(r.PerVertex[v]))
			})
		},
		Check: func() error {
			total, per := reference.Triangles(d)
			if total != r.Total {
				return fmt.Errorf("%d triangles, reference %d", r.Total, total)
			}
			for v := range r.PerVertex {
				if r.PerVertex[v] != per[v] {
					return fmt.Errorf("vertex %d in %d triangles, reference %d", d.OriginalID(int32(v)), r.PerVertex[v], per[v])
				}
			}
			return nil
		},
	}
	if r.PerVertex != nil {
		res.Rows = func(v int32, c []apps.Cell) { c[0] = apps.IntCell(r.PerVertex[v]) }
	}
	return res, nil
}

// orientedArcs is the number of arcs of triangle counting's DAG: the
// undirected graph's non-loop edges.
func orientedArcs(g *vertexprog.Graph) int64 {
	var arcs int64
	for v := int32(0); v < int32(g.N()); v++ {
		for _, u := range g.Neighbors(v) {
			if u != v {
				arcs++
			}
		}
	}
	return arcs / 2
}
