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
	"sort"
	"sync"
	"sync/atomic"

	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/internal/huge"
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
	// MinK raises K to at least MinK, or the longest row: a part's
	// matrix, whose rows outside the part are empty, takes the K of its
	// own rows (vertexprog's part matrices), which the rule over every
	// row would put lower.
	MinK int
}

// DefaultOptions are CUSP's constants (relative speed 3, breakeven 4096).
func DefaultOptions() Options { return Options{RelativeSpeed: 3, Breakeven: 4096} }

// CPUOptions put every entry in COO (K = 0): the CPU backend's default. On
// a CPU an ELL slot is no cheaper than a COO entry — there is no
// coalescing to win, and a row's ELL slots lie a pitch apart, one cache
// line each — so CUSP's rule, which assumes ELL is 3x faster, only adds a
// second pass (kron18 on one core: a PageRank pull 26 → 21 ms, BFS 68 →
// 45 ms; docs/perf/cpu-engine.md#no-ell-on-the-cpu).
func CPUOptions() Options { return Options{RelativeSpeed: 3, Breakeven: math.MaxInt} }

// Matrix is an n×n sparse matrix in HYB form. The first K entries of each
// row (in column order) sit in ELL; the rest in COO.
//
// A matrix made by Describe knows its shape (K, Pitch, CooPtr) and its
// source CSR (Src) but fills EllCol, EllVal, CooCol and CooVal only when
// Materialize is called: a GPU backend builds those arrays on the device
// from the CSR it uploads, and the host then holds no second copy of the
// graph. With K = 0 the COO part is the CSR itself, so CooCol, CooVal and
// CooPtr share Src's arrays and nothing is copied at all.
type Matrix struct {
	N int // rows and columns
	K int // ELL width
	// Pitch is N rounded up to a multiple of 32: ELL slot k of row r is
	// at k*Pitch + r, so consecutive rows (threads) read consecutive words.
	Pitch  int
	EllCol []int32   // K*Pitch column indices, Pad where a row is shorter than K
	EllVal []float32 // K*Pitch values (0 at padding), nil for a pattern matrix
	// CooCol and CooVal hold the COO entries, rows in order and each row's
	// columns increasing; CooVal is nil for a pattern matrix.
	CooCol []int32
	CooVal []float32
	// CooPtr[r] is the index of row r's first COO entry (len N+1).
	CooPtr []int64
	// Src is the CSR the matrix was built from (read only; shared). For
	// a matrix described as a transpose or a symmetrization
	// (DescribeTranspose, DescribeSymmetrized) it holds the row pointer
	// alone: Col and Val are nil, and the CSR is that of TransposeOf's
	// transpose or SymmetrizeOf's undirected view, which Source builds on
	// the host where one needs it.
	Src CSR
	// TransposeOf, when set, says the matrix is the transpose of this CSR
	// (a directed graph's in-adjacency described from its out-CSR): a
	// device backend can transpose it on the device instead of uploading
	// a host transpose. Read only; shared.
	TransposeOf *CSR
	// SymmetrizeOf, when set, says the matrix is the undirected view of
	// this CSR, a directed graph's out-adjacency: each row its out- and
	// in-neighbours merged, every neighbour once with its lightest weight
	// (datasets.Graph.Symmetrized). A device backend builds it on the
	// device. Read only; shared.
	SymmetrizeOf *CSR

	once sync.Once
	// source builds the host CSR of a transposed matrix (its Src row
	// pointer's rows), srcDone holds it once built, and filled says
	// Materialize ran on a transposed matrix.
	source  func() CSR
	srcOnce sync.Once
	srcDone CSR
	filled  atomic.Bool
}

// CSR is a compressed sparse row matrix whose rows are sorted by column.
type CSR struct {
	RowPtr []int64
	Col    []int32
	Val    []float32 // nil for a pattern matrix
}

// of is the CSR a transposed or symmetrized matrix is described from
// (TransposeOf or SymmetrizeOf), or nil.
func (m *Matrix) of() *CSR {
	if m.TransposeOf != nil {
		return m.TransposeOf
	}
	return m.SymmetrizeOf
}

