package driver

import (
	"slices"
	"sync"

	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/hyb"
	"github.com/hpgraph/hpgraph/internal/par"
)

// Graph is the graph a job runs on as a backend sees it: the program's
// *vertexprog.Graph, which keeps the matrices, orientations and memos
// that runs on it share.
type Graph interface {
	// Dataset is the graph's CSR (out-adjacency).
	Dataset() *datasets.Graph
	// Directed reports whether arcs have a direction.
	Directed() bool
}

// Matrix is a HYB matrix with the per-row data every backend needs.
type Matrix struct {
	*hyb.Matrix
	// Degree[r] is the length of row r.
	Degree []int32
	// Bounds splits the rows into parts of about equal work (ELL slots plus
	// COO entries), partsPerWorker per worker, which workers claim
	// dynamically: per-row work is not always proportional to nonzeros
	// (masks, early exit, sorted-list intersections).
	Bounds []int
	nnz    int64

	filled     sync.Once
	filledRows []uint32 // (FilledRows')
	cols       sync.Once
	colBound   uint64 // (ColumnsBelow's: the largest COO column as a uint32, plus one)
}

// ColumnsBelow reports whether every COO column of m (all of an
// all-COO matrix's, the CPU's) lies in [0, n): a pull may then read a
// row's values without checking each index. The largest is found once
// per matrix, on every core.
func (m *Matrix) ColumnsBelow(n int) bool {
	m.cols.Do(func() {
		col := m.CooCol
		most := make([]uint32, par.Workers())
		par.Blocks(len(col), func(w, lo, hi int) {
			b := uint32(0)
			for _, c := range col[lo:hi] {
				b = max(b, uint32(c)) // (a negative column is huge here)
			}
			most[w] = max(most[w], b)
		})
		if len(col) > 0 {
			m.colBound = uint64(slices.Max(most)) + 1
		}
	})
	return m.colBound <= uint64(max(n, 0))
}

// FilledRows is a bitmask of the rows that hold entries, bit r of word
// r/32 (the bitmask package's layout), made once per matrix on every
// core; read only. A data-driven program's pulls need not visit the
// others (numbered by degree, a kron graph's last 38-43%).
func (m *Matrix) FilledRows() []uint32 {
	m.filled.Do(func() {
		rp := m.Src.RowPtr
		w := make([]uint32, (m.N+31)/32)
		par.Blocks(len(w), func(_, lo, hi int) {
			for i := lo; i < hi; i++ {
				// (without a branch: kron's empty rows, 38% of them at
				// random, mispredicted one in three: 3.9% of a kron20
				// one-shot bfs's samples, ~5 ms of CPU)
				var b uint32
				for v := i * 32; v < min(i*32+32, m.N); v++ {
					filled := uint64(rp[v]-rp[v+1]) >> 63 // (rows never shrink)
					b |= uint32(filled) << uint(v-i*32)
				}
				w[i] = b
			}
		})
		m.filledRows = w
	})
	return m.filledRows
}

// NNZ is the number of stored entries, counted once when the matrix was
// built (hyb's count scans every ELL slot: 25–34 ms on kron21, which the
// superstep loop used to pay on every run).
func (m *Matrix) NNZ() int64 { return m.nnz }

const (
	partsPerWorker = 16
	minPartRows    = 1024
)

// NewMatrix wraps a described HYB matrix with its row lengths and its
// rows' split into parts of about equal work for the CPU's workers.
func NewMatrix(h *hyb.Matrix, degree []int32) *Matrix {
	m := &Matrix{Matrix: h, Degree: degree, nnz: h.Src.RowPtr[h.N]}
	k := int64(h.K)
	parts := 1
	if h.N >= minPartRows {
		parts = min(par.Workers()*partsPerWorker, h.N/minPartRows)
	}
	m.Bounds = par.Split(h.N, parts, func(i int) int64 { return int64(i)*k + h.CooPtr[i] })
	return m
}
