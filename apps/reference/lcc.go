package reference

import (
	"github.com/hpgraph/hpgraph/datasets"
)

// LCC returns every vertex's local clustering coefficient as LDBC
// Graphalytics defines it. The neighbourhood N(v) is the set of v's in-
// and out-neighbours, v excluded (the undirected view's From), and
// d = |N(v)|; a vertex with d < 2 has 0. On an undirected graph the
// coefficient is the number of edges among N(v) over d(d-1)/2; on a
// directed graph the number of arcs u -> w with u ≠ w both in N(v) over
// d(d-1).
//
// The count follows the definition literally: N(v) is marked, and the
// arcs of the directed view leaving each member are checked against the
// marks, each (u, w) pair once whatever duplicates the graph kept. An
// undirected graph stores every edge as two arcs, so the edges are half
// the arcs found.
func LCC(g *datasets.Graph) []float64 {
	und := NewUndirected(g)
	dir := NewDirected(g)
	lcc := make([]float64, g.N)
	// inN[w] == v+1 marks w in N(v); seen[w] == k marks w found already
	// from the k-th (v, u) pair.
	inN := make([]int64, g.N)
	seen := make([]int64, g.N)
	var k int64
	var members []int64
	for v := range int64(g.N) {
		members = members[:0]
		for it := und.From(v); it.Next(); {
			if w := it.Node().ID(); w != v && inN[w] != v+1 {
				inN[w] = v + 1
				members = append(members, w)
			}
		}
		d := float64(len(members))
		if len(members) < 2 {
			continue
		}
		arcs := 0
		for _, u := range members {
			k++
			for it := dir.From(u); it.Next(); {
				w := it.Node().ID()
				if w != u && inN[w] == v+1 && seen[w] != k {
					seen[w] = k
					arcs++
				}
			}
		}
		if g.Directed {
			lcc[v] = float64(arcs) / (d * (d - 1))
		} else {
			lcc[v] = float64(arcs/2) / (d * (d - 1) / 2)
		}
	}
	return lcc
}
