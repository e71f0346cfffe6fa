package datasets

import (
	"cmp"
	"fmt"
	"slices"
	"sync/atomic"

	"github.com/hpgraph/hpgraph/internal/par"
)

// Relabeling is a vertex order Build can renumber a graph into.
type Relabeling int

const (
	// RelabelNone keeps the input's order.
	RelabelNone Relabeling = iota
	// RelabelDegree numbers vertices by decreasing degree (ties keep the
	// input's order): on skewed graphs the few vertices that most arcs
	// point to then sit together, so the values a kernel reads through
	// random column indices share cache lines.
	RelabelDegree
	// RelabelAuto is RelabelDegree for graphs whose degrees are skewed
	// (Skewed), RelabelNone for the rest: a grid or road network keeps
	// its own order, whose neighbours are already near each other.
	RelabelAuto
)

var relabelNames = []string{"none", "degree", "auto"}

func (r Relabeling) String() string {
	if int(r) < len(relabelNames) {
		return relabelNames[r]
	}
	return fmt.Sprintf("Relabeling(%d)", int(r))
}

// ParseRelabeling reads "none", "degree" or "auto".
func ParseRelabeling(s string) (Relabeling, error) {
	if s == "" {
		return RelabelNone, nil
	}
	for i, name := range relabelNames {
		if s == name {
			return Relabeling(i), nil
		}
	}
	return RelabelNone, fmt.Errorf("relabel %q: want none, degree or auto", s)
}

// Skewed reports whether g's out-degrees are skewed enough for
// RelabelAuto to renumber it: at least 8 arcs per vertex on average, and
// the mean degree over 1.3 times the median (GAP's test for relabelling
// before triangle counting, on every vertex instead of a sample).
func Skewed(g *Graph) bool {
	if g.N == 0 || g.NNZ() < 8*int64(g.N) {
		return false
	}
	// The median from a histogram of the degrees up to the mean: the
	// median of a skewed graph lies below it.
	mean := float64(g.NNZ()) / float64(g.N)
	size := int(1.3*mean) + 2
	hists := make([][]int, par.Workers())
	par.Blocks(g.N, func(w, lo, hi int) {
		h := make([]int, size)
		for v := lo; v < hi; v++ {
			h[min(g.Degree(int32(v)), size-1)]++
		}
		hists[w] = h
	})
	hist := make([]int, size)
	for _, h := range hists {
		for d, c := range h {
			hist[d] += c
		}
	}
	seen := 0
	for d, c := range hist {
		if seen += c; seen > g.N/2 {
			return mean > 1.3*float64(d) // the (N/2)-th smallest degree is d (or more, in the last bucket)
		}
	}
	return false
}

// Resolve is the order r gives g: RelabelAuto becomes RelabelDegree or
// RelabelNone.
func (r Relabeling) Resolve(g *Graph) Relabeling {
	if r == RelabelAuto {
		if Skewed(g) {
			return RelabelDegree
		}
		return RelabelNone
	}
	return r
}

// Relabel returns g with its vertices renumbered in order r (g itself for
// RelabelNone, or when g is in that order already). Original ids travel
// along (IDs), so output written through OriginalID and sources given in
// the input's ids mean what they meant.
func (g *Graph) Relabel(r Relabeling) *Graph { return g.RelabelParts(r, 1) }

// RelabelParts is Relabel for a graph that runs split into parts
// contiguous ranges of about equal work: the degree order interleaved
// over them (InterleaveParts), so that each range holds every parts-th
// vertex of it, by decreasing degree again, instead of the first range
// holding every hub and the last every vertex without arcs.
func (g *Graph) RelabelParts(r Relabeling, parts int) *Graph {
	if r.Resolve(g) != RelabelDegree {
		return g
	}
	order := DegreeOrder(g)
	InterleaveParts(order, parts)
	for v, nv := range order {
		if int32(v) != nv {
			return g.Permute(order)
		}
	}
	return g // already in that order
}

// MaxDegree is the longest row's length (0 for no vertices), on every
// core.
func (g *Graph) MaxDegree() int {
	most := make([]int64, par.Workers())
	par.Blocks(g.N, func(w, lo, hi int) {
		m := int64(0) // (a local: workers' slots share cache lines)
		for v := lo; v < hi; v++ {
			m = max(m, g.RowPtr[v+1]-g.RowPtr[v])
		}
		most[w] = m
	})
	return int(slices.Max(most))
}

