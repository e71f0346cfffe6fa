package vertexprog

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"sync"
	"sync/atomic"

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

// searchRowCost is rowCost for a search (a program that filters its
// rows and stops a row at its first find: RowFilter and EarlyExit): its
// pulls test every row and read few of their arcs, so its supersteps
// cost by rows. On one H200, kron24 renumbered by degree in 2 parts at
// rowCost (ncu, the kernels' own times): BFS's part of the short rows
// (98% of the rows, 37% of the arcs) took as long as the whole graph,
// 1.0 ms, its hubs' part 0.36, of which 0.19 were passes over every
// vertex that both parts make; the rest fits 43 ps a row and 0.53 an
// arc, a row costing about 80 arcs. But a part's device memory goes by
// its arcs: the cost halves until no part holds more than
// maxArcsShare times its even share of them (searchSplit).
const searchRowCost = 64

// maxArcsShare bounds a search's split: kron24's at 64 a row put 98% of
// the arcs in the part of the hubs, which at kron28 would not fit one
// H200.
const maxArcsShare = 1.5

// searchSplit is a search's split of rowPtr into parts: by
// searchRowCost a row, or less where that crowds one part's arcs.
func searchSplit(rowPtr []int64, parts int) (Partition, error) {
	nnz := rowPtr[len(rowPtr)-1]
	for cost := int64(searchRowCost); ; cost /= 2 {
		pt, err := splitRows(rowPtr, parts, cost)
		if err != nil || cost <= rowCost {
			return pt, err
		}
		most := int64(0)
		for p := range pt.Parts() {
			lo, hi := pt.Range(p)
			most = max(most, rowPtr[hi]-rowPtr[lo])
		}
		if float64(most) <= maxArcsShare*float64(nnz)/float64(parts) {
			return pt, nil
		}
	}
}

// SplitRows partitions n vertices, whose rows have the lengths rowPtr
// gives (a CSR's row offsets, n+1 of them), into parts ranges of about
// equal work, a row costing its entries plus rowCost, each boundary a
// multiple of 32 (a bitmask word). Parts may be empty where the graph has
// fewer words than parts.
func SplitRows(rowPtr []int64, parts int) (Partition, error) {
	return splitRows(rowPtr, parts, rowCost)
}

// splitRows is SplitRows with a row costing cost entries.
func splitRows(rowPtr []int64, parts int, cost int64) (Partition, error) {
	n := len(rowPtr) - 1
	if n < 0 || parts < 1 {
		return Partition{}, fmt.Errorf("vertexprog: cannot split %d vertices into %d parts", n, parts)
	}
	if n > 1<<31-1 {
		return Partition{}, fmt.Errorf("vertexprog: %d vertices do not fit an int32 vertex index", n)
	}
	return Partition{Bounds: splitRange(rowPtr, 0, int32(n), parts, cost)}, nil
}

// splitRange is the parts+1 bounds that split rows [lo, hi) (lo a
// multiple of partAlign) as splitRows splits a graph.
func splitRange(rowPtr []int64, lo, hi int32, parts int, cost int64) []int32 {
	b := make([]int32, parts+1)
	b[0], b[parts] = lo, hi
	work := func(v int32) int64 { return rowPtr[v] + cost*int64(v) }
	base, total := work(lo), work(hi)-work(lo)
	first, words := int(lo)/partAlign, (int(hi)+partAlign-1)/partAlign
	for p := 1; p < parts; p++ {
		// The first aligned boundary whose work reaches p/parts of the
		// total, and never before the last one.
		want := base + total*int64(p)/int64(parts)
		w := first + sort.Search(words-first, func(w int) bool {
			return work(int32((first+w)*partAlign)) >= want
		})
		v := min(int32(w*partAlign), hi)
		b[p] = max(v, b[p-1])
	}
	return b
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
	if err := g.partRows(lo, hi, false); err != nil {
		return nil, nil, err
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
		var rowPtr []int64
		switch {
		case g.held != nil: // (a graph of some rows: its processes' counts, else its part's columns)
			rowPtr = g.held.pushRowPtr(lo, hi)
		case !g.g.Directed:
			sym = g.adjacency(r)
		}
		pp.push, pp.err = partPush(pm.pull, sym, rowPtr, lo, hi, opt)
		return &pp
	}).(*partMatrices)
	return pm.pull, pp.push, pp.err
}

