// Package spmv holds the CPU kernels of the engine: generalized sparse
// matrix-vector products over HYB (a row's ELL slots, then its COO
// entries), masked by x_bitmask, with row filters, early exit and whole-row
// gathers, and the push variant that scatters from a frontier list with
// atomic Gathers. Each kernel works on a caller-given share of rows (whole
// bitmask words) or of a frontier list, so the caller owns the parallel
// split; kernels allocate nothing but the growth of the list a push
// appends to.
//
// It knows HYB and bitmasks, not programs or graphs: a Semiring is all it
// sees of the user's code.
package spmv

import (
	"math/bits"
	"reflect"
	"sync/atomic"
	"unsafe"

	"github.com/hpgraph/hpgraph/bitmask"
	"github.com/hpgraph/hpgraph/hyb"
	"github.com/hpgraph/hpgraph/internal/huge"
)

// The user's code reaches the kernels as interface values, not as type
// parameters: a method of a type parameter is called through the
// instantiation's dictionary, and a method value made from an interface
// (a func field) through a wrapper, each an indirect call more than an
// interface's own (measured on a BFS's bottom-up step, kron20, one core:
// 41 ms with func values, 36 with interface calls, 30 with none). A
// program passes itself.

// Semiring is the generalized multiply-add: Gather folds neighbour u's
// value xu and the edge value w into row v's accumulator; Reduce combines
// two partial accumulators of one row (associative and commutative, with
// the identity the caller seeds rows with).
type Semiring[X, A any] interface {
	Gather(acc A, v, u int32, xu X, w float32) A
	Reduce(a, b A) A
}

// RowFilter selects the rows a product computes.
type RowFilter interface {
	Wants(v int32) bool
}

// Decider says when a row's accumulator is decided, so its scan can stop.
type Decider[A any] interface {
	Done(acc A) bool
}

// RowFolder folds a list of a row's neighbours in one call.
type RowFolder[X, A any] interface {
	GatherRow(acc A, v int32, nbrs []int32, w []float32, x []X) A
}

// BlockFolder folds every row of a block of a CSR in one call: y[v] for v
// in [lo, hi) from id over col[ptr[v]:ptr[v+1]] (w at the same indices,
// or every weight 1 when nil).
type BlockFolder[X, A any] interface {
	GatherBlock(lo, hi int32, ptr []int64, col []int32, w []float32, x []X, y []A, id A)
}

// FirstFolder gathers single edges into fresh accumulators by lists:
// y[vs[k]] = Gather(identity, vs[k], us[k], x[us[k]], w[k]) for each k
// (w nil: every weight 1).
type FirstFolder[X, A any] interface {
	GatherFirst(vs, us []int32, w []float32, x []X, y []A)
}

// WordClaimer takes the rows of a word found by a first-hit pull in
// place of y: row vs[k] with us[k], its first column in the mask, the
// rows in increasing order, all of bitmask word wi.
type WordClaimer interface {
	ClaimWord(wi int, vs, us []int32)
}