// DegreeOrder returns the new id of every vertex when numbered by
// decreasing out-degree, ties by increasing old id: a counting sort on
// every core, each block of vertices counting its own degrees below
// degreeBuckets (the vertices of larger degrees, few, are sorted apart
// and numbered first).
func DegreeOrder(g *Graph) []int32 {
	n := g.N
	newID := make([]int32, n)
	if n == 0 {
		return newID
	}
	p := par.Workers()
	counts := make([][]int64, p) // counts[w][d]: block w's vertices of degree d < degreeBuckets
	highs := make([][]int32, p)  // block w's vertices of larger degree, in order
	par.Blocks(n, func(w, lo, hi int) {
		c := make([]int64, degreeBuckets)
		var h []int32
		for v := lo; v < hi; v++ {
			if d := g.RowPtr[v+1] - g.RowPtr[v]; d < degreeBuckets {
				c[d]++
			} else {
				h = append(h, int32(v))
			}
		}
		counts[w], highs[w] = c, h
	})
	high := slices.Concat(highs...) // (by increasing id: the blocks in order)
	slices.SortStableFunc(high, func(a, b int32) int { return cmp.Compare(g.Degree(b), g.Degree(a)) })
	for i, v := range high {
		newID[v] = int32(i)
	}
	// start[w][d]: block w's first new id of degree d, the degrees
	// decreasing and the blocks in order within each.
	next := int64(len(high))
	for d := degreeBuckets - 1; d >= 0; d-- {
		for w := range counts {
			if counts[w] == nil {
				continue
			}
			c := counts[w][d]
			counts[w][d] = next
			next += c
		}
	}
	par.Blocks(n, func(w, lo, hi int) {
		start := counts[w]
		for v := lo; v < hi; v++ {
			if d := g.RowPtr[v+1] - g.RowPtr[v]; d < degreeBuckets {
				newID[v] = int32(start[d])
				start[d]++
			}
		}
	})
	return newID
}

// degreeBuckets bounds the degrees DegreeOrder counts per block of
// vertices (a block's counts are 8 bytes a degree).
const degreeBuckets = 1 << 12

// InterleaveParts renumbers ids (a permutation of [0, n), new ids by
// rank, DegreeOrder's) over parts ranges: rank r goes to range r mod
// parts, in rank order there, range p holding the ranks r with r mod
// parts = p, the ranges in order. A split of the result into parts
// ranges by work (vertexprog.SplitRows) then gives each part about 1/parts
// of the rows and of the arcs, hubs and vertices without arcs alike: split
// by degree order, kron26's hubs' part held 3% of its rows and 75% of its
// arcs, and the other part's many rows took most of a search's time
// (docs/parts.md). parts <= 1 changes nothing.
func InterleaveParts(ids []int32, parts int) {
	if parts <= 1 || len(ids) < 2 {
		return
	}
	f := interleave(len(ids), parts)
	par.Blocks(len(ids), func(_, lo, hi int) {
		for v := lo; v < hi; v++ {
			ids[v] = f(ids[v])
		}
	})
}

// InterleaveOrder is InterleaveParts for order, the old id of each rank
// (the inverse of DegreeOrder's): the old id of each new id.
func InterleaveOrder(order []int32, parts int) []int32 {
	if parts <= 1 || len(order) < 2 {
		return order
	}
	f := interleave(len(order), parts)
	out := make([]int32, len(order))
	par.Blocks(len(order), func(_, lo, hi int) {
		for r := lo; r < hi; r++ {
			out[f(int32(r))] = order[r]
		}
	})
	return out
}

// interleave is InterleaveParts's new id of rank r, of n in parts ranges.
func interleave(n, parts int) func(r int32) int32 {
	start := make([]int32, parts) // range p's first new id: the ranks before it
	for p := 1; p < parts; p++ {
		start[p] = start[p-1] + int32((n-(p-1)+parts-1)/parts)
	}
	return func(r int32) int32 { return start[int(r)%parts] + r/int32(parts) }
}

