package cdlp

import (
	"errors"
	"fmt"
	"io"

	"github.com/hpgraph/hpgraph/apps"
	"github.com/hpgraph/hpgraph/apps/reference"
	"github.com/hpgraph/hpgraph/internal/par"
	"github.com/hpgraph/hpgraph/vertexprog"
)

// App is cdlp for the front ends (apps/registry).
var App = &apps.App{
	Name:    "cdlp",
	About:   "community detection by label propagation, LDBC Graphalytics' definition, --iterations iterations (in- and out-neighbours counted separately)",
	Params:  []apps.AnyParam{apps.ParamIterations},
	Columns: []string{"community"},
	LDBC:    apps.LDBC{Output: true, Params: []apps.LDBCParam{{Param: "iterations", Key: "cdlp.max-iterations"}}},
	Program: &Program{},
	Traffic: func(in apps.TrafficIn) apps.Traffic {
		return apps.Traffic{Bytes: int64(in.Iterations) * (4*in.NNZ + 16*in.N),
			Model: "iterations*(4*nnz + 8*n + 8*n): per iteration each stored nonzero's int32 column index, each vertex's int64 label read and written (the gathered labels' sort is on-chip scratch)"}
	},
	Answer: answer,
}

func answer(g *vertexprog.Graph, req apps.Request, opt vertexprog.Options) (*apps.Result, error) {
	d := g.Dataset()
	r, err := Run(g, req.Iterations, opt)
	if err != nil {
		return nil, err
	}
	// (each label is a vertex's id: counted by the vertices, on every
	// core; a map of the labels was ~200 ms of a one-shot kron21 answer)
	vertexLabels, err := labelVertices(g, r.Label)
	if err != nil {
		return nil, err
	}
	largest, communities := apps.LabelCounts(vertexLabels, nil)
	// (labels are original ids already: the LDBC and the hpgraph lines are one)
	lines := func(w io.Writer) error {
		return apps.WriteVertexLines(w, g, func(b []byte, v int32, id int64) []byte {
			return apps.AppendInts(b, id, int64(r.Label[v]))
		})
	}
	return &apps.Result{
		Stats:     apps.StatsOf(r.Run),
		Summary:   fmt.Sprintf("%d iterations; %d communities, largest %d vertices", r.Run.Iterations, communities, largest),
		Fields:    map[string]any{"iterations": r.Run.Iterations, "communities": communities, "largest": largest},
		Rows:      func(v int32, c []apps.Cell) { c[0] = apps.IntCell(r.Label[v]) },
		WriteText: lines,
		WriteLDBC: lines,
		Check: func() error {
			want := reference.CDLP(d, req.Iterations)
			for v := range want {
				if want[v] != r.Label[v] {
					return fmt.Errorf("vertex %d labelled %d, reference %d", d.OriginalID(int32(v)), r.Label[v], want[v])
				}
			}
			return nil
		},
	}, nil
}

// labelVertices maps CDLP's labels, original ids, to the vertices whose
// ids they are, on every core.
func labelVertices(g *vertexprog.Graph, labels []int64) ([]int32, error) {
	out := make([]int32, len(labels))
	bad := make([]error, par.Workers())
	par.Blocks(len(labels), func(w, lo, hi int) {
		for i, l := range labels[lo:hi] {
			v, err := g.Vertex(l)
			if err != nil {
				bad[w] = fmt.Errorf("cdlp: label %d of vertex %d: %w", l, g.Dataset().OriginalID(int32(lo+i)), err)
				return
			}
			out[lo+i] = v
		}
	})
	return out, errors.Join(bad...)
}