// partPull is rows [lo, hi) of adj as an N-row matrix (adj's own row
// offsets where it holds no other rows: a graph of some rows).
func partPull(adj *datasets.Graph, opt hyb.Options, lo, hi int32) (*driver.Matrix, error) {
	n := adj.N
	base := adj.RowPtr[lo]
	if base == 0 && adj.RowPtr[hi] == adj.RowPtr[n] {
		h, err := hyb.Describe(n, adj.RowPtr, adj.Col, adj.W, opt)
		if err != nil {
			return nil, err
		}
		return driver.NewMatrix(h, rowLengths(adj.RowPtr)), nil
	}
	rowPtr := make([]int64, n+1)
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
	// K by the part's own rows, as the rule would choose for them alone,
	// but no wider than the whole graph's (a part's ELL spans all N rows):
	// the rule over N counts every other part's empty rows, which put K
	// at 0 or 1 for a part of short rows, and its rows then went to the
	// COO pull's bins of single rows, several times slower there (kron24
	// in 2 parts on an H200: its first BFS pull 0.38-0.54 ms, against
	// 0.06 for the same rows in the whole graph's ELL).
	k := min(hyb.ChooseK(adj.RowPtr[lo:hi+1], opt), hyb.ChooseK(adj.RowPtr, opt))
	opt.MinK = k
	if opt.MaxK == 0 || k < opt.MaxK {
		opt.MaxK = k
	}
	h, err := hyb.Describe(n, rowPtr, col, w, opt)
	if err != nil {
		return nil, err
	}
	return driver.NewMatrix(h, rowLengths(rowPtr)), nil
}

// partPush is the transpose of a part pull (rows [lo, hi)), described
// from its column counts: rowPtr where the caller has them (a held
// graph's, from its processes: pushCounts). Where the graph is
// undirected, sym is its symmetric adjacency, and a vertex's count is the
// number of its own neighbours in [lo, hi): a parallel pass reading each
// row in order, where counting the pull's columns would add at random
// into N counters, one arc at a time (kron26: 10 s on the host, most of a
// partitioned run's PREPROCESS). Otherwise the columns are counted in
// parallel (colRowPtr).
func partPush(pull *driver.Matrix, sym *datasets.Graph, rowPtr []int64, lo, hi int32, opt hyb.Options) (*driver.Matrix, error) {
	src := pull.Src
	n := pull.N
	switch {
	case rowPtr != nil:
		if len(rowPtr) != n+1 || rowPtr[n] != src.RowPtr[n] {
			return nil, fmt.Errorf("vertexprog: part [%d, %d)'s push counts %d arcs, its pull %d", lo, hi, rowPtr[len(rowPtr)-1], src.RowPtr[n])
		}
	case sym != nil:
		rowPtr = make([]int64, n+1)
		cnt := rowPtr[1:]
		par.Dynamic(par.Split(n, 8*par.Workers(), func(u int) int64 { return int64(u) }), func(a, b int) {
			for u := a; u < b; u++ {
				cnt[u] = int64(inRange(sym.Col[sym.RowPtr[u]:sym.RowPtr[u+1]], lo, hi))
			}
		})
		par.PrefixSum(rowPtr)
	default:
		rowPtr = colRowPtr(n, src.Col)
	}
	// All COO (K = 0): a device's transpose is then the matrix itself, no
	// ELL copy beside it (4 bytes an arc less at the build's peak), and a
	// push reads a frontier vertex's row as one run where an ELL row is K
	// places a pitch apart.
	opt.Breakeven = math.MaxInt
	h, err := hyb.DescribeTranspose(n, rowPtr, src, opt, func() hyb.CSR { return transposeCSR(n, rowPtr, src) })
	if err != nil {
		return nil, err
	}
	return driver.NewMatrix(h, rowLengths(rowPtr)), nil
}

// inRange is how many of row's columns (sorted, as a graph's rows are)
// lie in [lo, hi): the row's ends, then two binary searches where it
// straddles the range. A scan of every column read each hub's whole row
// for every part (kron29 in two parts: 17 G arcs read twice, 2.6-2.9 s
// a part's matrices on the GPU host's 32 cores).
func inRange(row []int32, lo, hi int32) int {
	if len(row) == 0 || row[0] >= hi || row[len(row)-1] < lo {
		return 0
	}
	if row[0] >= lo && row[len(row)-1] < hi {
		return len(row)
	}
	if len(row) <= 16 { // (a line or two: a scan, without the searches' branches)
		k := 0
		for _, v := range row {
			if v >= lo && v < hi {
				k++
			}
		}
		return k
	}
	a, _ := slices.BinarySearch(row, lo)
	b, _ := slices.BinarySearch(row, hi)
	return b - a
}