// Permute returns g with vertex v renumbered newID[v]; newID must be a
// permutation of [0, N). Rows stay sorted, weights follow their arcs
// (arcs of equal column, parallel arcs, keep their order in the input's
// row), and IDs map the new numbers back to the input's ids.
//
// Rows are not sorted one by one: they are built sorted, by scattering
// the arcs into their new rows in increasing order of their new column (a
// counting sort by column, then by row). Visiting the columns in order
// means visiting the transpose's rows in order: an undirected graph is its
// own transpose (its CSR is symmetric, with the same weight both ways, as
// Build makes it), so one scatter of its rows, taken in new order, makes
// the result; a directed graph takes two, through the renumbered
// transpose.
func (g *Graph) Permute(newID []int32) *Graph {
	n := g.N
	old := make([]int32, n) // old[new] = v
	par.Blocks(n, func(_, lo, hi int) {
		for v, nv := range newID[lo:hi] {
			old[nv] = int32(lo + v)
		}
	})
	p := &Graph{Name: g.Name, N: n, RowPtr: make([]int64, n+1), Col: make([]int32, len(g.Col)),
		Directed: g.Directed, IDs: make([]int64, n), Stats: g.Stats, RepeatFree: g.RepeatFree}
	if g.W != nil {
		p.W = make([]float32, len(g.W))
	}
	par.Blocks(n, func(_, lo, hi int) {
		for nv := lo; nv < hi; nv++ {
			v := old[nv]
			p.RowPtr[nv+1] = int64(g.Degree(v))
			p.IDs[nv] = g.OriginalID(v)
		}
	})
	par.PrefixSum(p.RowPtr)
	if !g.Directed {
		// Row k of the result is, in the transpose, column k: it receives
		// the new id of every vertex that has an arc into old[k], which is
		// every neighbour of old[k]. g's columns are renumbered first, in
		// g's layout, into p.Col: scatter reads them all before it writes
		// p.Col.
		mapColumns(g.Col, newID, p.Col)
		scatter(csr{rowPtr: g.RowPtr, col: p.Col, w: g.W, order: old, visitPtr: p.RowPtr}, p.RowPtr, p.Col, p.W)
		return p
	}
	// The transpose t, renumbered: row newID[c] lists newID[v] for every
	// arc v -> c (rows v visited in input order, so parallel arcs keep
	// their order), its columns renumbered in place first.
	t := csr{rowPtr: make([]int64, n+1), col: make([]int32, len(g.Col))}
	if g.W != nil {
		t.w = make([]float32, len(g.W))
	}
	mapColumns(g.Col, newID, t.col)
	inDegrees(t.col, t.rowPtr)
	par.PrefixSum(t.rowPtr)
	scatter(csr{rowPtr: g.RowPtr, col: t.col, w: g.W, label: newID}, t.rowPtr, t.col, t.w)
	// The transpose of t, its rows visited in increasing order: the result.
	scatter(t, p.RowPtr, p.Col, p.W)
	return p
}

// mapColumns sets out[i] = newID[col[i]].
func mapColumns(col, newID, out []int32) {
	par.Blocks(len(col), func(_, lo, hi int) {
		for i, c := range col[lo:hi] {
			out[lo+i] = newID[c]
		}
	})
}

// csr is the source of a scatter: rows rowPtr, col and w (w may be nil)
// visited in the order order (nil: 0, 1, ...), the k-th visited row
// labelled label[k] (nil: k). visitPtr is the running sum of the sizes of
// the rows in visiting order (nil: rowPtr, when order is nil).
type csr struct {
	rowPtr       []int64
	col          []int32
	w            []float32
	order, label []int32
	visitPtr     []int64
}

// scatterBucketArcs is the arcs a bucket of the scatter's first level
// holds on average: its second level's reads and writes (12 bytes an arc)
// then stay in the L2 cache. The number of buckets is kept between 256
// and 4096: few enough that every goroutine's first-level write positions,
// one per bucket, stay in its L1 or L2 cache and TLB.
var scatterBucketArcs int64 = 1 << 16

