package datasets

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/hpgraph/hpgraph/internal/huge"
	"github.com/hpgraph/hpgraph/internal/par"
)

// Build cleans an edge list into a CSR graph as opt says. It checks that
// every id is in range and every weight finite, so a Graph never holds an
// invalid arc whatever produced the list.
func Build(el *EdgeList, opt Options) (*Graph, error) {
	if el.N <= 0 {
		return nil, fmt.Errorf("%s: %w", el.Name, ErrEmptyGraph)
	}
	if el.N > math.MaxInt32 {
		return nil, fmt.Errorf("%s: %d vertices, at most %d are supported", el.Name, el.N, math.MaxInt32)
	}
	m := len(el.Src)
	if len(el.Dst) != m || (el.W != nil && len(el.W) != m) {
		return nil, fmt.Errorf("%s: edge list arrays differ in length (%d, %d, %d)", el.Name, m, len(el.Dst), len(el.W))
	}
	if err := checkEntries(el); err != nil {
		return nil, err
	}
	weight, err := weigher(opt, el.W)
	if err != nil {
		return nil, err
	}

	blocks := func(fn func(lo int, src, dst []int32)) {
		par.Blocks(m, func(_, lo, hi int) { fn(lo, el.Src[lo:hi], el.Dst[lo:hi]) })
	}
	g, err := build(el.N, m, blocks, weight, !el.Directed || opt.Symmetrize, opt)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", el.Name, err)
	}
	g.Name, g.IDs, g.IDBase = el.Name, el.IDs, el.IDBase
	return g.Relabel(opt.Relabel), nil
}

// EdgeStream is a graph's entries as blocks that can be made again (a
// seeded generator's): BuildStream reads them twice, counting the rows
// and then filling them, and never holds the list, so building takes the
// memory of the CSR alone (kron27: 19 GB, where the list adds 17).
type EdgeStream struct {
	N, M     int
	Directed bool
	Name     string
	// Blocks calls fn, concurrently, for blocks of entries that cover
	// [0, M) once; lo is the index of a block's first entry, and src and
	// dst (read only, valid during the call) its entries.
	Blocks func(fn func(lo int, src, dst []int32))
}

// BuildStream is Build for a stream of entries (without weights of their
// own: opt.Weights may be WeightsNone or WeightsRandom). Every entry is
// checked as Build checks them.
func BuildStream(es *EdgeStream, opt Options) (*Graph, error) {
	if es.N <= 0 {
		return nil, fmt.Errorf("%s: %w", es.Name, ErrEmptyGraph)
	}
	if es.N > math.MaxInt32 || es.M < 0 {
		return nil, fmt.Errorf("%s: %d vertices and %d entries; at most %d vertices are supported", es.Name, es.N, es.M, math.MaxInt32)
	}
	weight, err := weigher(opt, nil)
	if err != nil {
		return nil, err
	}
	g, err := build(es.N, es.M, es.Blocks, weight, !es.Directed || opt.Symmetrize, opt)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", es.Name, err)
	}
	g.Name = es.Name
	return g.Relabel(opt.Relabel), nil
}

// BuildStreamRows is rows [lo, hi) of the graph BuildStream builds from
// es: a part of a run over several processes, each of which makes its
// own from the same stream (vertexprog.GatherRows). The graph has es.N
// rows, every row outside [lo, hi) empty; its Stats are the part's
// (Entries every entry of the stream, each part reads all; SelfLoops and
// Duplicates those of its rows), so that the parts' add up to the whole
// graph's. It takes the memory of the part's CSR and the N+1 row
// offsets. opt.Relabel must be RelabelNone: with newID nil the rows are
// in the stream's order; else vertex v of the stream is vertex newID[v]
// (a permutation of [0, N): a renumbering every process computed alike,
// from StreamCounts), the rows are the new ids' and IDs map them back
// (random weights are the stream's ids', as a renumbered whole graph's).
func BuildStreamRows(es *EdgeStream, opt Options, newID []int32, lo, hi int) (*Graph, error) {
	if opt.Relabel != RelabelNone {
		return nil, fmt.Errorf("%s: rows of a graph are built in the stream's order or a given one; renumbering (%v) needs the whole graph", es.Name, opt.Relabel)
	}
	if lo < 0 || hi < lo || hi > es.N {
		return nil, fmt.Errorf("%s: rows [%d, %d) of a graph of %d vertices", es.Name, lo, hi, es.N)
	}
	if newID != nil && len(newID) != es.N {
		return nil, fmt.Errorf("%s: %d new ids for %d vertices", es.Name, len(newID), es.N)
	}
	weight, err := weigher(opt, nil)
	if err != nil {
		return nil, err
	}
	a := newArcBuilder(es.N, weight != nil, int32(lo), int32(hi))
	a.newID = newID
	g, err := a.build(es.M, es.Blocks, weight, !es.Directed || opt.Symmetrize, opt)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", es.Name, err)
	}
	g.Name = es.Name
	if newID != nil {
		g.IDs = make([]int64, es.N)
		par.Blocks(es.N, func(_, x, y int) {
			for v := x; v < y; v++ {
				g.IDs[newID[v]] = int64(v)
			}
		})
	}
	return g, nil
}