// Materialized reports whether the ELL and COO arrays are filled. A
// transposed or symmetrized matrix (TransposeOf, SymmetrizeOf) is not
// until Materialize, whatever its K: with K = 0 its COO is the host's
// CSR of it, which Materialize builds.
func (m *Matrix) Materialized() bool {
	if m.of() != nil {
		return m.N == 0 || m.filled.Load()
	}
	return m.K == 0 || m.EllCol != nil || m.N == 0
}

// Materialize fills the ELL and COO arrays from Src if Describe left them
// empty (a transposed matrix's from Source, built then). Safe for
// concurrent use; a no-op on a materialized matrix.
func (m *Matrix) Materialize() {
	m.once.Do(func() {
		if m.Materialized() {
			return
		}
		src := m.Source()
		if m.of() != nil && m.K == 0 {
			m.CooCol, m.CooVal = src.Col, src.Val
		} else {
			m.fill(src)
		}
		m.filled.Store(true)
	})
}

// Source is the CSR the matrix's rows are: Src, or for a transposed or
// symmetrized matrix (TransposeOf, SymmetrizeOf) the host's CSR of it,
// built on the first call (by the function DescribeTranspose or
// DescribeSymmetrized was given) and checked against Src's row pointer.
// Read only.
func (m *Matrix) Source() CSR {
	if m.of() == nil {
		return m.Src
	}
	m.srcOnce.Do(func() {
		src := m.source()
		if !slices.Equal(src.RowPtr, m.Src.RowPtr) || int64(len(src.Col)) != m.NNZ() || (src.Val != nil) != m.Weighted() {
			panic(fmt.Sprintf("hyb: the host's CSR (%d rows, %d entries, weighted %v) is not the matrix described (%d rows, %d entries, weighted %v)",
				len(src.RowPtr)-1, len(src.Col), src.Val != nil, m.N, m.NNZ(), m.Weighted()))
		}
		m.srcDone = src
	})
	return m.srcDone
}

// Weighted reports whether the matrix carries values.
func (m *Matrix) Weighted() bool {
	if of := m.of(); of != nil {
		return of.Val != nil
	}
	return m.Src.Val != nil
}

// NNZ is the number of stored entries.
func (m *Matrix) NNZ() int64 { return m.Src.RowPtr[m.N] }

// CooNNZ is the number of entries in COO.
func (m *Matrix) CooNNZ() int64 { return m.CooPtr[m.N] }

// EllNNZ is the number of entries held in ELL (not counting padding).
func (m *Matrix) EllNNZ() int64 { return m.NNZ() - m.CooNNZ() }

// RowLen is the length of row r.
func (m *Matrix) RowLen(r int) int { return int(m.Src.RowPtr[r+1] - m.Src.RowPtr[r]) }

// RowLenELL is how many of row r's entries are in ELL.
func (m *Matrix) RowLenELL(r int) int { return min(m.K, m.RowLen(r)) }

// RowsEnd is where rows [lo, hi)'s trailing run of empty rows starts,
// by rowPtr (a row pointer: it does not decrease): the least e in
// [lo, hi] whose rows [e, hi) hold no entries (hi when row hi-1 has
// some). Graphs numbered by decreasing degree put the vertices without
// arcs last in each part's range (a kron graph's 40%+). A binary search.
func RowsEnd(rowPtr []int64, lo, hi int) int {
	if lo >= hi {
		return hi
	}
	end := rowPtr[hi]
	return lo + sort.Search(hi-lo, func(i int) bool { return rowPtr[lo+i] == end })
}

// ChooseK applies the rule of design §3 to the row lengths given by a CSR
// row pointer: with R(k) the number of rows longer than k, K is the
// smallest k in [0, max) with RelativeSpeed·R(k) < n or R(k) < Breakeven,
// else max (the longest row). The row pointer must not decrease.
func ChooseK(rowPtr []int64, opt Options) int {
	k, _ := chooseK(rowPtr, opt)
	return k
}

