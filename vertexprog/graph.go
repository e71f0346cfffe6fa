package vertexprog

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/hyb"
	"github.com/hpgraph/hpgraph/internal/par"
	"github.com/hpgraph/hpgraph/vertexprog/driver"
)

// Graph is a loaded graph as programs and backends see it. It builds the
// derived forms PREPROCESS needs (in-adjacency, the undirected view, HYB
// matrices) on first use and keeps them, so repeated runs on one graph pay
// for them once. Safe for concurrent use.
type Graph struct {
	g *datasets.Graph

	// in and sym are built on first use; read without the lock (every
	// InNeighbors and Neighbors call reads them: a lock there serialized
	// a Prepare that ran on all cores). inOut (InOutEdges' rows) too.
	in, sym, inOut atomic.Pointer[datasets.Graph]

	mu    sync.Mutex
	hybs  map[matrixKey]*driver.Matrix
	memos map[any]*memo

	// ids finds a vertex by original id (Vertex); built on first use.
	idOnce sync.Once
	ids    idIndex

	// spare is finished CPU runs' scratch, for the next runs.
	spare spares

	// held, for a graph of which this process holds some rows only
	// (NewGraphRows), says which and the whole graph's row offsets.
	held *heldRows
}

// minPartRows: ForVertices splits no fewer rows than this a part.
const minPartRows = 1024

type matrixKey struct {
	rows matrixRows
	opt  hyb.Options
}

// matrixRows names which adjacency a matrix's rows list.
type matrixRows int

const (
	rowsOut   matrixRows = iota // row u: heads of u's out-arcs
	rowsIn                      // row v: tails of v's in-arcs
	rowsAll                     // row v: neighbours either way
	rowsInOut                   // row v: tails of v's in-arcs and heads of its out-arcs, merged
)

// NewGraph wraps a cleaned graph. A nil one gives a graph with no
// vertices, which Run and the apps refuse with ErrNilGraph.
//
// A vertex is an index in [0, N). The methods that take one and return
// its data (OutDegree, InDegree, OutNeighbors, InNeighbors, Neighbors,
// OutWeights) are a program's inner loop and index the graph's arrays as
// a slice is indexed: a vertex outside [0, N) panics there, as s[i] does
// for an i outside s. ID, the bridge to the input's ids, returns an error
// instead, as Vertex does for an id that no vertex has.
func NewGraph(g *datasets.Graph) *Graph {
	return &Graph{g: g, hybs: map[matrixKey]*driver.Matrix{}}
}

// isNil says whether g holds no graph (nil, or made from a nil one).
func (g *Graph) isNil() bool { return g == nil || g.g == nil }

// Dataset returns the underlying CSR graph (out-adjacency).
func (g *Graph) Dataset() *datasets.Graph {
	if g == nil {
		return nil
	}
	return g.g
}

// N is the number of vertices (0 for a nil graph).
func (g *Graph) N() int {
	if g.isNil() {
		return 0
	}
	return g.g.N
}

// Directed reports whether arcs have a direction (false for a nil graph).
func (g *Graph) Directed() bool { return !g.isNil() && g.g.Directed }

// Weighted reports whether arcs carry weights (false for a nil graph).
func (g *Graph) Weighted() bool { return !g.isNil() && g.g.W != nil }

// Edges is the edge count used for MTEPS (see datasets.Graph.Edges; 0
// for a nil graph).
func (g *Graph) Edges() int64 {
	if g.isNil() {
		return 0
	}
	if h := g.held; h != nil {
		return h.edges
	}
	return g.g.Edges()
}

// OutDegree is the number of arcs leaving v.
func (g *Graph) OutDegree(v int32) int {
	if h := g.held; h != nil {
		return int(h.rowPtr[v+1] - h.rowPtr[v])
	}
	return g.g.Degree(v)
}