// StreamCounts is the row offsets (N+1) of the arcs BuildStream makes
// from es before it merges duplicates: what a run over several processes
// splits the rows by before any of them has built its own (within a few
// percent of the merged graph's offsets on GAP's generators).
func StreamCounts(es *EdgeStream, opt Options) ([]int64, error) {
	a := newArcBuilder(es.N, false, 0, int32(es.N))
	if _, err := a.count(es.Blocks, !es.Directed || opt.Symmetrize, opt.KeepSelfLoops); err != nil {
		return nil, fmt.Errorf("%s: %w", es.Name, err)
	}
	par.PrefixSum(a.rowPtr)
	return a.rowPtr, nil
}

// weigher is the weight of entry i from s to d that opt asks for (nil:
// none), given the input's own weights w (nil: none).
func weigher(opt Options, w []float32) (func(i int, s, d int32) float32, error) {
	switch opt.Weights {
	case WeightsKeep:
		if w != nil {
			return func(i int, _, _ int32) float32 { return w[i] }, nil
		}
		return nil, nil
	case WeightsNone:
		return nil, nil
	case WeightsRandom:
		if opt.WeightMin > opt.WeightMax || opt.WeightMin < 0 {
			return nil, fmt.Errorf("random weights: range %d-%d is empty or negative", opt.WeightMin, opt.WeightMax)
		}
		lo, span := uint64(opt.WeightMin), uint64(opt.WeightMax-opt.WeightMin+1)
		return func(_ int, s, d int32) float32 { return pairWeight(s, d, opt.Seed, lo, span) }, nil
	}
	return nil, fmt.Errorf("unknown weight mode %d", opt.Weights)
}

// build makes the CSR of m entries given in blocks (checked to lie in
// [0, n)) with the cleaning of opt; weight, when not nil, weighs entry i.
func build(n, m int, blocks func(fn func(lo int, src, dst []int32)), weight func(int, int32, int32) float32, undirected bool, opt Options) (*Graph, error) {
	return newArcBuilder(n, weight != nil, 0, int32(n)).build(m, blocks, weight, undirected, opt)
}

// build makes the CSR of a's rows from the m entries in blocks.
func (a *arcBuilder) build(m int, blocks func(fn func(lo int, src, dst []int32)), weight func(int, int32, int32) float32, undirected bool, opt Options) (*Graph, error) {
	loops, err := a.count(blocks, undirected, opt.KeepSelfLoops)
	if err != nil {
		return nil, err
	}
	a.allocate()
	a.fill(blocks, weight, undirected, opt.KeepSelfLoops)
	dups := a.sortRows(!opt.KeepDuplicates)
	return &Graph{N: a.n, RowPtr: a.rowPtr, Col: a.col, W: a.w, Directed: !undirected,
		Stats: BuildStats{Entries: int64(m), SelfLoops: loops, Duplicates: dups}, RepeatFree: !opt.KeepDuplicates}, nil
}