// chooseK is ChooseK, and false (with K 0) when a row has a negative
// length.
func chooseK(rowPtr []int64, opt Options) (int, bool) {
	n := len(rowPtr) - 1
	// hist[l] = rows of length l, for l below histCap (every core counts
	// its block of rows); longer rows are listed only when the rule
	// reaches them, which takes more than n/RelativeSpeed of them.
	maxLens := make([]int, par.Workers())
	hists := make([][]int, par.Workers())
	bad := make([]bool, par.Workers())
	par.Blocks(n, func(w, lo, hi int) {
		h := make([]int, histCap)
		m := 0
		for r := lo; r < hi; r++ {
			l := int(rowPtr[r+1] - rowPtr[r])
			if l < 0 {
				bad[w] = true
				return
			}
			m = max(m, l)
			if l < histCap {
				h[l]++
			}
		}
		maxLens[w], hists[w] = m, h
	})
	if slices.Contains(bad, true) {
		return 0, false
	}
	maxLen := slices.Max(maxLens)
	hist := make([]int, min(maxLen, histCap-1)+1)
	for _, h := range hists {
		if h == nil {
			continue // (a small range runs as one block)
		}
		for l := range hist {
			hist[l] += h[l]
		}
	}
	longer := n - hist[0]
	k := maxLen
	var long []int // (the lengths of histCap or more, sorted, when reached)
	for i := 0; i < maxLen; i++ {
		if opt.RelativeSpeed*float64(longer) < float64(n) || longer < opt.Breakeven {
			k = i
			break
		}
		if i+1 < histCap {
			longer -= hist[i+1]
			continue
		}
		if long == nil {
			long = longRows(rowPtr)
		}
		for len(long) > 0 && long[0] == i+1 {
			longer--
			long = long[1:]
		}
	}
	k = max(k, min(opt.MinK, maxLen))
	if opt.MaxK > 0 && k > opt.MaxK {
		k = opt.MaxK
	}
	return k, true
}

// histCap bounds ChooseK's histogram of row lengths.
const histCap = 1 << 12

// longRows returns the lengths of the rows of histCap entries or more,
// sorted (at most nnz/histCap of them).
func longRows(rowPtr []int64) []int {
	var long []int
	for r := 0; r+1 < len(rowPtr); r++ {
		if l := int(rowPtr[r+1] - rowPtr[r]); l >= histCap {
			long = append(long, l)
		}
	}
	slices.Sort(long)
	return long
}

// FromGraph builds the HYB form of g's CSR (row u = out-arcs of u).
func FromGraph(g *datasets.Graph, opt Options) (*Matrix, error) {
	return FromCSR(g.N, g.RowPtr, g.Col, g.W, opt)
}

// FromCSR builds HYB from a CSR whose rows are sorted by column. val may be
// nil (pattern matrix). The matrix shares rowPtr, col and val (as Src,
// and as its COO part when K = 0): they must not change while it is used.
func FromCSR(n int, rowPtr []int64, col []int32, val []float32, opt Options) (*Matrix, error) {
	m, err := Describe(n, rowPtr, col, val, opt)
	if err != nil {
		return nil, err
	}
	m.Materialize()
	return m, nil
}

// Describe is FromCSR without filling the ELL and COO arrays (unless
// K = 0, where they are the CSR's own): K, Pitch and CooPtr only, O(n).
// Materialize fills the rest on the host; a device backend can build
// them on the device from Src instead.
func Describe(n int, rowPtr []int64, col []int32, val []float32, opt Options) (*Matrix, error) {
	if err := checkOptions(opt); err != nil {
		return nil, err
	}
	if n < 0 || len(rowPtr) != n+1 || rowPtr[0] != 0 || rowPtr[n] != int64(len(col)) || (val != nil && len(val) != len(col)) {
		return nil, fmt.Errorf("hyb: inconsistent CSR (n=%d, %d row pointers, %d columns, %d values)", n, len(rowPtr), len(col), len(val))
	}
	m, err := DescribeRows(n, rowPtr, opt)
	if err != nil {
		return nil, err
	}
	m.Src = CSR{rowPtr, col, val}
	if m.K == 0 {
		m.CooCol, m.CooVal = col, val
	}
	return m, nil
}

