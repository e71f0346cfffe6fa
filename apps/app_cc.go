package apps

import (
	"bufio"
	"fmt"
	"io"

	"github.com/hpgraph/hpgraph/apps/reference"
	"github.com/hpgraph/hpgraph/vertexprog"
)

var appCC = &App{
	Name:    "cc",
	Aliases: []string{"wcc"}, // LDBC Graphalytics' name
	About:   "weakly connected components, labelled by their smallest vertex (Afforest on the GPU; --direction push or pull runs label propagation)",
	Columns: []string{"component"},
	LDBC:    LDBC{Output: true},
	Program: CCProgram{},
	Traffic: traversalTraffic,
	run:     runCC,
}

func runCC(g *vertexprog.Graph, req Request, opt vertexprog.Options) (*Result, error) {
	d := g.Dataset()
	r, err := ConnectedComponents(g, opt)
	if err != nil {
		return nil, err
	}
	// (Labels are vertices: a slice, where a map cost ~250 ms on kron21.)
	sizes := make([]int32, d.N)
	largest := int32(0)
	for _, l := range r.Label {
		sizes[l]++
		largest = max(largest, sizes[l])
	}
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
		return writeVertexLines(w, d, func(bw *bufio.Writer, v int32) {
			fmt.Fprintf(bw, "%d %d\n", d.OriginalID(v), first[r.Label[v]])
		})
	}
	return &Result{
		Stats:     statsOf(r.Run),
		Summary:   fmt.Sprintf("%d components, largest %d vertices", r.Components, largest),
		Fields:    map[string]any{"components": r.Components, "largest": largest},
		Rows:      func(v int32, c []Cell) { c[0] = intCell(smallest()[r.Label[v]]) },
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