func checkEntries(el *EdgeList) error {
	bad := make([]int64, par.Workers())
	for i := range bad {
		bad[i] = -1
	}
	par.Blocks(len(el.Src), func(w, lo, hi int) {
		n := int32(el.N)
		for i := lo; i < hi; i++ {
			if uint32(el.Src[i]) >= uint32(n) || uint32(el.Dst[i]) >= uint32(n) || (el.W != nil && !finite(el.W[i])) {
				bad[w] = int64(i)
				return
			}
		}
	})
	for _, i := range bad {
		if i >= 0 {
			if el.W != nil && !finite(el.W[i]) {
				return fmt.Errorf("%s: entry %d has weight %v; weights must be finite", el.Name, i+1, el.W[i])
			}
			return fmt.Errorf("%s: entry %d (%d, %d) is outside [0, %d)", el.Name, i+1, el.Src[i], el.Dst[i], el.N)
		}
	}
	return nil
}

func finite(w float32) bool { return !math.IsNaN(float64(w)) && !math.IsInf(float64(w), 0) }

// pairWeight hashes the unordered pair {s, d} with the seed (splitmix64) to
// an integer in [lo, lo+span).
func pairWeight(s, d int32, seed, lo, span uint64) float32 {
	if s > d {
		s, d = d, s
	}
	z := (uint64(uint32(s))<<32 | uint64(uint32(d))) ^ (seed * 0x9e3779b97f4a7c15)
	z += 0x9e3779b97f4a7c15
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	z ^= z >> 31
	return float32(lo + z%span)
}

// Transpose returns the graph with every arc reversed (row v lists the tails
// u of the arcs u -> v, in increasing order, parallel arcs by increasing
// weight): the in-edges. An undirected graph is its own transpose and is
// returned as is.
//
// Two passes of a bucket sort that need no sort of a row after them, and
// whose writes stay in cache. The heads are cut into buckets of about 64K
// arcs (transposeShift), whose rows lie together. The first pass writes
// every arc's tail and weight where its bucket's rows will be, each block
// of rows after the blocks before it, so a bucket holds its tails in
// increasing order, and the head's place in its bucket beside them (2
// bytes an arc, all the memory it takes besides the result); the second
// counts each bucket's heads and moves its tails, in order, into their
// rows (on a 2-core machine, kron20's directed transpose: 1.3 s with an
// atomic cursor per head and a sort of every row; 0.7 s in one counting
// pass writing straight into the rows; 0.25 s so).
func (g *Graph) Transpose() *Graph {
	if !g.Directed {
		return g
	}
	n, m := g.N, g.NNZ()
	shift := transposeShift(n, m)
	nb := n>>shift + 1
	p := par.Workers()
	bounds := par.Split(n, p, func(i int) int64 { return g.RowPtr[i] })
	// at[b*nb+k]: block b's arcs into bucket k, then where its next goes
	// (buckets in order, blocks in order within each).
	at := make([]int64, p*nb)
	par.Parts(bounds, func(b, lo, hi int) {
		cnt := at[b*nb : (b+1)*nb]
		for _, c := range g.Col[g.RowPtr[lo]:g.RowPtr[hi]] {
			cnt[c>>shift]++
		}
	})
	start := make([]int64, nb+1) // bucket k's arcs: [start[k], start[k+1])
	for k := range nb {
		s := start[k]
		for b := range p {
			s, at[b*nb+k] = s+at[b*nb+k], s
		}
		start[k+1] = s
	}
	t := &Graph{Name: g.Name + " (transposed)", N: n, RowPtr: make([]int64, n+1), Col: huge.Make[int32](int(m)),
		Directed: true, IDs: g.IDs, IDBase: g.IDBase, Stats: g.Stats, RepeatFree: g.RepeatFree}
	if g.W != nil {
		t.W = huge.Make[float32](int(m))
	}
	low := make([]uint16, m) // the head's place in its bucket
	mask := int32(1)<<shift - 1
	par.Parts(bounds, func(b, lo, hi int) {
		next := at[b*nb : (b+1)*nb]
		for u := lo; u < hi; u++ {
			for i := g.RowPtr[u]; i < g.RowPtr[u+1]; i++ {
				c := g.Col[i]
				k := next[c>>shift]
				next[c>>shift]++
				t.Col[k], low[k] = int32(u), uint16(c&mask)
				if t.W != nil {
					t.W[k] = g.W[i]
				}
			}
		}
	})
	// Each worker claims the next bucket (a hub's may take long), with
	// buffers of its own.
	var claimed atomic.Int64
	par.Parts(bounds, func(int, int, int) {
		var next []int64
		var tails []int32
		var ws []float32
		for k := int(claimed.Add(1) - 1); k < nb; k = int(claimed.Add(1) - 1) {
			first := k << shift
			last := min(first+1<<shift, n) // heads [first, last)
			if first >= last {
				continue
			}
			s, e := start[k], start[k+1]
			// next[h]: where the next tail of head first+h goes.
			next = slices.Grow(next[:0], last-first+1)[:last-first+1]
			clear(next)
			for _, h := range low[s:e] {
				next[int(h)+1]++ // (h+1 would wrap at 2^16)
			}
			next[0] = s
			for i := 1; i < len(next); i++ {
				next[i] += next[i-1]
			}
			copy(t.RowPtr[first+1:last+1], next[1:]) // (rows end where the next start)
			tails = append(tails[:0], t.Col[s:e]...)
			if t.W != nil {
				ws = append(ws[:0], t.W[s:e]...)
			}
			for r, h := range low[s:e] {
				q := next[h]
				next[h]++
				t.Col[q] = tails[r]
				if t.W != nil {
					t.W[q] = ws[r]
				}
			}
		}
	})
	if t.W != nil && !g.RepeatFree {
		// Parallel arcs keep their out-row's order, by weight where the
		// graph was built here; a graph from elsewhere may list them in any
		// order.
		par.Blocks(n, func(_, lo, hi int) {
			for v := lo; v < hi; v++ {
				sortParallelWeights(t.Col[t.RowPtr[v]:t.RowPtr[v+1]], t.W[t.RowPtr[v]:t.RowPtr[v+1]])
			}
		})
	}
	return t
}

