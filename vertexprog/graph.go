package vertexprog

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/hyb"
	"github.com/hpgraph/hpgraph/internal/par"
)

// Graph is a loaded graph as programs and backends see it. It builds the
// derived forms PREPROCESS needs (in-adjacency, the undirected view, HYB
// matrices) on first use and keeps them, so repeated runs on one graph pay
// for them once. Safe for concurrent use.
type Graph struct {
	g *datasets.Graph

	// in and sym are built on first use; read without the lock (every
	// InNeighbors and Neighbors call reads them: a lock there serialized
	// a Prepare that ran on all cores).
	in, sym atomic.Pointer[datasets.Graph]

	mu   sync.Mutex
	hybs map[matrixKey]*Matrix
}

// Matrix is a HYB matrix with the per-row data every backend needs.
type Matrix struct {
	*hyb.Matrix
	// Degree[r] is the length of row r.
	Degree []int32
	// Bounds splits the rows into parts of about equal work (ELL slots plus
	// COO entries), partsPerWorker per worker, which workers claim
	// dynamically: per-row work is not always proportional to nonzeros
	// (masks, early exit, triangle counting's intersections).
	Bounds []int
	nnz    int64
}

// NNZ is the number of stored entries, counted once when the matrix was
// built (hyb's count scans every ELL slot: 25–34 ms on kron21, which the
// superstep loop used to pay on every run).
func (m *Matrix) NNZ() int64 { return m.nnz }

const (
	partsPerWorker = 16
	minPartRows    = 1024
)

type matrixKey struct {
	rows matrixRows
	opt  hyb.Options
}

// matrixRows names which adjacency a matrix's rows list.
type matrixRows int

const (
	rowsOut matrixRows = iota // row u: heads of u's out-arcs
	rowsIn                    // row v: tails of v's in-arcs
	rowsAll                   // row v: neighbours either way
)

// NewGraph wraps a cleaned graph.
func NewGraph(g *datasets.Graph) *Graph {
	return &Graph{g: g, hybs: map[matrixKey]*Matrix{}}
}

// Dataset returns the underlying CSR graph (out-adjacency).
func (g *Graph) Dataset() *datasets.Graph { return g.g }

// N is the number of vertices.
func (g *Graph) N() int { return g.g.N }

// Directed reports whether arcs have a direction.
func (g *Graph) Directed() bool { return g.g.Directed }

// Weighted reports whether arcs carry weights.
func (g *Graph) Weighted() bool { return g.g.W != nil }

// Edges is the edge count used for MTEPS (see datasets.Graph.Edges).
func (g *Graph) Edges() int64 { return g.g.Edges() }

// OutDegree is the number of arcs leaving v.
func (g *Graph) OutDegree(v int32) int { return g.g.Degree(v) }

// InDegree is the number of arcs entering v.
func (g *Graph) InDegree(v int32) int { return g.inAdj().Degree(v) }

// OutNeighbors returns the heads of v's out-arcs, sorted. Read only.
func (g *Graph) OutNeighbors(v int32) []int32 { return g.g.Neighbors(v) }

// InNeighbors returns the tails of v's in-arcs, sorted. Read only.
func (g *Graph) InNeighbors(v int32) []int32 { return g.inAdj().Neighbors(v) }

// Neighbors returns v's neighbours in either direction, sorted, each once.
// Read only.
func (g *Graph) Neighbors(v int32) []int32 { return g.symAdj().Neighbors(v) }

// OutWeights returns the weights of v's out-arcs (aligned with
// OutNeighbors), or nil for an unweighted graph.
func (g *Graph) OutWeights(v int32) []float32 { return g.g.Weights(v) }

func (g *Graph) inAdj() *datasets.Graph {
	return g.derived(&g.in, func() *datasets.Graph { return g.g.Transpose() })
}

func (g *Graph) symAdj() *datasets.Graph {
	return g.derived(&g.sym, func() *datasets.Graph { return symmetrize(g.g) })
}

