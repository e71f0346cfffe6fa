package cc

import (
	"bufio"
	"fmt"
	"io"
	"math"

	"github.com/hpgraph/hpgraph/apps"
	"github.com/hpgraph/hpgraph/apps/reference"
	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/vertexprog"
)

// App is cc for the front ends (apps/registry).
var App = &apps.App{
	Name:    "cc",
	Aliases: []string{"wcc"}, // LDBC Graphalytics' name
	About:   "weakly connected components, labelled by their smallest vertex (Afforest on the GPU; --direction push or pull runs label propagation)",
	Columns: []string{"component"},
	LDBC:    apps.LDBC{Output: true},
	Program: Program{},
	Traffic: apps.TraversalTraffic,
	Answer:  answer,
}

func answer(g *vertexprog.Graph, req apps.Request, opt vertexprog.Options) (*apps.Result, error) {
	d := g.Dataset()
	opt.Values = apps.Lent[int32](req.Scratch)
	r, err := Run(g, opt)
	if err != nil {
		return nil, err
	}
	req.Scratch.Keep(nil, r.Label)
	largest, _ := apps.LabelCounts(r.Label, req.Scratch)
	// A component's label in the outputs is its smallest id in the file
	// (LDBC's WCC labels), found when an output first asks.
	var first []int64
	smallest := func() []int64 {
		if first == nil {
			first = smallestIDs(d, r.Label)
		}
		return first
	}
	lines := func(w io.Writer) error {
		first := smallest()
		return apps.WriteVertexLines(w, g, func(bw *bufio.Writer, v int32, id int64) {
			fmt.Fprintf(bw, "%d %d\n", id, first[r.Label[v]])
		})
	}
	return &apps.Result{
		Stats:     apps.StatsOf(r.Run),
		Summary:   fmt.Sprintf("%d components, largest %d vertices", r.Components, largest),
		Fields:    map[string]any{"components": r.Components, "largest": largest},
		Rows:      func(v int32, c []apps.Cell) { c[0] = apps.IntCell(smallest()[r.Label[v]]) },
		WriteText: lines,
		WriteLDBC: lines,
		Check: func() error {
			want := reference.Components(d)
			for v := range want {
				if want[v] != r.Label[v] {
					return fmt.Errorf("vertex %d labelled %d, reference %d", d.OriginalID(int32(v)), d.OriginalID(r.Label[v]), d.OriginalID(want[v]))
				}
			}
			return nil
		},
	}, nil
}

// smallestIDs gives every component label (a vertex of the component) the
// component's smallest id in the file, whatever order the vertices were
// numbered in (--relabel): LDBC's WCC labels.
func smallestIDs(d *datasets.Graph, label []int32) []int64 {
	first := make([]int64, d.N)
	for v := range first {
		first[v] = math.MaxInt64
	}
	for v, l := range label {
		first[l] = min(first[l], d.OriginalID(int32(v)))
	}
	return first
}