// OutDegrees returns every vertex's out-degree, counted once per graph on
// every core; read only. The matrices of the out-rows (an undirected
// graph's only ones) share it as their Degree, so a PageRank, whose
// Prepare wants it too, makes the 4N bytes (fresh pages: 3 ms of a kron21
// first PREPROCESS) once.
func (g *Graph) OutDegrees() []int32 {
	return g.Memo(outDegreesKey{}, func() any { return rowLengths(g.rowPtr()) }).([]int32)
}

type outDegreesKey struct{}

// rowLengths is the length of each row of rowPtr, on every core.
func rowLengths(rowPtr []int64) []int32 {
	n := len(rowPtr) - 1
	deg := make([]int32, n)
	par.Blocks(n, func(_, lo, hi int) {
		for v := lo; v < hi; v++ {
			deg[v] = int32(rowPtr[v+1] - rowPtr[v])
		}
	})
	return deg
}

// InDegree is the number of arcs entering v.
func (g *Graph) InDegree(v int32) int {
	if g.held != nil {
		return g.OutDegree(v) // (an undirected graph's)
	}
	return g.inAdj().Degree(v)
}

// OutNeighbors returns the heads of v's out-arcs, sorted. Read only.
// (On a graph of some rows, NewGraphRows, another row panics, as these
// methods do for a v outside [0, N).)
func (g *Graph) OutNeighbors(v int32) []int32 { g.mustHold(v); return g.g.Neighbors(v) }

// InNeighbors returns the tails of v's in-arcs, sorted. Read only.
func (g *Graph) InNeighbors(v int32) []int32 { g.mustHold(v); return g.inAdj().Neighbors(v) }

// Neighbors returns v's neighbours in either direction, sorted, each once.
// Read only.
func (g *Graph) Neighbors(v int32) []int32 { g.mustHold(v); return g.symAdj().Neighbors(v) }

// OutWeights returns the weights of v's out-arcs (aligned with
// OutNeighbors), or nil for an unweighted graph.
func (g *Graph) OutWeights(v int32) []float32 { g.mustHold(v); return g.g.Weights(v) }

// ErrNilGraph is returned for a nil *Graph, or one made from a nil
// datasets.Graph.
var ErrNilGraph = errors.New("vertexprog: nil graph")

// ErrUnknownID is returned for an original id that no vertex has.
var ErrUnknownID = errors.New("no vertex has this id")

// ErrNoVertex is returned for a vertex index outside [0, N).
var ErrNoVertex = errors.New("no vertex has this index")

// Original ids. A vertex is an index in [0, N) (the engine's and the
// index-based APIs' int32), fixed only after loading has cleaned and
// perhaps renumbered the graph; its original id is the id the input gave
// it (the file's, or the gonum node's: datasets.Graph.IDs and IDBase),
// which loading keeps, whatever the order. ID and Vertex convert between
// the two, so a caller can speak in the input's ids and the engine in
// indices.

// ID returns the original id of vertex v: an error wrapping ErrNoVertex
// for a v outside [0, N) (ErrNilGraph for a nil graph). A loop over every
// vertex can read Dataset().OriginalID(v), which does not check v.
func (g *Graph) ID(v int32) (int64, error) {
	if g.isNil() {
		return 0, ErrNilGraph
	}
	if v < 0 || int(v) >= g.g.N {
		return 0, fmt.Errorf("vertex %d of a graph of %d vertices (0..%d): %w", v, g.g.N, g.g.N-1, ErrNoVertex)
	}
	return g.g.OriginalID(v), nil
}

// Vertex returns the vertex whose original id is id: an error wrapping
// ErrUnknownID when no vertex has it (ErrNilGraph for a nil graph). It
// costs a subtraction for contiguous ids, a binary search otherwise; the
// first call on a renumbered graph, whose ids are out of order, sorts an
// index of 4 bytes a vertex.
func (g *Graph) Vertex(id int64) (int32, error) {
	if g.isNil() {
		return -1, ErrNilGraph
	}
	d := g.g
	if d.IDs == nil {
		if id >= d.IDBase {
			if v := id - d.IDBase; v >= 0 && v < int64(d.N) { // v < 0: the difference overflowed
				return int32(v), nil
			}
		}
		return -1, g.unknownID(id)
	}
	g.idOnce.Do(func() { g.ids = newIDIndex(d.IDs) })
	if v, ok := g.ids.find(d.IDs, id); ok {
		return v, nil
	}
	return -1, g.unknownID(id)
}