// transposeShift is log2 of the heads of a bucket of Transpose: about
// 64K arcs' worth at the graph's mean in-degree (their rows, 256 KB, stay
// in a core's cache while the bucket's tails are placed), at most 2^16
// (a head's place in its bucket is 2 bytes).
func transposeShift(n int, m int64) int {
	perHead := max(1, m/int64(max(n, 1)))
	return min(16, max(6, bits.Len64(uint64(64<<10/perHead))-1))
}

// sortParallelWeights sorts the weights of each run of equal columns of a
// sorted row by value.
func sortParallelWeights(col []int32, w []float32) {
	for i := 0; i < len(col); {
		j := i + 1
		for j < len(col) && col[j] == col[i] {
			j++
		}
		if j-i > 1 {
			slices.Sort(w[i:j])
		}
		i = j
	}
}

// arcBuilder is a two-pass counting sort of arcs by tail into CSR: of the
// tails in [lo, hi) (every row, or a part's), the other rows left empty.
type arcBuilder struct {
	n        int
	lo, hi   int32
	newID    []int32 // the entries' vertices renumbered (BuildStreamRows), or nil
	weighted bool
	rowPtr   []int64
	col      []int32
	w        []float32
}

func newArcBuilder(n int, weighted bool, lo, hi int32) *arcBuilder {
	return &arcBuilder{n: n, lo: lo, hi: hi, weighted: weighted, rowPtr: make([]int64, n+1)}
}

// count tallies the out-degree of every tail it holds into rowPtr[v+1]
// and returns the number of self loops skipped there, or the first entry
// found outside [0, n) (checked here too: a stream's entries are seen
// nowhere else). (allocate then makes the arrays.)
func (a *arcBuilder) count(blocks func(fn func(lo int, src, dst []int32)), undirected, keepLoops bool) (int64, error) {
	var loops atomic.Int64
	bad := atomic.Int64{}
	bad.Store(math.MaxInt64)
	deg := a.rowPtr[1:]
	n := uint32(a.n)
	ids, rlo, rhi := a.newID, a.lo, a.hi // (the rows it makes: v in [rlo, rhi))
	blocks(func(lo int, src, dst []int32) {
		var l int64
		for i, s := range src {
			d := dst[i]
			if uint32(s) >= n || uint32(d) >= n {
				for b := bad.Load(); int64(lo+i) < b && !bad.CompareAndSwap(b, int64(lo+i)); b = bad.Load() {
				}
				return
			}
			if ids != nil {
				s, d = ids[s], ids[d]
			}
			if s == d {
				if s < rlo || s >= rhi {
					continue
				}
				if !keepLoops {
					l++
					continue
				}
				atomic.AddInt64(&deg[s], 1)
				continue
			}
			if s >= rlo && s < rhi {
				atomic.AddInt64(&deg[s], 1)
			}
			if undirected && d >= rlo && d < rhi {
				atomic.AddInt64(&deg[d], 1)
			}
		}
		loops.Add(l)
	})
	if b := bad.Load(); b != math.MaxInt64 {
		return 0, fmt.Errorf("entry %d has an endpoint outside [0, %d)", b+1, a.n)
	}
	return loops.Load(), nil
}

