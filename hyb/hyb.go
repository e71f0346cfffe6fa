// Package hyb owns the HYB sparse format (ELL + COO, Bell & Garland / CUSP)
// that every backend runs on: building it from CSR with the "one-third"
// K rule, converting back, transposing, and reporting its statistics.
//
// It knows the CSR type of package datasets and nothing of programs,
// engines or devices.
package hyb

import (
	"fmt"
	"math"
	"slices"

	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/internal/par"
)

// Pad is the ELL column index of an empty slot.
const Pad = -1

// Options control the ELL width rule.
type Options struct {
	// RelativeSpeed is how much faster an ELL entry is than a COO entry:
	// K stops growing once fewer than 1/RelativeSpeed of the rows are longer.
	RelativeSpeed float64
	// Breakeven: K stops growing once fewer than this many rows are longer
	// (below it, ELL's column passes cost more than they save).
	Breakeven int
	// MaxK caps K (0 = no cap), for tests and tuning.
	MaxK int
}

// DefaultOptions are CUSP's constants (relative speed 3, breakeven 4096).
func DefaultOptions() Options { return Options{RelativeSpeed: 3, Breakeven: 4096} }

// CPUOptions put every entry in COO (K = 0): the CPU backend's default. On
// a CPU an ELL slot is no cheaper than a COO entry — there is no
// coalescing to win, and a row's ELL slots lie a pitch apart, one cache
// line each — so CUSP's rule, which assumes ELL is 3x faster, only adds a
// second pass (kron18 on one core: a PageRank pull 26 → 21 ms, BFS 68 →
// 45 ms; docs/perf.md).
func CPUOptions() Options { return Options{RelativeSpeed: 3, Breakeven: math.MaxInt} }

// Matrix is an n×n sparse matrix in HYB form. The first K entries of each
// row (in column order) sit in ELL; the rest in COO.
type Matrix struct {
	N int // rows and columns
	K int // ELL width
	// Pitch is N rounded up to a multiple of 32: ELL slot k of row r is
	// at k*Pitch + r, so consecutive rows (threads) read consecutive words.
	Pitch  int
	EllCol []int32   // K*Pitch column indices, Pad where a row is shorter than K
	EllVal []float32 // K*Pitch values (0 at padding), nil for a pattern matrix
	CooRow []int32   // row of each COO entry, sorted by (row, column)
	CooCol []int32
	CooVal []float32 // nil for a pattern matrix
	// CooPtr[r] is the index of row r's first COO entry (len N+1): the
	// row-compressed view of CooRow, for row-wise kernels and push steps.
	CooPtr []int64
}

// Weighted reports whether the matrix carries values.
func (m *Matrix) Weighted() bool { return m.EllVal != nil || m.CooVal != nil }

// NNZ is the number of stored entries.
func (m *Matrix) NNZ() int64 { return m.EllNNZ() + int64(len(m.CooCol)) }

// EllNNZ is the number of entries held in ELL (not counting padding).
func (m *Matrix) EllNNZ() int64 {
	var n int64
	for r := 0; r < m.N; r++ {
		n += int64(m.RowLenELL(r))
	}
	return n
}

// RowLenELL is how many of row r's entries are in ELL.
func (m *Matrix) RowLenELL(r int) int {
	// Padding only trails, so the first Pad ends the row.
	for k := 0; k < m.K; k++ {
		if m.EllCol[k*m.Pitch+r] == Pad {
			return k
		}
	}
	return m.K
}

// ChooseK applies the rule of design §3 to the row lengths given by a CSR
// row pointer: with R(k) the number of rows longer than k, K is the
// smallest k in [0, max) with RelativeSpeed·R(k) < n or R(k) < Breakeven,
// else max (the longest row).
func ChooseK(rowPtr []int64, opt Options) int {
	n := len(rowPtr) - 1
	maxLen := 0
	for r := 0; r < n; r++ {
		maxLen = max(maxLen, int(rowPtr[r+1]-rowPtr[r]))
	}
	// hist[l] = rows of length l; R(k) = rows longer than k.
	hist := make([]int, maxLen+1)
	for r := 0; r < n; r++ {
		hist[rowPtr[r+1]-rowPtr[r]]++
	}
	longer := n - hist[0]
	k := maxLen
	for i := 0; i < maxLen; i++ {
		if opt.RelativeSpeed*float64(longer) < float64(n) || longer < opt.Breakeven {
			k = i
			break
		}
		longer -= hist[i+1]
	}
	if opt.MaxK > 0 && k > opt.MaxK {
		k = opt.MaxK
	}
	return k
}