// transposeCSR is the stable transpose of src (n×n) whose row offsets are
// rowPtr: each row lists its entries' rows in increasing order (entries
// of one row in src's order). On every core, each worker making the rows
// of a range of them (balanced by their entries) from a pass over every
// source row that has entries: no atomics, and stable as a sequential
// pass is (kron26's half, 1 G arcs, had taken most of a 38 s PREPROCESS
// on one core).
func transposeCSR(n int, rowPtr []int64, src hyb.CSR) hyb.CSR {
	nnz := rowPtr[n]
	col := make([]int32, nnz)
	var val []float32
	if src.Val != nil {
		val = make([]float32, nnz)
	}
	// (the source rows with entries: a graph of some rows holds few)
	vlo := sort.Search(n, func(v int) bool { return src.RowPtr[v+1] > 0 })
	vhi := sort.Search(n, func(v int) bool { return src.RowPtr[v] >= src.RowPtr[n] })
	par.Parts(par.Split(n, par.Workers(), func(i int) int64 { return rowPtr[i] }), func(_, a, b int) {
		if rowPtr[a] == rowPtr[b] {
			return
		}
		next := slices.Clone(rowPtr[a:b])
		lo, hi := int32(a), int32(b)
		for v := vlo; v < vhi; v++ {
			for i := src.RowPtr[v]; i < src.RowPtr[v+1]; i++ {
				if u := src.Col[i]; u >= lo && u < hi {
					j := next[u-lo]
					next[u-lo]++
					col[j] = int32(v)
					if val != nil {
						val[j] = src.Val[i]
					}
				}
			}
		}
	})
	return hyb.CSR{RowPtr: rowPtr, Col: col, Val: val}
}

// A graph of some rows. A process of a run over several may hold only
// its parts' rows of an undirected graph (datasets.ReadCacheRows), never
// the whole graph: NewGraphRows wraps them. What it holds is all a
// partitioned run reads of the graph: its parts' pull rows (the part
// pull), their transpose (the part push, counted from the part's own
// columns: an undirected graph's rows are its columns), and every
// vertex's degree (the whole row offsets: frontier edge counts, the
// split, a program's out-degrees). Anything that would read other rows
// refuses: a run whole or in parts that are not this process's
// (ErrRowsNotHeld), programs whose host data is built from the whole
// adjacency (HostPreparer: triangle counts, LCC), device arrays over an
// Orientation; OutNeighbors, InNeighbors,
// Neighbors and OutWeights of another row panic, as for a vertex outside
// [0, N), and Orientation panics.

// ErrRowsNotHeld is returned (wrapped) for what would read rows of a
// graph that this process does not hold (NewGraphRows).
var ErrRowsNotHeld = errors.New("vertexprog: the graph's rows are not all held by this process")

// heldRows are the rows [lo, hi) a graph holds, of a graph whose whole
// row offsets are rowPtr and which has edges edges; bounds are every
// process's first row, in rank order, then N.
type heldRows struct {
	rowPtr []int64
	lo, hi int32
	edges  int64
	bounds []int32

	// (pushCounts': the push row offsets of this process's parts of the
	// run whose bounds pushKey prints, by part)
	mu       sync.Mutex
	pushKey  string
	pushRows map[[2]int32][]int64
}

// partition is a run of parts parts' partition of a graph of some rows:
// each process's rows split into its parts / processes (SplitRows's rule
// within them), so that every process runs the parts of its own rows.
func (h *heldRows) partition(parts int) (Partition, error) {
	size := len(h.bounds) - 1
	if parts%size != 0 {
		return Partition{}, fmt.Errorf("vertexprog: %d parts do not split evenly over %d processes", parts, size)
	}
	local := parts / size
	b := []int32{0}
	for r := range size {
		b = append(b, splitRange(h.rowPtr, h.bounds[r], h.bounds[r+1], local, rowCost)[1:]...)
	}
	return Partition{Bounds: b}, nil
}