// allocate turns the degrees in rowPtr[1:] into offsets and makes the arrays.
func (a *arcBuilder) allocate() {
	for v := 0; v < a.n; v++ {
		a.rowPtr[v+1] += a.rowPtr[v]
	}
	a.col = make([]int32, a.rowPtr[a.n])
	if a.weighted {
		a.w = make([]float32, a.rowPtr[a.n])
	}
}

// fill places every arc in its row (allocate made the rows), in no
// particular order within a row (sortRows orders them): by buckets of rows
// (fillBuckets) where the arcs are few enough for its staging, else one
// by one (fillDirect).
func (a *arcBuilder) fill(blocks func(fn func(lo int, src, dst []int32)), weight func(int, int32, int32) float32, undirected, keepLoops bool) {
	if a.rowPtr[a.n] <= fillBucketsMax {
		a.fillBuckets(blocks, weight, undirected, keepLoops)
		return
	}
	a.fillDirect(blocks, weight, undirected, keepLoops)
}

// fillBucketsMax is the most arcs fillBuckets stages (2 bytes an arc
// beside the CSR: 4 GB at most); beyond it fillDirect, which stages
// nothing, places them.
var fillBucketsMax int64 = 1 << 31

// fillDirect places each arc at its row's next place, an atomic add on
// the row's cursor and a store at a random place in col: a cache miss an
// arc, and contended adds on the hubs' cursors.
func (a *arcBuilder) fillDirect(blocks func(fn func(lo int, src, dst []int32)), weight func(int, int32, int32) float32, undirected, keepLoops bool) {
	cursor := slices.Clone(a.rowPtr[:a.n])
	rlo, rhi := a.lo, a.hi
	put := func(s, d int32, w float32) {
		if s < rlo || s >= rhi {
			return
		}
		p := atomic.AddInt64(&cursor[s], 1) - 1
		a.col[p] = d
		if a.w != nil {
			a.w[p] = w
		}
	}
	blocks(func(lo int, src, dst []int32) { a.arcs(lo, src, dst, weight, undirected, keepLoops, put) })
}

// arcs calls put for every arc that the entries src, dst (the first
// entry lo) make: each entry's tail to head, and head to tail where
// undirected, in the rows' ids; self loops only where kept; weighed by
// weight (nil: 0).
func (a *arcBuilder) arcs(lo int, src, dst []int32, weight func(int, int32, int32) float32, undirected, keepLoops bool, put func(s, d int32, w float32)) {
	ids := a.newID
	for k, s := range src {
		d := dst[k]
		if s == d && !keepLoops {
			continue
		}
		var w float32
		if weight != nil {
			w = weight(lo+k, s, d) // (the entry's own ids)
		}
		if ids != nil {
			s, d = ids[s], ids[d]
		}
		put(s, d, w)
		if undirected && s != d {
			put(d, s, w)
		}
	}
}