// derived returns *p, building it once.
func (g *Graph) derived(p *atomic.Pointer[datasets.Graph], build func() *datasets.Graph) *datasets.Graph {
	if d := p.Load(); d != nil {
		return d
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if d := p.Load(); d != nil {
		return d
	}
	d := build()
	p.Store(d)
	return d
}

// symmetrize returns the undirected view: every arc in both directions,
// parallel arcs merged (the lighter weight kept), self loops kept.
func symmetrize(d *datasets.Graph) *datasets.Graph {
	if !d.Directed {
		return d
	}
	el := d.EdgeList()
	el.Directed = false
	s, err := datasets.Build(el, datasets.Options{KeepSelfLoops: true})
	if err != nil {
		// A valid CSR always rebuilds; reaching here is a bug.
		panic(fmt.Sprintf("vertexprog: symmetrizing a valid graph failed: %v", err))
	}
	return s
}

// gatherRows says which adjacency the rows of the pull matrix list for an
// edge type, and pushRows the rows of its transpose (the push matrix).
func gatherRows(e EdgeType) matrixRows {
	switch e {
	case InEdges:
		return rowsIn
	case OutEdges:
		return rowsOut
	}
	return rowsAll
}

func pushRows(e EdgeType) matrixRows {
	switch e {
	case InEdges:
		return rowsOut
	case OutEdges:
		return rowsIn
	}
	return rowsAll
}

func (g *Graph) adjacency(r matrixRows) *datasets.Graph {
	switch r {
	case rowsIn:
		return g.inAdj()
	case rowsAll:
		return g.symAdj()
	}
	return g.g
}

// PullMatrix returns the HYB matrix whose row v lists the neighbours v
// gathers from along e: the y = Gᵀx of a pull superstep. Its ELL and COO
// arrays may not be filled yet (hyb.Matrix.Materialize).
func (g *Graph) PullMatrix(e EdgeType, opt hyb.Options) (*Matrix, error) {
	return g.matrix(gatherRows(e), opt)
}

// PushMatrix returns the transpose of PullMatrix: row u lists the vertices
// that gather from u, the rows a push superstep scatters along.
func (g *Graph) PushMatrix(e EdgeType, opt hyb.Options) (*Matrix, error) {
	return g.matrix(pushRows(e), opt)
}

func (g *Graph) matrix(r matrixRows, opt hyb.Options) (*Matrix, error) {
	adj := g.adjacency(r)
	// Undirected graphs have one adjacency; share its matrix.
	if !g.g.Directed {
		r = rowsOut
	}
	key := matrixKey{r, opt}
	g.mu.Lock()
	m := g.hybs[key]
	g.mu.Unlock()
	if m != nil {
		return m, nil
	}
	// Described only: the CPU engine materializes it (a no-op for its
	// K = 0, which shares the CSR), a device backend builds it on the
	// device from the CSR.
	h, err := hyb.Describe(adj.N, adj.RowPtr, adj.Col, adj.W, opt)
	if err != nil {
		return nil, err
	}
	m = &Matrix{Matrix: h, Degree: make([]int32, adj.N), nnz: adj.NNZ()}
	for v := range m.Degree {
		m.Degree[v] = int32(adj.RowPtr[v+1] - adj.RowPtr[v])
	}
	k := int64(h.K)
	parts := 1
	if h.N >= minPartRows {
		parts = min(par.Workers()*partsPerWorker, h.N/minPartRows)
	}
	m.Bounds = par.Split(h.N, parts, func(i int) int64 { return int64(i)*k + h.CooPtr[i] })
	g.mu.Lock()
	g.hybs[key] = m
	g.mu.Unlock()
	return m, nil
}

// ForVertices calls fn on contiguous ranges of vertices, [lo, hi), that
// cover [0, N) with about equal numbers of out-arcs each, concurrently on
// all cores, and returns when every call has. For a program's Prepare
// over a large graph.
func (g *Graph) ForVertices(fn func(lo, hi int32)) {
	d := g.g
	parts := 1
	if d.N >= minPartRows {
		parts = min(par.Workers()*4, d.N/minPartRows)
	}
	b := par.Split(d.N, parts, func(i int) int64 { return d.RowPtr[i] + int64(i) })
	par.Parts(b, func(_, lo, hi int) { fn(int32(lo), int32(hi)) })
}
