package vertexprog

import (
	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/internal/par"
)

// inOutAdj is InOutEdges' adjacency: row v lists the tails of v's
// in-arcs and the heads of its out-arcs, merged in order, repeats kept
// (a neighbour joined both ways twice, a self loop twice). An undirected
// graph's CSR already lists every edge once at each end: it is its own.
func (g *Graph) inOutAdj() *datasets.Graph {
	if d := g.inOut.Load(); d != nil {
		return d
	}
	in := g.inAdj() // (before derived takes g.mu, which inAdj takes too)
	return g.derived(&g.inOut, func() *datasets.Graph { return mergeInOut(g.g, in) })
}

// mergeInOut merges the rows of out (a directed CSR) with those of in,
// its transpose, weights along.
func mergeInOut(out, in *datasets.Graph) *datasets.Graph {
	if !out.Directed {
		return out
	}
	n := out.N
	rowPtr := make([]int64, n+1)
	for v := range n {
		rowPtr[v+1] = rowPtr[v] + (out.RowPtr[v+1] - out.RowPtr[v]) + (in.RowPtr[v+1] - in.RowPtr[v])
	}
	col := make([]int32, rowPtr[n])
	var w []float32
	if out.W != nil {
		w = make([]float32, rowPtr[n])
	}
	par.Blocks(n, func(_, lo, hi int) {
		for v := lo; v < hi; v++ {
			i, ie := out.RowPtr[v], out.RowPtr[v+1]
			j, je := in.RowPtr[v], in.RowPtr[v+1]
			for k := rowPtr[v]; k < rowPtr[v+1]; k++ {
				// (ties take the out-arc first: any order of equal
				// columns is sorted)
				if j == je || (i < ie && out.Col[i] <= in.Col[j]) {
					col[k] = out.Col[i]
					if w != nil {
						w[k] = out.W[i]
					}
					i++
				} else {
					col[k] = in.Col[j]
					if w != nil {
						w[k] = in.W[j]
					}
					j++
				}
			}
		}
	})
	return &datasets.Graph{Name: out.Name + " (in+out)", N: n, RowPtr: rowPtr, Col: col, W: w,
		Directed: true, IDs: out.IDs, IDBase: out.IDBase, Stats: out.Stats}
}