// FromGraph builds the HYB form of g's CSR (row u = out-arcs of u).
func FromGraph(g *datasets.Graph, opt Options) (*Matrix, error) {
	return FromCSR(g.N, g.RowPtr, g.Col, g.W, opt)
}

// FromCSR builds HYB from a CSR whose rows are sorted by column. val may be
// nil (pattern matrix).
func FromCSR(n int, rowPtr []int64, col []int32, val []float32, opt Options) (*Matrix, error) {
	if opt.RelativeSpeed <= 0 || math.IsNaN(opt.RelativeSpeed) || opt.Breakeven < 0 || opt.MaxK < 0 {
		return nil, fmt.Errorf("hyb: invalid options %+v (relative speed must be > 0, breakeven and max K >= 0)", opt)
	}
	if len(rowPtr) != n+1 || rowPtr[n] != int64(len(col)) || (val != nil && len(val) != len(col)) {
		return nil, fmt.Errorf("hyb: inconsistent CSR (n=%d, %d row pointers, %d columns, %d values)", n, len(rowPtr), len(col), len(val))
	}
	k := ChooseK(rowPtr, opt)
	pitch := (n + 31) &^ 31
	if int64(k)*int64(pitch) > math.MaxInt32*int64(8) {
		return nil, fmt.Errorf("hyb: ELL of %d x %d slots is too large", pitch, k)
	}
	m := &Matrix{N: n, K: k, Pitch: pitch, EllCol: make([]int32, k*pitch), CooPtr: make([]int64, n+1)}
	if val != nil {
		m.EllVal = make([]float32, k*pitch)
	}
	for r := 0; r < n; r++ {
		m.CooPtr[r+1] = m.CooPtr[r] + max(0, rowPtr[r+1]-rowPtr[r]-int64(k))
	}
	nc := m.CooPtr[n]
	m.CooRow, m.CooCol = make([]int32, nc), make([]int32, nc)
	if val != nil {
		m.CooVal = make([]float32, nc)
	}
	// Rows are independent; balance the blocks by nonzeros.
	bounds := par.Split(n, par.Workers(), func(i int) int64 { return rowPtr[i] })
	par.Parts(bounds, func(_, lo, hi int) {
		for r := lo; r < hi; r++ {
			s, e := rowPtr[r], rowPtr[r+1]
			j := 0
			for ; j < k && s+int64(j) < e; j++ {
				m.EllCol[j*pitch+r] = col[s+int64(j)]
				if val != nil {
					m.EllVal[j*pitch+r] = val[s+int64(j)]
				}
			}
			for ; j < k; j++ {
				m.EllCol[j*pitch+r] = Pad
			}
			c := m.CooPtr[r]
			for i := s + int64(k); i < e; i++ {
				m.CooRow[c], m.CooCol[c] = int32(r), col[i]
				if val != nil {
					m.CooVal[c] = val[i]
				}
				c++
			}
		}
	})
	// Rows past n in the last pitch block are padding too.
	for j := 0; j < k; j++ {
		for r := n; r < pitch; r++ {
			m.EllCol[j*pitch+r] = Pad
		}
	}
	return m, nil
}

