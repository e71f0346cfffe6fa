package reference

import (
	"gonum.org/v1/gonum/graph/topo"

	"github.com/hpgraph/hpgraph/datasets"
)

// Components labels the weakly connected components of g (arc direction
// ignored), found by gonum's topo.ConnectedComponents on the undirected
// view. Each vertex's label is the smallest vertex index in its component,
// the LDBC Graphalytics WCC convention.
func Components(g *datasets.Graph) []int32 {
	label := make([]int32, g.N)
	for _, cc := range topo.ConnectedComponents(NewUndirected(g)) {
		smallest := cc[0].ID()
		for _, n := range cc[1:] {
			smallest = min(smallest, n.ID())
		}
		for _, n := range cc {
			label[n.ID()] = int32(smallest)
		}
	}
	return label
}