// fillBuckets places the arcs in two passes. The first appends each arc
// to its bucket of 1<<shift rows, whose arcs lie together in col: each
// worker gathers a bucket's arcs in a small buffer and moves them on in
// runs (one atomic add a run), the low bits of its row (its tail) staged in
// low. The second puts each bucket's arcs in their rows, a bucket at a
// time, in a span of col that stays in the core's cache. On two cores
// (a VM), 31M arcs of a skewed graph: 3.2-3.6 s one by one (fillDirect),
// 0.25-0.27 s so (session 40).
func (a *arcBuilder) fillBuckets(blocks func(fn func(lo int, src, dst []int32)), weight func(int, int32, int32) float32, undirected, keepLoops bool) {
	n, arcs := a.n, a.rowPtr[a.n]
	if arcs == 0 {
		return
	}
	// Buckets of about 256K arcs (1 MB of col), at most 1<<16 rows (the
	// low bits fit a uint16); a worker's buffers about 1 MB in all.
	rows := min(max(int64(1)<<18*int64(n)/arcs, 1), 1<<16)
	shift := bits.Len64(uint64(rows)) - 1
	nb := (n-1)>>shift + 1
	run := min(max((1<<20)/(nb*10), 16), 256)
	next := make([]int64, nb) // (a bucket's next place in col)
	for b := range next {
		next[b] = a.rowPtr[b<<shift]
	}
	low := make([]uint16, arcs)
	mask := int32(1)<<shift - 1
	rlo, rhi := a.lo, a.hi
	type buffers struct {
		cnt []int
		d   []int32
		low []uint16
		w   []float32
	}
	// (a stream's blocks are many, 256K entries each for GAP's
	// generators: a block's buffers come back for the next)
	pool := sync.Pool{New: func() any {
		bf := &buffers{cnt: make([]int, nb), d: make([]int32, nb*run), low: make([]uint16, nb*run)}
		if a.w != nil {
			bf.w = make([]float32, nb*run)
		}
		return bf
	}}
	blocks(func(lo int, src, dst []int32) {
		bf := pool.Get().(*buffers)
		defer pool.Put(bf)
		cnt, bd, bl, bw := bf.cnt, bf.d, bf.low, bf.w
		flush := func(b int) {
			k := cnt[b]
			p := atomic.AddInt64(&next[b], int64(k)) - int64(k)
			copy(a.col[p:p+int64(k)], bd[b*run:b*run+k])
			copy(low[p:p+int64(k)], bl[b*run:b*run+k])
			if bw != nil {
				copy(a.w[p:p+int64(k)], bw[b*run:b*run+k])
			}
			cnt[b] = 0
		}
		put := func(s, d int32, w float32) {
			if s < rlo || s >= rhi {
				return
			}
			b := int(s >> shift)
			k := cnt[b]
			bd[b*run+k], bl[b*run+k] = d, uint16(s&mask)
			if bw != nil {
				bw[b*run+k] = w
			}
			if cnt[b] = k + 1; k+1 == run {
				flush(b)
			}
		}
		a.arcs(lo, src, dst, weight, undirected, keepLoops, put)
		for b, k := range cnt {
			if k > 0 {
				flush(b)
			}
		}
	})
	type scratch struct {
		col  []int32
		w    []float32
		next []int64
	}
	scr := make([]scratch, par.Workers())
	bounds := make([]int, nb+1)
	for b := range bounds {
		bounds[b] = b
	}
	par.DynamicW(bounds, func(wk, b0, b1 int) {
		sc := &scr[wk]
		for b := b0; b < b1; b++ {
			r0, r1 := b<<shift, min((b+1)<<shift, n)
			p0, p1 := a.rowPtr[r0], a.rowPtr[r1]
			if p0 == p1 {
				continue
			}
			sc.col = append(sc.col[:0], a.col[p0:p1]...)
			if a.w != nil {
				sc.w = append(sc.w[:0], a.w[p0:p1]...)
			}
			sc.next = append(sc.next[:0], a.rowPtr[r0:r1]...)
			for i, l := range low[p0:p1] {
				q := sc.next[l]
				sc.next[l] = q + 1
				a.col[q] = sc.col[i]
				if a.w != nil {
					a.w[q] = sc.w[i]
				}
			}
		}
	})
}