// DescribeTranspose describes the transpose of of (an n×n CSR: a
// directed graph's out-adjacency) from its row pointer alone, rowPtr
// (the in-degrees' prefix sums, counted by the caller), without building
// the transpose: the matrix's TransposeOf is of, its Src holds rowPtr
// only, and Materialize (or Source) calls build for the host transpose
// where one needs it, which must return the CSR of rowPtr's rows. A
// device backend builds the matrix's arrays by transposing of on the
// device instead. Even with K = 0 nothing is shared until Materialize.
func DescribeTranspose(n int, rowPtr []int64, of CSR, opt Options, build func() CSR) (*Matrix, error) {
	m, err := describeOf("transpose", n, rowPtr, of, opt, build, func(nnz int64) bool { return nnz == int64(len(of.Col)) })
	if err == nil {
		m.TransposeOf = &of
	}
	return m, err
}

// DescribeSymmetrized describes the undirected view of of (an n×n CSR: a
// directed graph's out-adjacency; each row its out- and in-neighbours
// merged, as datasets.Graph.Symmetrized makes it) from its row pointer
// alone, rowPtr (counted by the caller: a device backend that builds the
// view on the device), as DescribeTranspose does for the transpose: the
// matrix's SymmetrizeOf is of, its Src holds rowPtr only, and
// Materialize (or Source) calls build for the host's view where one
// needs it, which must return the CSR of rowPtr's rows.
func DescribeSymmetrized(n int, rowPtr []int64, of CSR, opt Options, build func() CSR) (*Matrix, error) {
	m, err := describeOf("symmetrization", n, rowPtr, of, opt, build, func(nnz int64) bool { return nnz <= 2*int64(len(of.Col)) })
	if err == nil {
		m.SymmetrizeOf = &of
	}
	return m, err
}

// describeOf is DescribeTranspose and DescribeSymmetrized without the
// field that names of: it checks the arguments (nnzOK: the entries
// rowPtr counts, against of's) and describes rowPtr's rows.
func describeOf(what string, n int, rowPtr []int64, of CSR, opt Options, build func() CSR, nnzOK func(int64) bool) (*Matrix, error) {
	if err := checkOptions(opt); err != nil {
		return nil, err
	}
	if n < 0 || len(rowPtr) != n+1 || len(of.RowPtr) != n+1 || rowPtr[0] != 0 || !nnzOK(rowPtr[n]) ||
		of.RowPtr[n] != int64(len(of.Col)) || (of.Val != nil && len(of.Val) != len(of.Col)) || build == nil {
		return nil, fmt.Errorf("hyb: inconsistent %s (n=%d, %d and %d row pointers, %d columns, %d values)",
			what, n, len(rowPtr), len(of.RowPtr), len(of.Col), len(of.Val))
	}
	m, err := DescribeRows(n, rowPtr, opt)
	if err != nil {
		return nil, err
	}
	m.Src = CSR{RowPtr: rowPtr}
	m.source = build
	return m, nil
}

// DescribeRows is Describe from a row pointer alone (rows' lengths are
// all K and CooPtr need): a matrix whose Src holds rowPtr and no columns,
// and whose COO arrays are empty even with K = 0. DescribeTranspose and
// Describe finish it; alone it is a shape, which Materialize cannot fill.
func DescribeRows(n int, rowPtr []int64, opt Options) (*Matrix, error) {
	if err := checkOptions(opt); err != nil {
		return nil, err
	}
	if n < 0 || len(rowPtr) != n+1 || rowPtr[0] != 0 {
		return nil, fmt.Errorf("hyb: inconsistent row pointer (n=%d, %d row pointers)", n, len(rowPtr))
	}
	k, ok := chooseK(rowPtr, opt)
	if !ok {
		return nil, fmt.Errorf("hyb: inconsistent row pointer (a row of negative length)")
	}
	pitch := (n + 31) &^ 31
	if int64(k)*int64(pitch) > math.MaxInt32*int64(8) {
		return nil, fmt.Errorf("hyb: ELL of %d x %d slots is too large", pitch, k)
	}
	m := &Matrix{N: n, K: k, Pitch: pitch, Src: CSR{RowPtr: rowPtr}}
	if k == 0 {
		m.CooPtr = rowPtr
		return m, nil
	}
	// CooPtr is the prefix sum of the rows' tails past K: each core sums
	// its block, then writes its block's prefix from its start.
	m.CooPtr = make([]int64, n+1)
	tail := func(r int) int64 { return max(0, rowPtr[r+1]-rowPtr[r]-int64(k)) }
	sums := make([]int64, par.Workers()+1)
	par.Blocks(n, func(w, lo, hi int) {
		var s int64
		for r := lo; r < hi; r++ {
			s += tail(r)
		}
		sums[w+1] = s
	})
	for w := 1; w < len(sums); w++ {
		sums[w] += sums[w-1]
	}
	par.Blocks(n, func(w, lo, hi int) {
		s := sums[w]
		for r := lo; r < hi; r++ {
			s += tail(r)
			m.CooPtr[r+1] = s
		}
	})
	return m, nil
}