func (g *Graph) unknownID(id int64) error {
	if g.g.Name != "" {
		return fmt.Errorf("id %d is not a vertex of %s: %w", id, g.g.Name, ErrUnknownID)
	}
	return fmt.Errorf("id %d is not a vertex of the graph: %w", id, ErrUnknownID)
}

// idIndex finds an id in a graph's IDs: by binary search when they are
// sorted (order nil), else through order, the vertices sorted by id.
type idIndex struct{ order []int32 }

func newIDIndex(ids []int64) idIndex {
	if slices.IsSorted(ids) {
		return idIndex{}
	}
	order := make([]int32, len(ids))
	for v := range order {
		order[v] = int32(v)
	}
	slices.SortFunc(order, func(a, b int32) int { return cmp.Compare(ids[a], ids[b]) })
	return idIndex{order: order}
}

func (x idIndex) find(ids []int64, id int64) (int32, bool) {
	if x.order == nil {
		i, ok := slices.BinarySearch(ids, id)
		return int32(i), ok
	}
	i, ok := slices.BinarySearchFunc(x.order, id, func(v int32, id int64) int { return cmp.Compare(ids[v], id) })
	if !ok {
		return -1, false
	}
	return x.order[i], true
}

// ByID returns values, one per vertex (a Result's X, an app's per-vertex
// array), as a map keyed by the vertices' original ids. It is an error
// (not a panic) for a nil graph or a slice whose length is not N, such as
// the nil X of a SummaryOnly run.
func ByID[T any](g *Graph, values []T) (map[int64]T, error) {
	if g.isNil() {
		return nil, ErrNilGraph
	}
	if len(values) != g.g.N {
		return nil, fmt.Errorf("vertexprog: ByID: %d values for %d vertices", len(values), g.g.N)
	}
	m := make(map[int64]T, len(values))
	for v, x := range values {
		m[g.g.OriginalID(int32(v))] = x
	}
	return m, nil
}

// FileOrder is Dataset().FileOrder(), made once per graph (a server
// lists every per-vertex answer in it): the vertices in the order of
// their original ids, nil when that is the vertices' own order.
func (g *Graph) FileOrder() []int32 {
	if g.isNil() {
		return nil
	}
	order, _ := g.Memo(fileOrderKey{}, func() any { return g.g.FileOrder() }).([]int32)
	return order
}

type fileOrderKey struct{}

// InAdjacencyBuilt reports whether the host holds a directed graph's
// in-adjacency (its transpose: a second copy of the graph), which
// InNeighbors, InDegree and a host run's in-matrix build on first use; a
// device run does not (the device transposes the graph). True for an
// undirected graph, its own transpose.
func (g *Graph) InAdjacencyBuilt() bool { return !g.g.Directed || g.in.Load() != nil }

// UndirectedViewBuilt reports whether the host holds a directed graph's
// undirected view (each vertex's out- and in-neighbours merged: the rows
// of Neighbors and of AllEdges' matrices), which Neighbors and a host
// run along AllEdges build on first use; a device run whose backend
// builds it on the device (driver.Symmetrizer) does not. True for an undirected
// graph, its own view.
func (g *Graph) UndirectedViewBuilt() bool { return !g.g.Directed || g.sym.Load() != nil }

func (g *Graph) inAdj() *datasets.Graph {
	return g.derived(&g.in, func() *datasets.Graph { return g.g.Transpose() })
}