// Pull describes one pull product y[v] = ⊕ over the entries (v, u, w) of M
// with u in Mask of Gather(·, v, u, X[u], w). An unweighted M has w = 1.
type Pull[X, A any] struct {
	M        *hyb.Matrix
	X        []X
	Y        []A
	Identity A
	// Mask, when not nil, skips the columns u not in it (x_bitmask).
	Mask *bitmask.Bitmask
	// Rows, when not nil, is the set of rows to compute (a row filter whose
	// answers the caller keeps); other rows' Y is left untouched.
	Rows *bitmask.Bitmask
	// Wants, when not nil and Rows is nil, selects the rows to compute;
	// other rows' Y is left untouched. WantsOut, when not nil, receives its
	// answers (bit r: Wants(r)) for the words computed.
	Wants    RowFilter
	WantsOut *bitmask.Bitmask
	// Done, when not nil, ends a row's scan as soon as its accumulator is
	// decided (a bottom-up search stops at the first parent found). It must hold
	// for any accumulator that already decides the row, partial ones too.
	Done Decider[A]
	// GatherRow, when not nil, folds a list of a row's neighbours in one
	// call: GatherRow(acc, v, nbrs, w, X) must equal folding Gather over
	// nbrs in order, with w nil meaning every weight is 1. Rows then make
	// one call per row (and per full buffer of masked neighbours) instead
	// of one per edge. Ignored when Done is set.
	GatherRow RowFolder[X, A]
	// First, when not nil with Done and Mask, says any one gathered edge
	// decides a row (Done holds after it) and gathers each word's rows
	// from their first entries in the mask in one call, over an all-COO
	// M.
	First FirstFolder[X, A]
	// Claim, when not nil with First, takes each word's rows found (those
	// with an entry in the mask) in one ClaimWord call, and Y and Touched
	// are not written: the caller keeps the rows' results itself.
	Claim WordClaimer
	// Block, when not nil, computes whole words of rows in one call where
	// every row of them is computed, unmasked and without Done, over an
	// all-COO (CSR) M; it writes Y of every row, the identity where a row
	// has no entries, Touched or not.
	Block BlockFolder[X, A]
	// Sum, with Block, says Block's rows are each the float64 sum, in the
	// row's order, of Identity and the values X[u] of its columns,
	// converted to A once (X and A both float32 or both float64), and that
	// every column of M is below len(X), which the caller checked: the
	// block's rows are then summed here, without a bounds check a load
	// (sumBlock).
	Sum bool
	// MinPlus, with Block, says Block's rows are each the min of Identity
	// and X[u] + w over the row's columns u and weights w (1 where M has
	// none), X and A the same float32 or float64 type, and that every
	// column of M is below len(X), which the caller checked: the block's
	// rows are then folded here (minPlusBlock).
	MinPlus bool
	// Touched, when not nil, receives for the words computed the rows that
	// gathered at least one edge (through Mask), and Y is written for
	// those rows only: the others keep what they held (the identity, for
	// a caller that resets what it reads).
	Touched *bitmask.Bitmask
}

// rowBuf is how many masked neighbours a row collects before calling
// GatherRow.
const rowBuf = 256

// Rows computes the rows of bitmask words [lo, hi): rows 32·lo up to
// min(32·hi, M.N), each row's ELL slots and then its COO entries in order
// (the row's columns in increasing order, whatever the split), folded
// into one accumulator from the identity. Callers split the work by whole
// words, so that Touched and WantsOut are written without atomics.
func Rows[X, A any](s Semiring[X, A], p *Pull[X, A], lo, hi int) {
	sel := rowSelector{n: p.M.N, wants: p.Wants}
	if p.Rows != nil {
		sel.rows = p.Rows.Words()
	} else if p.Wants != nil && p.WantsOut != nil {
		sel.out = p.WantsOut.Words()
	}
	if p.Block != nil && p.Mask == nil && p.Done == nil && p.Rows == nil && p.Wants == nil && p.M.K == 0 {
		blockRows(p, lo, hi)
	} else if p.GatherRow != nil && p.Done == nil {
		wholeRows(p, &sel, lo, hi)
	} else {
		edgeRows(s, p, &sel, lo, hi)
	}
}

// blockRows is Rows by BlockFolder: every row of words [lo, hi).
func blockRows[X, A any](p *Pull[X, A], lo, hi int) {
	m := p.M
	rlo, rhi := lo<<5, min(hi<<5, m.N)
	if rlo >= rhi {
		return
	}
	if !(p.Sum && sumBlock(p, rlo, rhi) || p.MinPlus && minPlusBlock(p, rlo, rhi)) {
		p.Block.GatherBlock(int32(rlo), int32(rhi), m.CooPtr, m.CooCol, m.CooVal, p.X, p.Y, p.Identity)
	}
	if p.Touched == nil {
		return
	}
	// (Y of a row without entries is the identity it held)
	tw, ptr := p.Touched.Words(), m.CooPtr
	for wi := lo; wi < hi; wi++ {
		var tb uint32
		for r := wi << 5; r < min(wi<<5+32, m.N); r++ {
			if ptr[r+1] > ptr[r] {
				tb |= 1 << uint(r&31)
			}
		}
		tw[wi] = tb
	}
}

