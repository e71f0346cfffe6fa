package reference

import (
	"gonum.org/v1/gonum/graph"

	"github.com/hpgraph/hpgraph/datasets"
)

// CDLP returns every vertex's label after the given number of iterations
// of LDBC Graphalytics' community detection by label propagation. Labels
// start as the vertices' original ids (datasets.Graph.OriginalID); in each
// iteration every vertex counts its neighbours' labels of the previous
// iteration and takes the most frequent, the smallest of those that tie;
// a vertex with no neighbour keeps its label. A directed graph's
// neighbours are the out-neighbours (From) and the in-neighbours (To)
// counted separately, so one joined both ways counts twice; an undirected
// graph's are its edges' other ends, each edge once. Parallel arcs and
// self loops count as stored.
//
// It follows the definition literally: a map of counts per vertex, every
// iteration. A negative number of iterations runs none.
func CDLP(g *datasets.Graph, iterations int) []int64 {
	// The directed view of an undirected graph lists every edge once at
	// each end: its From is the neighbours, To is not needed.
	view := NewDirected(g)
	label := make([]int64, g.N)
	for v := range label {
		label[v] = g.OriginalID(int32(v))
	}
	next := make([]int64, g.N)
	counts := map[int64]int{}
	count := func(it graph.Nodes) {
		for it.Next() {
			counts[label[it.Node().ID()]]++
		}
	}
	for range iterations {
		for v := range int64(g.N) {
			clear(counts)
			count(view.From(v))
			if g.Directed {
				count(view.To(v))
			}
			next[v] = label[v]
			best := 0
			for l, c := range counts {
				if c > best || (c == best && l < next[v]) {
					next[v], best = l, c
				}
			}
		}
		label, next = next, label
	}
	return label
}
