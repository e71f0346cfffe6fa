package reference

import (
	"github.com/hpgraph/hpgraph/datasets"
)

// Triangles counts the triangles of the undirected simple graph underlying
// g (direction, duplicate arcs and self loops ignored). It returns the
// total and, per vertex, the number of triangles the vertex belongs to (so
// the per-vertex counts sum to three times the total).
//
// Each edge is oriented from the lower to the higher (degree, id) rank, and
// every triangle is counted once, at its lowest-ranked vertex v, as the
// intersection of the sorted higher-ranked neighbour lists of v and of its
// higher-ranked neighbour w. The neighbour lists are collected from the
// gonum iterators of the undirected view.
func Triangles(g *datasets.Graph) (total int64, perVertex []int64) {
	adj := simpleNeighbours(g)
	deg := func(v int32) int64 { return adj.off[v+1] - adj.off[v] }
	higher := func(v, w int32) bool { // rank(w) > rank(v)
		dv, dw := deg(v), deg(w)
		return dw > dv || (dw == dv && w > v)
	}

	// fwd holds, per vertex, its higher-ranked neighbours, still sorted by id.
	fwd := csr{off: make([]int64, g.N+1)}
	for v := range int32(g.N) {
		for _, w := range adj.row(v) {
			if higher(v, w) {
				fwd.col = append(fwd.col, w)
			}
		}
		fwd.off[v+1] = int64(len(fwd.col))
	}

	perVertex = make([]int64, g.N)
	for v := range int32(g.N) {
		fv := fwd.row(v)
		for _, w := range fv {
			fw := fwd.row(w)
			// Merge-intersect the two id-sorted lists.
			i, j := 0, 0
			for i < len(fv) && j < len(fw) {
				switch {
				case fv[i] < fw[j]:
					i++
				case fv[i] > fw[j]:
					j++
				default:
					x := fv[i]
					total++
					perVertex[v]++
					perVertex[w]++
					perVertex[x]++
					i++
					j++
				}
			}
		}
	}
	return total, perVertex
}

// csr is a compact adjacency list: the neighbours of v are col[off[v]:off[v+1]].
type csr struct {
	off []int64
	col []int32
}

func (a csr) row(v int32) []int32 { return a.col[a.off[v]:a.off[v+1]] }

// simpleNeighbours lists, for every vertex, its neighbours in the
// undirected simple graph, sorted by id: the undirected view's iterator
// already yields each neighbour once in id order; self loops are dropped.
func simpleNeighbours(g *datasets.Graph) csr {
	view := NewUndirected(g)
	adj := csr{off: make([]int64, g.N+1), col: make([]int32, 0, g.NNZ())}
	for v := range int32(g.N) {
		for it := view.From(int64(v)); it.Next(); {
			if w := int32(it.Node().ID()); w != v {
				adj.col = append(adj.col, w)
			}
		}
		adj.off[v+1] = int64(len(adj.col))
	}
	return adj
}