// rowSelector picks the rows of a word that a pull computes.
type rowSelector struct {
	n         int
	rows, out []uint32
	wants     RowFilter
}

// word returns the rows of word wi to compute, bit i for row 32·wi+i.
func (r *rowSelector) word(wi int) uint32 {
	if r.rows != nil {
		return r.rows[wi]
	}
	base := wi << 5
	cnt := min(32, r.n-base)
	if r.wants == nil {
		return ^uint32(0) >> uint(32-cnt)
	}
	var sel uint32
	for i := range cnt {
		if r.wants.Wants(int32(base + i)) {
			sel |= 1 << uint(i)
		}
	}
	if r.out != nil {
		r.out[wi] = sel
	}
	return sel
}

// edgeRows is Rows with one Gather call an edge, stopping a row where
// Done says. The loops are written out for the all-COO matrices the CPU
// runs on (a row's entries contiguous) and the ELL slots handled apart:
// a generic loop keeps too many values live, which the compiler then
// reloads from the stack at every edge.
func edgeRows[X, A any](s Semiring[X, A], p *Pull[X, A], sel *rowSelector, lo, hi int) {
	// Locals, not p's fields: the per-edge call to Gather could write any
	// memory, so the compiler would reload every field after each call.
	m, x, y, id, done := p.M, p.X, p.Y, p.Identity, p.Done
	mw, tw := wordsOf(p.Mask), wordsOf(p.Touched)
	k, cooPtr, cooCol, cooVal := m.K, m.CooPtr, m.CooCol, m.CooVal
	// A masked all-COO pull that stops at a decided row (a bottom-up
	// search) finds each row's first neighbour in the mask in a scan of
	// its own (firstIn), without calls: the loop around Gather's call
	// keeps its state on the stack.
	first := mw != nil && done != nil && k == 0
	var hit [32]int64
	var fb firstBuf
	for wi := lo; wi < hi; wi++ {
		base := wi << 5
		var tb uint32
		rows := sel.word(wi)
		if first {
			found := firstIn(rows, base, cooPtr, cooCol, mw, &hit)
			if p.Claim != nil && p.First != nil {
				if found != 0 {
					claimHits(p.Claim, cooCol, wi, found, &hit, &fb)
				}
				continue
			}
			for none := rows &^ found; tw == nil && none != 0; none &= none - 1 {
				y[base+bits.TrailingZeros32(none)] = id // (nothing gathered)
			}
			if p.First != nil {
				firstHits(p.First, m, x, y, found, base, &hit, &fb)
			} else {
				gatherHits(s, done, m, mw, x, y, id, found, base, &hit)
			}
			if tw != nil {
				tw[wi] = found
			}
			continue
		}
		for ; rows != 0; rows &= rows - 1 {
			i := bits.TrailingZeros32(rows)
			r := base + i
			v := int32(r)
			acc, got, decided := id, false, false
			if k > 0 {
				acc, got, decided = ellRow(s, m, mw, x, v, acc, done)
			}
			a, b := cooPtr[r], cooPtr[r+1]
			switch cols := cooCol[a:b]; {
			case decided:
			case cooVal == nil && mw == nil:
				for _, u := range cols {
					acc = s.Gather(acc, v, u, x[u], 1)
					if done != nil && done.Done(acc) {
						break
					}
				}
				got = got || a < b
			case mw != nil:
				// The scan for the next neighbour in the mask makes no
				// call: the loop around Gather's call would keep its
				// state in memory.
				var ws []float32
				if cooVal != nil {
					ws = cooVal[a:b]
				}
				for j := nextIn(cols, mw, 0); j < len(cols); j = nextIn(cols, mw, j+1) {
					w := float32(1)
					if ws != nil {
						w = ws[j]
					}
					u := cols[j]
					acc, got = s.Gather(acc, v, u, x[u], w), true
					if done != nil && done.Done(acc) {
						break
					}
				}
			default:
				ws := cooVal[a:b]
				for j, u := range cols {
					acc = s.Gather(acc, v, u, x[u], ws[j])
					if done != nil && done.Done(acc) {
						break
					}
				}
				got = got || a < b
			}
			if tw == nil {
				y[r] = acc
			} else if got {
				y[r] = acc
				tb |= 1 << uint(i)
			}
		}
		if tw != nil {
			tw[wi] = tb
		}
	}
}