func checkOptions(opt Options) error {
	if opt.RelativeSpeed <= 0 || math.IsNaN(opt.RelativeSpeed) || opt.Breakeven < 0 || opt.MaxK < 0 || opt.MinK < 0 {
		return fmt.Errorf("hyb: invalid options %+v (relative speed must be > 0, breakeven, max K and min K >= 0)", opt)
	}
	return nil
}

// fill builds the ELL and COO arrays from src (the matrix's Source).
func (m *Matrix) fill(src CSR) {
	n, k, pitch := m.N, m.K, m.Pitch
	rowPtr, col, val := src.RowPtr, src.Col, src.Val
	m.EllCol = huge.Make[int32](k * pitch)
	nc := m.CooPtr[n]
	m.CooCol = huge.Make[int32](int(nc))
	if val != nil {
		m.EllVal = huge.Make[float32](k * pitch)
		m.CooVal = huge.Make[float32](int(nc))
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
			if s+int64(k) < e {
				c := m.CooPtr[r]
				copy(m.CooCol[c:], col[s+int64(k):e])
				if val != nil {
					copy(m.CooVal[c:], val[s+int64(k):e])
				}
			}
		}
	})
	// Rows past n in the last pitch block are padding too.
	for j := 0; j < k; j++ {
		for r := n; r < pitch; r++ {
			m.EllCol[j*pitch+r] = Pad
		}
	}
}

// ToCSR converts back to CSR, rows sorted by column, from the ELL and COO
// arrays (materializing them first).
func (m *Matrix) ToCSR() (rowPtr []int64, col []int32, val []float32) {
	m.Materialize()
	rowPtr = make([]int64, m.N+1)
	for r := 0; r < m.N; r++ {
		ell := 0
		for ell < m.K && m.EllCol[ell*m.Pitch+r] != Pad {
			ell++
		}
		rowPtr[r+1] = rowPtr[r] + int64(ell) + m.CooPtr[r+1] - m.CooPtr[r]
	}
	col = huge.Make[int32](int(rowPtr[m.N]))
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
	src := m.Source()
	rowPtr, col, val := src.RowPtr, src.Col, src.Val
	tPtr := make([]int64, m.N+1)
	for _, c := range col {
		tPtr[c+1]++
	}
	for r := 0; r < m.N; r++ {
		tPtr[r+1] += tPtr[r]
	}
	tCol := huge.Make[int32](len(col))
	var tVal []float32
	if val != nil {
		tVal = huge.Make[float32](len(col))
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
	CooBytes     int64   // device bytes of COO (columns, values, row offsets)
	MinRow       int
	MaxRow       int
	AvgRow       float64
	EmptyRows    int
	WeightsBytes int64 // part of EllBytes+CooBytes spent on values
}

// Stats computes the matrix's statistics.
func (m *Matrix) Stats() Stats {
	s := Stats{N: m.N, K: m.K, CooEntries: m.CooNNZ(), MinRow: math.MaxInt}
	for r := 0; r < m.N; r++ {
		e := m.RowLenELL(r)
		l := m.RowLen(r)
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
	s.CooBytes = s.CooEntries*(4+valBytes) + 8*int64(m.N+1)
	s.WeightsBytes = (int64(m.K)*int64(m.Pitch) + s.CooEntries) * valBytes
	return s
}
