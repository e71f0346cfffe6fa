package reference

import (
	"fmt"

	"gonum.org/v1/gonum/graph/path"

	"github.com/hpgraph/hpgraph/datasets"
)

// SSSP returns the shortest-path distance from src to every vertex over
// out-edges, computed by gonum's path.DijkstraFrom: 0 at src, +Inf where
// src does not reach. An unweighted graph has weight 1 on every arc.
// Distances are float64 sums of the stored float32 weights, so they are
// exact for integer weights. A negative or NaN weight anywhere in the
// graph, or a source out of range, is an error (gonum would panic on a
// reachable negative weight and misbehave on NaN).
func SSSP(g *datasets.Graph, src int32) ([]float64, error) {
	if err := checkSource(g, src); err != nil {
		return nil, err
	}
	if err := checkWeights(g); err != nil {
		return nil, err
	}
	view := NewDirected(g)
	tree := path.DijkstraFrom(view.Node(int64(src)), view)
	dist := make([]float64, g.N)
	for v := range dist {
		dist[v] = tree.WeightTo(int64(v))
	}
	return dist, nil
}

// checkWeights rejects negative and NaN weights, naming the first such arc.
func checkWeights(g *datasets.Graph) error {
	if g.W == nil {
		return nil
	}
	for u := int32(0); int(u) < g.N; u++ {
		ws := g.Weights(u)
		for k, v := range g.Neighbors(u) {
			if !(ws[k] >= 0) { // false for NaN too
				return fmt.Errorf("sssp on %q: arc from %s to %s has weight %v; weights must be non-negative numbers",
					g.Name, vertexName(g, u), vertexName(g, v), ws[k])
			}
		}
	}
	return nil
}