// NewGraphRows wraps rows r.Lo to r.Hi of an undirected graph read alone
// by this process of the run over comm (rank comm.Rank() of comm.Size()),
// for partitioned runs (Options.Comm) whose parts on this process are
// those rows. Collective: every process calls it, with its own rows, and
// each checks through comm that the processes' rows are every row, in
// rank order, and that the file's checksum, which no process read whole,
// holds over their pieces (datasets.Rows.VerifyRowsChecksum); it also
// counts the graph's edges (Edges) from each process's self loops.
func NewGraphRows(r *datasets.Rows, comm Comm) (*Graph, error) {
	d := r.Graph
	if d.Directed {
		return nil, fmt.Errorf("%w: %s is directed, and a part of a directed graph gathers along its in-arcs, which are other parts' rows (read it whole)", ErrRowsNotHeld, d.Name)
	}
	loops := d.SelfLoops() // (its rows': the others are empty)
	msg := binary.LittleEndian.AppendUint32(nil, uint32(r.Checksum.Lo))
	msg = binary.LittleEndian.AppendUint32(msg, uint32(r.Checksum.Hi))
	msg = binary.LittleEndian.AppendUint32(msg, r.Checksum.Col)
	msg = binary.LittleEndian.AppendUint32(msg, r.Checksum.W)
	msg = binary.LittleEndian.AppendUint64(msg, uint64(loops))
	all := [][]byte{msg}
	if comm != nil {
		var err error
		if all, err = comm.AllGather(msg); err != nil {
			return nil, err
		}
	}
	sums := make([]datasets.RowsChecksum, len(all))
	loops = 0
	for i, m := range all {
		if len(m) != len(msg) {
			return nil, fmt.Errorf("vertexprog: process %d sent %d bytes of its rows' checksum, want %d", i, len(m), len(msg))
		}
		le := binary.LittleEndian
		sums[i] = datasets.RowsChecksum{Lo: int32(le.Uint32(m)), Hi: int32(le.Uint32(m[4:])), Col: le.Uint32(m[8:]), W: le.Uint32(m[12:])}
		loops += int64(le.Uint64(m[16:]))
	}
	if err := r.VerifyRowsChecksum(sums, d.Name); err != nil {
		return nil, err
	}
	bounds := []int32{}
	for i, s := range sums {
		if s.Lo%partAlign != 0 && int(s.Lo) != d.N {
			return nil, fmt.Errorf("vertexprog: %s: process %d holds rows from %d, not a multiple of %d (a frontier word: parts start at one)", d.Name, i, s.Lo, partAlign)
		}
		bounds = append(bounds, s.Lo)
	}
	nnz := r.RowPtr[d.N]
	g := NewGraph(d)
	g.held = &heldRows{rowPtr: r.RowPtr, lo: r.Lo, hi: r.Hi, edges: (nnz-loops)/2 + loops, bounds: append(bounds, int32(d.N))}
	return g, nil
}

// GatherRows is the rows [lo, hi) that this process made of an
// undirected graph (a generator's part: datasets.BuildStreamRows, or a
// device's) as the rows NewGraphRows wraps: d has all the graph's N
// rows, those outside [lo, hi) empty, and its part's stats. Collective:
// the processes all-gather their rows' lengths (4 bytes a row) into the
// whole graph's row offsets, and their stats into the graph's; each
// process's lo must be a multiple of 32 (a frontier word) and the rows
// every row, in rank order (NewGraphRows checks).
func GatherRows(d *datasets.Graph, lo, hi int32, comm Comm) (*datasets.Rows, error) {
	n := d.N
	if lo < 0 || hi < lo || int(hi) > n || len(d.RowPtr) != n+1 || d.RowPtr[lo] != 0 || d.RowPtr[hi] != d.RowPtr[n] {
		return nil, fmt.Errorf("vertexprog: %s: not a graph of rows [%d, %d) of %d only", d.Name, lo, hi, n)
	}
	le := binary.LittleEndian
	msg := make([]byte, 0, 40+4*int(hi-lo))
	for _, x := range []int64{int64(n), int64(lo), int64(hi), d.Stats.SelfLoops, d.Stats.Duplicates} {
		msg = le.AppendUint64(msg, uint64(x))
	}
	msg = msg[:cap(msg)]
	var long atomic.Int64 // (a row too long to send, plus one)
	par.Blocks(int(hi-lo), func(_, x, y int) {
		for i := x; i < y; i++ {
			v := lo + int32(i)
			l := d.RowPtr[v+1] - d.RowPtr[v]
			if l > math.MaxUint32 {
				long.Store(int64(v) + 1)
			}
			le.PutUint32(msg[40+4*i:], uint32(l))
		}
	})
	if v := long.Load() - 1; v >= 0 {
		return nil, fmt.Errorf("vertexprog: %s: row %d has %d arcs, more than a row's length is sent as (%d)", d.Name, v, d.RowPtr[v+1]-d.RowPtr[v], uint32(math.MaxUint32))
	}
	all := [][]byte{msg}
	if comm != nil {
		var err error
		if all, err = comm.AllGather(msg); err != nil {
			return nil, err
		}
	}
	rowPtr := make([]int64, n+1)
	stats := datasets.BuildStats{Entries: d.Stats.Entries}
	next := int64(0)
	for i, m := range all {
		if len(m) < 40 || int64(le.Uint64(m)) != int64(n) {
			return nil, fmt.Errorf("vertexprog: %s: process %d made rows of another graph than this one's %d vertices", d.Name, i, n)
		}
		plo, phi := int64(le.Uint64(m[8:])), int64(le.Uint64(m[16:]))
		if plo != next || phi < plo || phi > int64(n) || int64(len(m)) != 40+4*(phi-plo) {
			return nil, fmt.Errorf("vertexprog: %s: process %d made rows [%d, %d) after row %d: the processes' rows are not every row in order", d.Name, i, plo, phi, next)
		}
		stats.SelfLoops += int64(le.Uint64(m[24:]))
		stats.Duplicates += int64(le.Uint64(m[32:]))
		lens := m[40:]
		par.Blocks(int(phi-plo), func(_, x, y int) {
			for i := x; i < y; i++ {
				rowPtr[plo+int64(i)+1] = int64(le.Uint32(lens[4*i:]))
			}
		})
		next = phi
	}
	if next != int64(n) {
		return nil, fmt.Errorf("vertexprog: %s: the processes made rows up to %d of %d", d.Name, next, n)
	}
	par.PrefixSum(rowPtr)
	part := *d
	part.Stats = stats
	return datasets.NewRows(&part, rowPtr, lo, hi), nil
}