func (g *Graph) symAdj() *datasets.Graph {
	// (from the transpose where a run built it already)
	return g.derived(&g.sym, func() *datasets.Graph { return g.g.Symmetrized(g.in.Load()) })
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

// gatherRows says which adjacency the rows of the pull matrix list for an
// edge type, and pushRows the rows of its transpose (the push matrix).
func gatherRows(e EdgeType) matrixRows {
	switch e {
	case InEdges:
		return rowsIn
	case OutEdges:
		return rowsOut
	case InOutEdges:
		return rowsInOut
	}
	return rowsAll
}

func pushRows(e EdgeType) matrixRows {
	switch e {
	case InEdges:
		return rowsOut
	case OutEdges:
		return rowsIn
	case InOutEdges:
		return rowsInOut // (symmetric: u is in v's row as often as v in u's)
	}
	return rowsAll
}

// builtAdjacency is adjacency(r) where it exists already, else nil.
func (g *Graph) builtAdjacency(r matrixRows) *datasets.Graph {
	if !g.g.Directed || r == rowsOut {
		return g.g
	}
	switch r {
	case rowsIn:
		return g.in.Load()
	case rowsAll:
		return g.sym.Load()
	case rowsInOut:
		return g.inOut.Load()
	}
	return nil
}

func (g *Graph) adjacency(r matrixRows) *datasets.Graph {
	switch r {
	case rowsIn:
		return g.inAdj()
	case rowsAll:
		return g.symAdj()
	case rowsInOut:
		return g.inOutAdj()
	}
	return g.g
}

// PullMatrix returns the HYB matrix whose row v lists the neighbours v
// gathers from along e: the y = Gᵀx of a pull superstep. Its ELL and COO
// arrays may not be filled yet (hyb.Matrix.Materialize).
func (g *Graph) PullMatrix(e EdgeType, opt hyb.Options) (*driver.Matrix, error) {
	return g.matrix(gatherRows(e), opt)
}

// PushMatrix returns the transpose of PullMatrix: row u lists the vertices
// that gather from u, the rows a push superstep scatters along.
func (g *Graph) PushMatrix(e EdgeType, opt hyb.Options) (*driver.Matrix, error) {
	return g.matrix(pushRows(e), opt)
}

func (g *Graph) matrix(r matrixRows, opt hyb.Options) (*driver.Matrix, error) {
	return g.matrixFor(r, opt, false, nil)
}

// matrixFor is matrix for a run that may go to a device (device): a
// directed graph's in-matrix, while its transpose is not built, is then
// described from the in-degrees alone (hyb.DescribeTranspose), for the
// device to transpose the out-CSR it uploads anyway; the host builds the
// transpose (inAdj) only if the matrix is materialized on the host (the
// CPU engine, a device that does not build it). Matrices are kept by rows
// and options, whoever asks: a host run given a transposed matrix
// materializes it, a device run given a host-described one uploads it.
func (g *Graph) matrixFor(r matrixRows, opt hyb.Options, device bool, symRows func() []int64) (*driver.Matrix, error) {
	if err := g.wholeRows("a whole-graph matrix"); err != nil {
		return nil, err
	}
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
	var h *hyb.Matrix
	var rowPtr []int64
	var err error
	var symRowPtr []int64
	if device && r == rowsAll && symRows != nil && g.sym.Load() == nil {
		symRowPtr = symRows()
	}
	if device && r == rowsIn && g.in.Load() == nil {
		d := g.g
		rowPtr = inRowPtr(d)
		h, err = hyb.DescribeTranspose(d.N, rowPtr, hyb.CSR{RowPtr: d.RowPtr, Col: d.Col, Val: d.W}, opt, func() hyb.CSR {
			in := g.inAdj()
			return hyb.CSR{RowPtr: in.RowPtr, Col: in.Col, Val: in.W}
		})
	} else if symRowPtr != nil {
		// The device built the undirected view (driver.Symmetrizer); the host
		// builds its own only if a host reader materializes the matrix.
		d := g.g
		rowPtr = symRowPtr
		h, err = hyb.DescribeSymmetrized(d.N, rowPtr, hyb.CSR{RowPtr: d.RowPtr, Col: d.Col, Val: d.W}, opt, func() hyb.CSR {
			s := g.symAdj()
			return hyb.CSR{RowPtr: s.RowPtr, Col: s.Col, Val: s.W}
		})
	} else {
		// Described only: the CPU engine materializes it (a no-op for
		// its K = 0, which shares the CSR), a device backend builds it on
		// the device from the CSR.
		adj := g.adjacency(r)
		rowPtr = adj.RowPtr
		h, err = hyb.Describe(adj.N, adj.RowPtr, adj.Col, adj.W, opt)
	}
	if err != nil {
		return nil, err
	}
	deg := g.OutDegrees()
	if r != rowsOut {
		deg = rowLengths(rowPtr)
	}
	m = driver.NewMatrix(h, deg)
	g.mu.Lock()
	g.hybs[key] = m
	g.mu.Unlock()
	return m, nil
}

// needsSymmetrized says whether a run of spec on a device would describe
// the directed graph's undirected view, not built on the host, as a new
// matrix of options opt: Run then asks a driver.Symmetrizer backend for it.
func (g *Graph) needsSymmetrized(spec Spec, opt hyb.Options) bool {
	if !g.g.Directed || g.sym.Load() != nil || gatherRows(spec.Edges) != rowsAll {
		return false
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.hybs[matrixKey{rowsAll, opt}] == nil
}

// inRowPtr is the row pointer of d's transpose (the prefix sums of its
// in-degrees), counted in one parallel pass over d's columns: n*8 bytes
// instead of the transpose's second copy of the graph.
func inRowPtr(d *datasets.Graph) []int64 { return colRowPtr(d.N, d.Col) }

// colRowPtr is the row pointer of the transpose of an n-column matrix
// whose entries' columns are col: each column's count, summed.
func colRowPtr(n int, col []int32) []int64 {
	rowPtr := make([]int64, n+1)
	cnt := rowPtr[1:]
	// The heads below hot are counted in each block's own array and
	// added up after: in a graph numbered by degree they are the hubs,
	// whose shared counters every core's atomics fought over (kron21d's
	// in-matrix: ~60 ms of a PageRank's first PREPROCESS on 16 cores).
	hot := min(n, inHot)
	local := make([][]int64, par.Workers())
	par.Blocks(len(col), func(w, lo, hi int) {
		own := make([]int64, hot)
		for _, c := range col[lo:hi] {
			if int(c) < hot {
				own[c]++
			} else {
				atomic.AddInt64(&cnt[c], 1)
			}
		}
		local[w] = own
	})
	par.Blocks(hot, func(_, lo, hi int) {
		for _, own := range local {
			if own != nil {
				for i := lo; i < hi; i++ {
					cnt[i] += own[i]
				}
			}
		}
	})
	par.PrefixSum(rowPtr)
	return rowPtr
}

// inHot is how many of the first heads inRowPtr counts per block (a
// variable for tests).
var inHot = 1 << 15

// memo is one value of Memo, built once.
type memo struct {
	once sync.Once
	v    any
}

// Memo returns the value that build made for key on g, calling build on
// the first use of key only (once, however many goroutines ask): data a
// program derives from the graph alone, such as an Orientation or the
// out-degrees, which later runs on g then share instead of building again
// (a server answering many queries on one graph built kron21's
// orientation, 140 ms and 200 MB, for every query). The value must not
// change once build returns. key must be comparable; a type of the
// caller's own keeps two packages' keys apart. Memos live as long as g.
func (g *Graph) Memo(key any, build func() any) any {
	g.mu.Lock()
	if g.memos == nil {
		g.memos = map[any]*memo{}
	}
	m := g.memos[key]
	if m == nil {
		m = &memo{}
		g.memos[key] = m
	}
	g.mu.Unlock()
	m.once.Do(func() { m.v = build() })
	return m.v
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