// scatter appends, for every arc r -> c of src visited in order, the
// label of r to row c of the result (dstRowPtr, dstCol, dstW), so each
// result row lists its labels in the order of the visits: sorted, when
// labels increase along the visits.
//
// A scatter straight into the rows writes every arc to a different cache
// line. Instead it goes in two levels, as a radix sort's: the arcs are
// first scattered, as (label, row) pairs, to buckets of consecutive result
// rows (of about equal arcs), then every bucket, which fits in cache, to
// its rows. Goroutines take the first level in contiguous ranges of visits
// and write at offsets from their counts of arcs per bucket, the second
// level a bucket at a time: the order of the visits is kept, so the result
// does not depend on the number of cores.
func scatter(src csr, dstRowPtr []int64, dstCol []int32, dstW []float32) {
	n := len(src.rowPtr) - 1
	nnz := dstRowPtr[n]
	if nnz == 0 {
		return
	}
	visitPtr := src.visitPtr
	if visitPtr == nil {
		visitPtr = src.rowPtr
	}
	workers := par.Workers()
	if nnz < 1<<16 {
		workers = 1
	}
	// start[k]: where the row visited k-th starts; its length is
	// visitPtr[k+1] - visitPtr[k]. Gathered ahead so that the visits read
	// two arrays in order instead of chasing order[k] into rowPtr.
	start := src.rowPtr
	if src.order != nil {
		start = make([]int64, n)
		par.Blocks(n, func(_, lo, hi int) {
			for k := lo; k < hi; k++ {
				start[k] = src.rowPtr[src.order[k]]
			}
		})
	}
	arcs := func(k int) (int64, []int32) { // where the row visited k-th starts, and its columns
		s := start[k]
		return s, src.col[s : s+visitPtr[k+1]-visitPtr[k]]
	}
	nb := int(min(max(nnz/scatterBucketArcs, 256), 4096, int64(n)))
	bounds := par.Split(n, nb, func(i int) int64 { return dstRowPtr[i] })
	bucket := make([]uint32, n) // bucket[c]: the bucket of row c
	par.Blocks(nb, func(_, lo, hi int) {
		for b := lo; b < hi; b++ {
			for c := bounds[b]; c < bounds[b+1]; c++ {
				bucket[c] = uint32(b)
			}
		}
	})
	visits := par.Split(n, workers, func(k int) int64 { return visitPtr[k] })
	// off[w*nb+b]: where goroutine w writes its next arc of bucket b.
	off := make([]int64, workers*nb)
	if workers > 1 {
		par.Parts(visits, func(w, lo, hi int) {
			cnt := off[w*nb : (w+1)*nb]
			for k := lo; k < hi; k++ {
				_, cols := arcs(k)
				for _, c := range cols {
					cnt[bucket[c]]++
				}
			}
		})
	}
	for b := range nb {
		at := dstRowPtr[bounds[b]]
		for w := range workers {
			at, off[w*nb+b] = at+off[w*nb+b], at
		}
	}
	pairs := make([]uint64, nnz) // label << 32 | row
	var pairW []float32
	if src.w != nil {
		pairW = make([]float32, nnz)
	}
	par.Parts(visits, func(w, lo, hi int) {
		next := off[w*nb : (w+1)*nb]
		for k := lo; k < hi; k++ {
			label := int32(k)
			if src.label != nil {
				label = src.label[k]
			}
			high := uint64(uint32(label)) << 32
			s, cols := arcs(k)
			if pairW == nil {
				for _, c := range cols {
					b := bucket[c]
					j := next[b]
					pairs[j] = high | uint64(uint32(c))
					next[b] = j + 1
				}
				continue
			}
			ws := src.w[s:][:len(cols)]
			for i, c := range cols {
				b := bucket[c]
				j := next[b]
				pairs[j], pairW[j] = high|uint64(uint32(c)), ws[i]
				next[b] = j + 1
			}
		}
	})
	bucketIdx := make([]int, nb+1)
	for b := range bucketIdx {
		bucketIdx[b] = b
	}
	par.Dynamic(bucketIdx, func(blo, bhi int) {
		for b := blo; b < bhi; b++ {
			lo, hi := bounds[b], bounds[b+1]
			cursor := slices.Clone(dstRowPtr[lo:hi])
			s, e := dstRowPtr[lo], dstRowPtr[hi]
			if pairW == nil {
				for _, pr := range pairs[s:e] {
					t := uint32(pr) - uint32(lo)
					at := cursor[t]
					dstCol[at] = int32(pr >> 32)
					cursor[t] = at + 1
				}
				continue
			}
			for j, pr := range pairs[s:e] {
				t := uint32(pr) - uint32(lo)
				at := cursor[t]
				dstCol[at], dstW[at] = int32(pr>>32), pairW[s+int64(j)]
				cursor[t] = at + 1
			}
		}
	})
}

// inDegrees sets deg[c+1] to the number of arcs into c, for every column
// c of col.
func inDegrees(col []int32, deg []int64) {
	counts := deg[1:]
	if par.Workers() == 1 || len(col) < 1<<16 {
		for _, c := range col {
			counts[c]++
		}
		return
	}
	par.Blocks(len(col), func(_, lo, hi int) {
		for _, c := range col[lo:hi] {
			atomic.AddInt64(&counts[c], 1)
		}
	})
}