// firstIn finds, for each row base+i of the bits of rows, the index of
// its first entry in col[ptr[r]:ptr[r+1]] whose column is in the bitmask
// words mw, into hit[i]; it returns the bits of the rows that have one.
func firstIn(rows uint32, base int, ptr []int64, col []int32, mw []uint32, hit *[32]int64) uint32 {
	var found uint32
	for ; rows != 0; rows &= rows - 1 {
		i := bits.TrailingZeros32(rows)
		// (indexed, not ranged over a subslice: the range's counter
		// ended up on the stack, a third slower)
		for e, end := ptr[base+i], ptr[base+i+1]; e < end; e++ {
			if u := uint32(col[e]); mw[u>>5]&(1<<(u&31)) != 0 {
				hit[i] = e
				found |= 1 << uint(i)
				break
			}
		}
	}
	return found
}

// firstBuf holds a word's rows, their first masked neighbours and those
// edges' weights for FirstFolder.
type firstBuf struct {
	vs, us [32]int32
	ws     [32]float32
}

// firstHits sets y of the rows base+i of the bits of found from their
// first masked entries hit[i] (firstIn's), in one FirstFolder call.
func firstHits[X, A any](f FirstFolder[X, A], m *hyb.Matrix, x []X, y []A, found uint32, base int, hit *[32]int64, b *firstBuf) {
	n := 0
	col, val := m.CooCol, m.CooVal
	for ; found != 0; found &= found - 1 {
		i := bits.TrailingZeros32(found)
		e := hit[i]
		b.vs[n], b.us[n] = int32(base+i), col[e]
		if val != nil {
			b.ws[n] = val[e]
		}
		n++
	}
	var ws []float32
	if val != nil {
		ws = b.ws[:n]
	}
	f.GatherFirst(b.vs[:n], b.us[:n], ws, x, y)
}

// claimHits hands the rows of word wi found (firstIn's) to c.
func claimHits(c WordClaimer, col []int32, wi int, found uint32, hit *[32]int64, b *firstBuf) {
	n, base := 0, wi<<5
	for ; found != 0; found &= found - 1 {
		i := bits.TrailingZeros32(found)
		b.vs[n], b.us[n] = int32(base+i), col[hit[i]]
		n++
	}
	c.ClaimWord(wi, b.vs[:n], b.us[:n])
}

// gatherHits sets y of the rows base+i of the bits of found from their
// first masked entries hit[i] (firstIn's) on, in order, until Done.
func gatherHits[X, A any](s Semiring[X, A], done Decider[A], m *hyb.Matrix, mw []uint32, x []X, y []A, id A, found uint32, base int, hit *[32]int64) {
	col, val := m.CooCol, m.CooVal
	for ; found != 0; found &= found - 1 {
		i := bits.TrailingZeros32(found)
		r, e := base+i, hit[i]
		u, w := col[e], float32(1)
		if val != nil {
			w = val[e]
		}
		acc := s.Gather(id, int32(r), u, x[u], w)
		if !done.Done(acc) {
			acc = maskedFrom(s, col, val, mw, x, int32(r), e+1, m.CooPtr[r+1], acc, done)
		}
		y[r] = acc
	}
}