// RowsOf is the rows [lo, hi) that the parts of process rank of size
// hold in a run of parts parts a process (at least 1) over a graph of
// row offsets rowPtr: the partition SplitRows makes of every part.
func RowsOf(rowPtr []int64, parts, size, rank int) (lo, hi int32, err error) {
	parts = max(parts, 1)
	if size < 1 || rank < 0 || rank >= size {
		return 0, 0, fmt.Errorf("vertexprog: rank %d of %d processes", rank, size)
	}
	pt, err := SplitRows(rowPtr, parts*size)
	if err != nil {
		return 0, 0, err
	}
	return pt.Bounds[rank*parts], pt.Bounds[(rank+1)*parts], nil
}

// RowsHeld says which rows g holds: [lo, hi) and whether it is some
// (NewGraphRows), or [0, N) and false.
func (g *Graph) RowsHeld() (lo, hi int32, some bool) {
	if g.held == nil {
		return 0, int32(g.N()), false
	}
	return g.held.lo, g.held.hi, true
}

// rowPtr is the whole graph's row offsets.
func (g *Graph) rowPtr() []int64 {
	if g.held != nil {
		return g.held.rowPtr
	}
	return g.g.RowPtr
}

// wholeRows refuses what (something that reads every row) on a graph of
// some rows.
func (g *Graph) wholeRows(what string) error {
	if h := g.held; h != nil {
		return fmt.Errorf("%w: %s needs every row, and this process holds only rows [%d, %d) of %d (read the graph whole)", ErrRowsNotHeld, what, h.lo, h.hi, g.N())
	}
	return nil
}

// mustHold panics where v's row is not held.
func (g *Graph) mustHold(v int32) {
	if h := g.held; h != nil && (v < h.lo || v >= h.hi) {
		panic(fmt.Sprintf("vertexprog: row %d of a graph of which this process holds rows [%d, %d) only (NewGraphRows)", v, h.lo, h.hi))
	}
}

// partRows refuses, on a graph of some rows, parts [lo, hi) it does not
// hold; exact, that they are not exactly its rows (a process's parts of a
// run: RowsOf).
func (g *Graph) partRows(lo, hi int32, exact bool) error {
	if h := g.held; h != nil && (lo < h.lo || hi > h.hi || exact && (lo != h.lo || hi != h.hi)) {
		return fmt.Errorf("%w: parts of rows [%d, %d), and this process holds rows [%d, %d) (every process must run the parts it read: vertexprog.RowsOf)", ErrRowsNotHeld, lo, hi, h.lo, h.hi)
	}
	return nil
}

// splitRows is the row offsets a partitioned run along e is split by,
// and their arcs: the pull matrix's (whole), or a graph of some rows'
// own.
func (g *Graph) splitRows(e EdgeType, opt hyb.Options) ([]int64, int64, error) {
	if h := g.held; h != nil {
		return h.rowPtr, h.rowPtr[len(h.rowPtr)-1], nil
	}
	m, err := g.matrixFor(gatherRows(e), opt, false, nil)
	if err != nil {
		return nil, 0, err
	}
	return m.Src.RowPtr, m.NNZ(), nil
}
