// Package exref holds what the examples' tests share: the test graphs
// (unweighted and with random integer weights) and an out-arc walk that
// shares no code with the engine, for brute-force references.
package exref

import (
	"testing"

	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/vertexprog"
	"github.com/hpgraph/hpgraph/vertexprog/vptest"
)

// Graph is a named test graph.
type Graph struct {
	Name string
	G    *vertexprog.Graph
}

// Graphs are vptest's graphs, unweighted and weighted.
func Graphs(t testing.TB) []Graph {
	var out []Graph
	for _, w := range []struct {
		name string
		opt  datasets.Options
	}{{"", datasets.Options{}}, {"/weighted", datasets.Options{Weights: datasets.WeightsRandom, WeightMin: 1, WeightMax: 9, Seed: 5}}} {
		for _, g := range vptest.Graphs(t, w.opt) {
			out = append(out, Graph{g.Name + w.name, vertexprog.NewGraph(g.G)})
		}
	}
	return out
}

// Arcs calls fn for every arc u -> v of g with its weight (1 when
// unweighted): the direction information flows in for InEdges programs.
func Arcs(g *vertexprog.Graph, fn func(u, v int32, w float32)) {
	d := g.Dataset()
	for u := int32(0); int(u) < d.N; u++ {
		ws := d.Weights(u)
		for i, v := range d.Neighbors(u) {
			w := float32(1)
			if ws != nil {
				w = ws[i]
			}
			fn(u, v, w)
		}
	}
}