// maskedFrom folds row v's entries [a, b) of col (weights val, nil: 1)
// whose columns are in mw into acc, in order, until Done.
func maskedFrom[X, A any](s Semiring[X, A], col []int32, val []float32, mw []uint32, x []X, v int32, a, b int64, acc A, done Decider[A]) A {
	for e := a; e < b; e++ {
		u := col[e]
		if mw[u>>5]&(1<<(uint32(u)&31)) == 0 {
			continue
		}
		w := float32(1)
		if val != nil {
			w = val[e]
		}
		if acc = s.Gather(acc, v, u, x[u], w); done.Done(acc) {
			break
		}
	}
	return acc
}

// ellRow folds row v's ELL slots into acc; got says a slot was gathered,
// decided that Done stopped the row.
func ellRow[X, A any](s Semiring[X, A], m *hyb.Matrix, mw []uint32, x []X, v int32, acc A, done Decider[A]) (A, bool, bool) {
	got := false
	for j := 0; j < m.K; j++ {
		e := j*m.Pitch + int(v)
		u := m.EllCol[e]
		if u == hyb.Pad {
			break
		}
		if mw != nil && mw[u>>5]&(1<<(uint32(u)&31)) == 0 {
			continue
		}
		w := float32(1)
		if m.EllVal != nil {
			w = m.EllVal[e]
		}
		acc, got = s.Gather(acc, v, u, x[u], w), true
		if done != nil && done.Done(acc) {
			return acc, true, true
		}
	}
	return acc, got, false
}

// wholeRows is Rows with GatherRow: a row's masked neighbours go through
// a buffer, an unmasked row's COO entries are passed in place.
func wholeRows[X, A any](p *Pull[X, A], sel *rowSelector, lo, hi int) {
	m, x, y, id, gr := p.M, p.X, p.Y, p.Identity, p.GatherRow
	mw, tw := wordsOf(p.Mask), wordsOf(p.Touched)
	k, pitch, ellCol, ellVal := m.K, m.Pitch, m.EllCol, m.EllVal
	cooPtr, cooCol, cooVal := m.CooPtr, m.CooCol, m.CooVal
	weighted := m.Weighted()
	var cb [rowBuf]int32
	var wb [rowBuf]float32
	for wi := lo; wi < hi; wi++ {
		base := wi << 5
		var tb uint32
		for rows := sel.word(wi); rows != 0; rows &= rows - 1 {
			i := bits.TrailingZeros32(rows)
			r := base + i
			v := int32(r)
			acc, got, nb := id, false, 0
			for j := 0; j < k; j++ {
				e := j*pitch + r
				u := ellCol[e]
				if u == hyb.Pad {
					break
				}
				if mw != nil && mw[u>>5]&(1<<(uint32(u)&31)) == 0 {
					continue
				}
				cb[nb] = u
				if weighted {
					wb[nb] = ellVal[e]
				}
				if nb++; nb == rowBuf {
					acc, nb, got = flush(gr, acc, v, cb[:], wb[:], weighted, x), 0, true
				}
			}
			a, b := cooPtr[r], cooPtr[r+1]
			if mw == nil {
				if nb > 0 {
					acc, nb, got = flush(gr, acc, v, cb[:nb], wb[:nb], weighted, x), 0, true
				}
				if a < b {
					var w []float32
					if weighted {
						w = cooVal[a:b]
					}
					acc, got = gr.GatherRow(acc, v, cooCol[a:b], w, x), true
				}
			} else {
				var ws []float32
				if weighted {
					ws = cooVal[a:b]
				}
				cols := cooCol[a:b]
				for j := 0; j < len(cols); {
					var c int
					j, c = collect(cols, ws, mw, j, cb[nb:], wb[nb:])
					if nb += c; nb == rowBuf {
						acc, nb, got = flush(gr, acc, v, cb[:], wb[:], weighted, x), 0, true
					}
				}
			}
			if nb > 0 {
				acc, got = flush(gr, acc, v, cb[:nb], wb[:nb], weighted, x), true
			}
			if tw == nil {
				y[r] = acc
			} else if got {
				y[r] = acc
				tb |= 1 << uint(i)
			}
		}
		if tw != nil {
			tw[wi] = tb
		}
	}
}

