package vertexprog

import (
	"fmt"
	"sort"

	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/hyb"
	"github.com/hpgraph/hpgraph/internal/par"
	"github.com/hpgraph/hpgraph/vertexprog/driver"
)

// Partitioned runs (design card, section 8). A run may split the graph's
// vertices into P parts, contiguous ranges [Lo, Hi) balanced by the arcs
// the run gathers along and their rows (SplitRows): part p owns its vertices' values and state, holds
// the rows of the pull matrix that gather into them (its "part pull": an
// N-row matrix whose other rows are empty) and the transpose of those rows
// (its "part push": every vertex's arcs into the part), and runs each
// superstep's SPMV and APPLY on its own vertices only. Between supersteps
// the parts exchange what the next one reads — the values and frontier
// bits of the vertices that changed — and combine the counts and
// aggregators that decide it, so every part starts each superstep with
// the state a whole-graph run has, and the program does not know it was
// split. Parts run on the CPU (Options.Parts), on one device, or one a
// device (a backend that runs parts: driver.PartBackend).

// partAlign is the granule of part boundaries: a word of the frontier
// bitmasks, so that no two parts write one word.
const partAlign = 32

// Partition is the vertex ranges of a partitioned run: part p owns
// vertices [Bounds[p], Bounds[p+1]).
type Partition struct {
	Bounds []int32
}

// Parts is the number of parts.
func (pt Partition) Parts() int { return len(pt.Bounds) - 1 }

// Range returns part p's vertices, [lo, hi).
func (pt Partition) Range(p int) (lo, hi int32) { return pt.Bounds[p], pt.Bounds[p+1] }

// Owner returns the part that owns vertex v.
func (pt Partition) Owner(v int32) int {
	return sort.Search(pt.Parts(), func(p int) bool { return pt.Bounds[p+1] > v })
}

// rowCost is what a row costs a part beyond its entries, in entries: its
// APPLY, its frontier bit, its share of the accumulators and of the
// exchange. Measured on two H200s with kron26 renumbered by degree
// (docs/parts.md): at 1 the part of the hubs held 52% of the arcs, and
// took 2.0 ms of PageRank against the other's 4.5 and 800 ms of TC
// against 1,495; at 24 it held 85% and took 4.3 ms against 2.2 and 2,006
// against 283. Both cross near 62% to 70%, where 8 puts the split; more
// would also crowd the hubs' device memory.
const rowCost = 8

// SplitRows partitions n vertices, whose rows have the lengths rowPtr
// gives (a CSR's row offsets, n+1 of them), into parts ranges of about
// equal work, a row costing its entries plus rowCost, each boundary a
// multiple of 32 (a bitmask word). Parts may be empty where the graph has
// fewer words than parts.
func SplitRows(rowPtr []int64, parts int) (Partition, error) {
	n := len(rowPtr) - 1
	if n < 0 || parts < 1 {
		return Partition{}, fmt.Errorf("vertexprog: cannot split %d vertices into %d parts", n, parts)
	}
	if n > 1<<31-1 {
		return Partition{}, fmt.Errorf("vertexprog: %d vertices do not fit an int32 vertex index", n)
	}
	b := make([]int32, parts+1)
	b[parts] = int32(n)
	total := rowPtr[n] + rowCost*int64(n)
	for p := 1; p < parts; p++ {
		// The first aligned boundary whose work reaches p/parts of the
		// total, and never before the last one.
		want := total * int64(p) / int64(parts)
		words := (n + partAlign - 1) / partAlign
		w := sort.Search(words, func(w int) bool {
			v := w * partAlign
			return rowPtr[v]+rowCost*int64(v) >= want
		})
		v := min(int32(w*partAlign), int32(n))
		b[p] = max(v, b[p-1])
	}
	return Partition{Bounds: b}, nil
}

// partKey keys a part's matrices among a graph's memos.
type partKey struct {
	rows   matrixRows
	opt    hyb.Options
	lo, hi int32
}

// partMatrices are one part's pull and push matrices and its rows' CSR.
type partMatrices struct {
	pull, push *driver.Matrix
	err        error
}