// ToCSR converts back to CSR, rows sorted by column.
func (m *Matrix) ToCSR() (rowPtr []int64, col []int32, val []float32) {
	rowPtr = make([]int64, m.N+1)
	for r := 0; r < m.N; r++ {
		rowPtr[r+1] = rowPtr[r] + int64(m.RowLenELL(r)) + m.CooPtr[r+1] - m.CooPtr[r]
	}
	col = make([]int32, rowPtr[m.N])
	if m.Weighted() {
		val = make([]float32, rowPtr[m.N])
	}
	par.Blocks(m.N, func(_, lo, hi int) {
		for r := lo; r < hi; r++ {
			p := rowPtr[r]
			for k := 0; k < m.K; k++ {
				c := m.EllCol[k*m.Pitch+r]
				if c == Pad {
					break
				}
				col[p] = c
				if val != nil {
					val[p] = m.EllVal[k*m.Pitch+r]
				}
				p++
			}
			for i := m.CooPtr[r]; i < m.CooPtr[r+1]; i++ {
				col[p] = m.CooCol[i]
				if val != nil {
					val[p] = m.CooVal[i]
				}
				p++
			}
		}
	})
	return rowPtr, col, val
}

// Transpose returns the HYB form of the transposed matrix, with K chosen
// afresh for the transposed row lengths.
func (m *Matrix) Transpose(opt Options) (*Matrix, error) {
	rowPtr, col, val := m.ToCSR()
	tPtr := make([]int64, m.N+1)
	for _, c := range col {
		tPtr[c+1]++
	}
	for r := 0; r < m.N; r++ {
		tPtr[r+1] += tPtr[r]
	}
	tCol := make([]int32, len(col))
	var tVal []float32
	if val != nil {
		tVal = make([]float32, len(col))
	}
	cursor := slices.Clone(tPtr[:m.N])
	// Walking rows in order leaves every transposed row sorted.
	for r := 0; r < m.N; r++ {
		for i := rowPtr[r]; i < rowPtr[r+1]; i++ {
			c := col[i]
			tCol[cursor[c]] = int32(r)
			if val != nil {
				tVal[cursor[c]] = val[i]
			}
			cursor[c]++
		}
	}
	return FromCSR(m.N, tPtr, tCol, tVal, opt)
}

// Stats describes how a matrix split between ELL and COO.
type Stats struct {
	N, K         int
	NNZ          int64
	EllEntries   int64   // nonzeros in ELL
	EllSlots     int64   // K × N (padding rows past N excluded)
	EllPadding   int64   // EllSlots − EllEntries
	EllFill      float64 // EllEntries / EllSlots (1 when K = 0)
	CooEntries   int64
	CooShare     float64 // CooEntries / NNZ
	EllBytes     int64   // device bytes of ELL (pitched columns and values)
	CooBytes     int64   // device bytes of COO (rows, columns, values)
	MinRow       int
	MaxRow       int
	AvgRow       float64
	EmptyRows    int
	WeightsBytes int64 // part of EllBytes+CooBytes spent on values
}

// Stats computes the matrix's statistics.
func (m *Matrix) Stats() Stats {
	s := Stats{N: m.N, K: m.K, CooEntries: int64(len(m.CooCol)), MinRow: math.MaxInt}
	for r := 0; r < m.N; r++ {
		e := m.RowLenELL(r)
		l := e + int(m.CooPtr[r+1]-m.CooPtr[r])
		s.EllEntries += int64(e)
		s.MinRow = min(s.MinRow, l)
		s.MaxRow = max(s.MaxRow, l)
		if l == 0 {
			s.EmptyRows++
		}
	}
	if m.N == 0 {
		s.MinRow = 0
	}
	s.NNZ = s.EllEntries + s.CooEntries
	s.EllSlots = int64(m.K) * int64(m.N)
	s.EllPadding = s.EllSlots - s.EllEntries
	s.EllFill = 1
	if s.EllSlots > 0 {
		s.EllFill = float64(s.EllEntries) / float64(s.EllSlots)
	}
	if s.NNZ > 0 {
		s.CooShare = float64(s.CooEntries) / float64(s.NNZ)
		s.AvgRow = float64(s.NNZ) / float64(m.N)
	}
	valBytes := int64(0)
	if m.Weighted() {
		valBytes = 4
	}
	s.EllBytes = int64(m.K) * int64(m.Pitch) * (4 + valBytes)
	s.CooBytes = s.CooEntries * (8 + valBytes)
	s.WeightsBytes = (int64(m.K)*int64(m.Pitch) + s.CooEntries) * valBytes
	return s
}