// wordsOf is b's words, nil for a nil b.
func wordsOf(b *bitmask.Bitmask) []uint32 {
	if b == nil {
		return nil
	}
	return b.Words()
}

// nextIn returns the first index j >= from of cols whose column is in the
// bitmask words mw, or len(cols).
func nextIn(cols []int32, mw []uint32, from int) int {
	for j := from; j < len(cols); j++ {
		if u := cols[j]; mw[u>>5]&(1<<(uint32(u)&31)) != 0 {
			return j
		}
	}
	return len(cols)
}

// collect copies the entries of cols from index from on whose column is
// in the bitmask words mw into cb (their weights ws, when not nil, into
// wb) until cb is full, and returns the index it stopped at and the
// number copied. Every entry is written and the count advanced by its
// mask bit, without a branch: a mask of a few percent to half the
// vertices makes the test unpredictable, and a mispredicted branch an
// edge cost a masked pull three times an unmasked one.
func collect(cols []int32, ws []float32, mw []uint32, from int, cb []int32, wb []float32) (next, n int) {
	j := from
	if ws == nil {
		for ; j < len(cols) && n < len(cb); j++ {
			u := cols[j]
			cb[n] = u
			n += int(mw[u>>5] >> (uint32(u) & 31) & 1)
		}
		return j, n
	}
	ws = ws[:len(cols)]
	wb = wb[:len(cb)]
	for ; j < len(cols) && n < len(cb); j++ {
		u := cols[j]
		cb[n], wb[n] = u, ws[j]
		n += int(mw[u>>5] >> (uint32(u) & 31) & 1)
	}
	return j, n
}

// flush folds a row's buffered neighbours (and weights, when weighted)
// into acc with GatherRow.
func flush[X, A any](gr RowFolder[X, A], acc A, v int32, nbrs []int32, w []float32, weighted bool, x []X) A {
	if !weighted {
		w = nil
	}
	return gr.GatherRow(acc, v, nbrs, w, x)
}

// Push describes one push product: every vertex of a frontier scatters
// along its row of M (the transpose of the pull matrix) into Y with an
// atomic Gather. Y must hold the identity wherever nothing was pushed yet.
type Push[X, A any] struct {
	M *hyb.Matrix
	X []X
	Y []A
	// Rows, when not nil, is the set of destinations that take input (a
	// row filter whose answers the caller keeps); Wants, when not nil and
	// Rows is nil, decides it destination by destination.
	Rows  *bitmask.Bitmask
	Wants RowFilter
	// Touched collects the destinations whose Y changed.
	Touched *bitmask.Bitmask
	// Contrib and Op, when set, give the semiring's Gather as Op of a
	// contribution (Contributor), which a push over an all-COO M with a
	// numeric A then folds natively.
	Contrib Contributor[X, A]
	Op      Op
	// AddWeight, with Contrib, says each contribution is the source's
	// value plus the edge's weight (1 where M has none), X and A the same
	// float32 or float64 type: the fold adds it itself (WeightAdder).
	AddWeight bool
	// Serial says one goroutine runs the whole product: Y and Touched are
	// then written without atomics.
	Serial bool
}