// sortRows sorts every row by (column, weight) and, with dedup, keeps the
// first of each run of equal columns (the lightest arc, as GAP does). It
// returns the number of arcs removed.
func (a *arcBuilder) sortRows(dedup bool) int64 {
	p := par.Workers()
	bounds := par.Split(a.n, p, func(i int) int64 { return a.rowPtr[i] })
	newLen := make([]int64, a.n+1)
	digits := max(1, (bits.Len32(uint32(max(a.n-1, 0)))+radixBits-1)/radixBits)
	par.Parts(bounds, func(_, lo, hi int) {
		var sc rowScratch
		for v := lo; v < hi; v++ {
			s, e := a.rowPtr[v], a.rowPtr[v+1]
			cols := a.col[s:e]
			var ws []float32
			if a.w != nil {
				ws = a.w[s:e]
			}
			sortRow(cols, ws, &sc, digits)
			k := len(cols)
			if dedup && k > 1 {
				k = 1
				for i := 1; i < len(cols); i++ {
					if cols[i] != cols[k-1] {
						cols[k] = cols[i]
						if ws != nil {
							ws[k] = ws[i]
						}
						k++
					}
				}
			}
			newLen[v+1] = int64(k)
		}
	})
	if !dedup {
		return 0
	}
	for v := 0; v < a.n; v++ {
		newLen[v+1] += newLen[v]
	}
	removed := a.rowPtr[a.n] - newLen[a.n]
	if removed == 0 {
		return 0
	}
	// Rows only move towards the front, so a forward pass never overwrites
	// a row it has not copied yet.
	for v := 0; v < a.n; v++ {
		s, d, k := a.rowPtr[v], newLen[v], newLen[v+1]-newLen[v]
		copy(a.col[d:d+k], a.col[s:s+k])
		if a.w != nil {
			copy(a.w[d:d+k], a.w[s:s+k])
		}
	}
	a.rowPtr = newLen
	a.col = slices.Clip(a.col[:newLen[a.n]])
	if a.w != nil {
		a.w = slices.Clip(a.w[:newLen[a.n]])
	}
	return removed
}

// radixRowMin is the shortest row sortRow orders by radix passes, and
// radixBits a pass's digit: a row of a few hundred columns or more takes
// a pass over it per 11 bits of the vertex ids (two for 4M vertices)
// where a comparison sort takes log2 of its length, at a branch each it
// cannot predict (sorting kron-like rows, 2 cores: 10.0 s by
// slices.Sort, 2.8 s with the rows of 256 or more by radix; session 40).
const (
	radixRowMin = 256
	radixBits   = 11
)

// rowScratch is a worker's buffers for sortRow.
type rowScratch struct {
	c []int32
	w []float32
	k []uint64
}

// orderedBits maps a float32 to a uint32 in the same order (negatives
// below positives, -0 just below +0); fromOrderedBits undoes it.
func orderedBits(f float32) uint32 {
	b := math.Float32bits(f)
	if b>>31 == 0 {
		return b | 1<<31
	}
	return ^b
}

func fromOrderedBits(k uint32) float32 {
	if k>>31 == 1 {
		return math.Float32frombits(k &^ (1 << 31))
	}
	return math.Float32frombits(^k)
}

// sortRow sorts a row's columns and their weights (ws, or nil) by
// (column, weight): short rows by comparisons, long ones by digits
// passes of radixBits, stable, then each run of one column's weights.
func sortRow(cols []int32, ws []float32, sc *rowScratch, digits int) {
	if len(cols) < radixRowMin {
		if ws == nil {
			slices.Sort(cols)
			return
		}
		// (column, weight) as one key each (sort.Sort's interface calls a
		// comparison took a fifth of a weighted kron20 .el's load)
		sc.k = sc.k[:0]
		for i, c := range cols {
			sc.k = append(sc.k, uint64(uint32(c))<<32|uint64(orderedBits(ws[i])))
		}
		slices.Sort(sc.k)
		for i, k := range sc.k {
			cols[i], ws[i] = int32(k>>32), fromOrderedBits(uint32(k))
		}
		return
	}
	sc.c = slices.Grow(sc.c[:0], len(cols))[:len(cols)]
	if ws != nil {
		sc.w = slices.Grow(sc.w[:0], len(ws))[:len(ws)]
	}
	weighted := ws != nil
	src, dst := cols, sc.c
	sw, dw := ws, sc.w[:len(ws)]
	var count [1 << radixBits]int
	for d := range digits {
		shift := uint(d * radixBits)
		clear(count[:])
		for _, x := range src {
			count[uint32(x)>>shift&(1<<radixBits-1)]++
		}
		at := 0
		for i, c := range count {
			count[i] = at
			at += c
		}
		for i, x := range src {
			k := uint32(x) >> shift & (1<<radixBits - 1)
			dst[count[k]] = x
			if weighted {
				dw[count[k]] = sw[i]
			}
			count[k]++
		}
		src, dst, sw, dw = dst, src, dw, sw
	}
	if digits%2 == 1 { // (the sorted row is in the scratch)
		copy(cols, src)
		copy(ws, sw)
	}
	if weighted {
		sortParallelWeights(cols, ws)
	}
}