// PartMatrices returns part [lo, hi)'s pull matrix for edge type e — the
// rows of PullMatrix(e) that gather into the part, every other row empty
// — and, unless pull is all the program needs (noPush), its push matrix:
// the transpose of that pull, every vertex's arcs into the part. Both are
// N×N. The pull shares the columns and weights of the graph's adjacency;
// the push is described as its transpose (hyb.DescribeTranspose), which a
// device builds from the pull's CSR and the host materializes on first
// use. Kept on the graph for later runs, as whole matrices are.
func (g *Graph) PartMatrices(e EdgeType, opt hyb.Options, lo, hi int32, noPush bool) (pull, push *driver.Matrix, err error) {
	n := g.N()
	if lo < 0 || hi < lo || int(hi) > n {
		return nil, nil, fmt.Errorf("vertexprog: part [%d, %d) is not a range of the graph's %d vertices", lo, hi, n)
	}
	r := gatherRows(e)
	if !g.g.Directed {
		r = rowsOut
	}
	pm := g.Memo(partKey{r, opt, lo, hi}, func() any {
		var pm partMatrices
		pm.pull, pm.err = partPull(g.adjacency(r), opt, lo, hi)
		return &pm
	}).(*partMatrices)
	if pm.err != nil || noPush {
		return pm.pull, nil, pm.err
	}
	pp := g.Memo(partKey{r, opt, ^lo, ^hi}, func() any {
		var pp partMatrices
		var sym *datasets.Graph
		if !g.g.Directed {
			sym = g.adjacency(r)
		}
		pp.push, pp.err = partPush(pm.pull, sym, lo, hi, opt)
		return &pp
	}).(*partMatrices)
	return pm.pull, pp.push, pp.err
}

// partPull is rows [lo, hi) of adj as an N-row matrix.
func partPull(adj *datasets.Graph, opt hyb.Options, lo, hi int32) (*driver.Matrix, error) {
	n := adj.N
	rowPtr := make([]int64, n+1)
	base := adj.RowPtr[lo]
	par.Blocks(n, func(_, a, b int) {
		for v := a; v < b; v++ {
			switch {
			case v < int(lo):
				rowPtr[v+1] = 0
			case v < int(hi):
				rowPtr[v+1] = adj.RowPtr[v+1] - base
			default:
				rowPtr[v+1] = adj.RowPtr[hi] - base
			}
		}
	})
	col := adj.Col[base:adj.RowPtr[hi]]
	var w []float32
	if adj.W != nil {
		w = adj.W[base:adj.RowPtr[hi]]
	}
	h, err := hyb.Describe(n, rowPtr, col, w, opt)
	if err != nil {
		return nil, err
	}
	return driver.NewMatrix(h, rowLengths(rowPtr)), nil
}

// partPush is the transpose of a part pull (rows [lo, hi)), described
// from its column counts. Where the graph is undirected, sym is its
// symmetric adjacency, and a vertex's count is the number of its own
// neighbours in [lo, hi): a parallel pass reading each row in order, where
// counting the pull's columns would add at random into N counters, one
// arc at a time (kron26: 10 s on the host, most of a partitioned run's
// PREPROCESS). Otherwise the columns are counted in parallel (colRowPtr).
func partPush(pull *driver.Matrix, sym *datasets.Graph, lo, hi int32, opt hyb.Options) (*driver.Matrix, error) {
	src := pull.Src
	n := pull.N
	var rowPtr []int64
	if sym != nil {
		rowPtr = make([]int64, n+1)
		cnt := rowPtr[1:]
		bounds := par.Split(n, 8*par.Workers(), func(u int) int64 { return sym.RowPtr[u] + int64(u) })
		par.Dynamic(bounds, func(a, b int) {
			for u := a; u < b; u++ {
				k := int64(0)
				for _, v := range sym.Col[sym.RowPtr[u]:sym.RowPtr[u+1]] {
					if v >= lo && v < hi {
						k++
					}
				}
				cnt[u] = k
			}
		})
		par.PrefixSum(rowPtr)
	} else {
		rowPtr = colRowPtr(n, src.Col)
	}
	h, err := hyb.DescribeTranspose(n, rowPtr, src, opt, func() hyb.CSR { return transposeCSR(n, rowPtr, src) })
	if err != nil {
		return nil, err
	}
	return driver.NewMatrix(h, rowLengths(rowPtr)), nil
}

// transposeCSR is the stable transpose of src (n×n) whose row offsets are
// rowPtr: each row lists its entries' rows in increasing order.
func transposeCSR(n int, rowPtr []int64, src hyb.CSR) hyb.CSR {
	nnz := rowPtr[n]
	col := make([]int32, nnz)
	var val []float32
	if src.Val != nil {
		val = make([]float32, nnz)
	}
	next := append([]int64(nil), rowPtr[:n]...)
	for v := 0; v < n; v++ {
		for i := src.RowPtr[v]; i < src.RowPtr[v+1]; i++ {
			u := src.Col[i]
			j := next[u]
			next[u]++
			col[j] = int32(v)
			if val != nil {
				val[j] = src.Val[i]
			}
		}
	}
	return hyb.CSR{RowPtr: rowPtr, Col: col, Val: val}
}