// List pushes from every vertex of us and appends to out each
// destination whose Touched bit it set (the first change of the
// destination's Y in this product), and returns out: concurrent calls on
// parts of a frontier list each destination exactly once among them.
func List[X, A any](s Semiring[X, A], p *Push[X, A], us []int32, out []int32) []int32 {
	if out, ok := nativeList(p, us, out); ok {
		return out
	}
	m, x, y, touched, wants := p.M, p.X, p.Y, p.Touched, p.Wants
	var rw []uint32
	if p.Rows != nil {
		rw, wants = p.Rows.Words(), nil
	}
	k, pitch, ellCol, ellVal := m.K, m.Pitch, m.EllCol, m.EllVal
	cooPtr, cooCol, cooVal := m.CooPtr, m.CooCol, m.CooVal
	for _, u := range us {
		xu := x[u]
		for j := 0; j < k; j++ {
			e := j*pitch + int(u)
			v := ellCol[e]
			if v == hyb.Pad {
				break
			}
			if rw != nil && rw[v>>5]&(1<<(uint32(v)&31)) == 0 || wants != nil && !wants.Wants(v) {
				continue
			}
			w := float32(1)
			if ellVal != nil {
				w = ellVal[e]
			}
			if atomicFold(s, &y[v], v, u, xu, w) && touched.AtomicSet(v) {
				out = append(out, v)
			}
		}
		a, b := cooPtr[u], cooPtr[u+1]
		for e := a; e < b; e++ {
			v := cooCol[e]
			if rw != nil && rw[v>>5]&(1<<(uint32(v)&31)) == 0 || wants != nil && !wants.Wants(v) {
				continue
			}
			w := float32(1)
			if cooVal != nil {
				w = cooVal[e]
			}
			if atomicFold(s, &y[v], v, u, xu, w) && touched.AtomicSet(v) {
				out = append(out, v)
			}
		}
	}
	return out
}

// AtomicCapable reports whether accumulators of type A can be updated with
// a compare-and-swap loop: 4 or 8 bytes with no pointers inside.
func AtomicCapable[A any]() bool {
	t := reflect.TypeFor[A]()
	return (t.Size() == 4 || t.Size() == 8) && !hasPointers(t)
}

// PlainData reports whether values of type T hold no pointers, so they can
// be reinterpreted as bytes (swapped atomically, copied to a device).
func PlainData[T any]() bool { return !hasPointers(reflect.TypeFor[T]()) }

func hasPointers(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64, reflect.Complex64:
		return false
	case reflect.Array:
		return hasPointers(t.Elem())
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			if hasPointers(t.Field(i).Type) {
				return true
			}
		}
		return false
	}
	return true
}

// NewAccumulators allocates n accumulators aligned to 8 bytes, so that an
// 8-byte A made of 4-byte fields can still be swapped atomically.
func NewAccumulators[A any](n int) []A {
	size := unsafe.Sizeof(*new(A))
	if !AtomicCapable[A]() || n == 0 {
		return huge.Make[A](n)
	}
	words := huge.Make[uint64](int((uintptr(n)*size + 7) / 8))
	return unsafe.Slice((*A)(unsafe.Pointer(&words[0])), n)
}

// atomicFold sets *p = Gather(*p, ...) atomically and reports whether the
// bits of *p changed. A must be AtomicCapable and *p aligned to its size.
func atomicFold[X, A any](s Semiring[X, A], p *A, v, u int32, xu X, w float32) bool {
	if unsafe.Sizeof(*p) == 4 {
		addr := (*uint32)(unsafe.Pointer(p))
		for {
			old := atomic.LoadUint32(addr)
			nv := s.Gather(*(*A)(unsafe.Pointer(&old)), v, u, xu, w)
			nb := *(*uint32)(unsafe.Pointer(&nv))
			if nb == old {
				return false
			}
			if atomic.CompareAndSwapUint32(addr, old, nb) {
				return true
			}
		}
	}
	addr := (*uint64)(unsafe.Pointer(p))
	for {
		old := atomic.LoadUint64(addr)
		nv := s.Gather(*(*A)(unsafe.Pointer(&old)), v, u, xu, w)
		nb := *(*uint64)(unsafe.Pointer(&nv))
		if nb == old {
			return false
		}
		if atomic.CompareAndSwapUint64(addr, old, nb) {
			return true
		}
	}
}
