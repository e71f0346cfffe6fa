// Package spmv holds the CPU kernels of the engine: generalized sparse
// matrix-vector products over HYB (the ELL part, the COO part, combined by
// the program's Reduce), masked by x_bitmask, with row filters and early
// exit, and the push variant that scatters from a frontier with atomic
// Reduce. Each kernel works on a caller-given share of rows or frontier
// words so the caller owns the parallel split; kernels never allocate.
//
// It knows HYB and bitmasks, not programs or graphs: a Semiring is all it
// sees of the user's code.
package spmv

import (
	"reflect"
	"sync/atomic"
	"unsafe"

	"github.com/hpgraph/hpgraph/bitmask"
	"github.com/hpgraph/hpgraph/hyb"
)

// Semiring is the generalized multiply-add: Gather folds neighbour u's
// value xu and the edge value w into row v's accumulator; Reduce combines
// two partial accumulators of one row (associative and commutative, with
// the identity the caller seeds rows with).
type Semiring[X, A any] interface {
	Gather(acc A, v, u int32, xu X, w float32) A
	Reduce(a, b A) A
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
	// Wants, when not nil, selects the rows to compute; other rows' Y is
	// left untouched.
	Wants func(v int32) bool
	// Done, when not nil, ends a row's scan as soon as its accumulator is
	// decided (bottom-up BFS stops at the first parent found). It must hold
	// for any accumulator that already decides the row, partial ones too.
	Done func(acc A) bool
	// GatherRow, when not nil, folds a list of a row's neighbours in one
	// call: GatherRow(acc, v, nbrs, w, X) must equal folding Gather over
	// nbrs in order, with w nil meaning every weight is 1. Rows then make
	// one call per row (and per full buffer of masked neighbours) instead
	// of one per edge. Ignored when Done is set.
	GatherRow func(acc A, v int32, nbrs []int32, w []float32, x []X) A
}

// rowBuf is how many masked neighbours a row collects before calling
// GatherRow.
const rowBuf = 256

// tile is the number of rows whose ELL slots a pull walks column by column:
// it keeps the accumulators in L1 while the column-major ELL streams.
const tile = 512

// Rows computes rows [lo, hi) of the product.
func Rows[X, A any, S Semiring[X, A]](s S, p *Pull[X, A], lo, hi int) {
	// Locals, not p's fields: the per-edge call to Gather could write any
	// memory, so the compiler would reload every field after each call.
	if p.GatherRow != nil && p.Done == nil {
		wholeRows(p, lo, hi)
		return
	}
	m, x, y, id := p.M, p.X, p.Y, p.Identity
	mask, wants, done := p.Mask, p.Wants, p.Done
	pitch, ellCol, ellVal := m.Pitch, m.EllCol, m.EllVal
	cooPtr, cooCol, cooVal := m.CooPtr, m.CooCol, m.CooVal
	var skip [tile]bool
	for t := lo; t < hi; t += tile {
		te := min(t+tile, hi)
		sk := skip[:te-t]
		for r := t; r < te; r++ {
			sk[r-t] = wants != nil && !wants(int32(r))
			if !sk[r-t] {
				y[r] = id
			}
		}
		// ELL part: slot k of all rows of the tile, then slot k+1.
		for k := 0; k < m.K; k++ {
			base := k * pitch
			cols := ellCol[base+t : base+te]
			var vals []float32
			if ellVal != nil {
				vals = ellVal[base+t : base+te]
			}
			for i, u := range cols {
				if u == hyb.Pad || sk[i] || (mask != nil && !mask.Test(u)) {
					continue
				}
				w := float32(1)
				if vals != nil {
					w = vals[i]
				}
				r := t + i
				y[r] = s.Gather(y[r], int32(r), u, x[u], w)
				if done != nil && done(y[r]) {
					sk[i] = true
				}
			}
		}
		// COO part: a partial per row, combined with the ELL result by Reduce.
		for r := t; r < te; r++ {
			a, b := cooPtr[r], cooPtr[r+1]
			if sk[r-t] || a == b {
				continue
			}
			part := id
			cols := cooCol[a:b]
			if mask == nil && done == nil && cooVal == nil {
				// The dense, unweighted case (PageRank): nothing to test.
				for _, u := range cols {
					part = s.Gather(part, int32(r), u, x[u], 1)
				}
			} else {
				var vals []float32
				if cooVal != nil {
					vals = cooVal[a:b]
				}
				for i, u := range cols {
					if mask != nil && !mask.Test(u) {
						continue
					}
					w := float32(1)
					if vals != nil {
						w = vals[i]
					}
					part = s.Gather(part, int32(r), u, x[u], w)
					if done != nil && done(part) {
						break
					}
				}
			}
			y[r] = s.Reduce(y[r], part)
		}
	}
}

// wholeRows is Rows with GatherRow, row by row: the ELL slots and the
// masked COO entries are collected into a buffer, an unmasked COO tail is
// passed in place. A weighted matrix has both EllVal and CooVal (hyb
// allocates them together).
func wholeRows[X, A any](p *Pull[X, A], lo, hi int) {
	m, x, y, id := p.M, p.X, p.Y, p.Identity
	mask, wants, gr := p.Mask, p.Wants, p.GatherRow
	k, pitch, ellCol, ellVal := m.K, m.Pitch, m.EllCol, m.EllVal
	cooPtr, cooCol, cooVal := m.CooPtr, m.CooCol, m.CooVal
	weighted := m.Weighted()
	var cb [rowBuf]int32
	var wb [rowBuf]float32
	// flush folds the first n buffered neighbours into acc.
	flush := func(acc A, v int32, n int) A {
		if weighted {
			return gr(acc, v, cb[:n], wb[:n], x)
		}
		return gr(acc, v, cb[:n], nil, x)
	}
	for r := lo; r < hi; r++ {
		v := int32(r)
		if wants != nil && !wants(v) {
			continue
		}
		acc, n := id, 0
		for j := 0; j < k; j++ {
			i := j*pitch + r
			u := ellCol[i]
			if u == hyb.Pad {
				break
			}
			if mask != nil && !mask.Test(u) {
				continue
			}
			cb[n] = u
			if weighted {
				wb[n] = ellVal[i]
			}
			if n++; n == rowBuf {
				acc, n = flush(acc, v, n), 0
			}
		}
		a, b := cooPtr[r], cooPtr[r+1]
		if mask == nil && a < b {
			if n > 0 {
				acc, n = flush(acc, v, n), 0
			}
			var w []float32
			if weighted {
				w = cooVal[a:b]
			}
			acc = gr(acc, v, cooCol[a:b], w, x)
		} else {
			for i := a; i < b; i++ {
				u := cooCol[i]
				if !mask.Test(u) {
					continue
				}
				cb[n] = u
				if weighted {
					wb[n] = cooVal[i]
				}
				if n++; n == rowBuf {
					acc, n = flush(acc, v, n), 0
				}
			}
		}
		if n > 0 {
			acc = flush(acc, v, n)
		}
		y[r] = acc
	}
}

// Push describes one push product: every u in Frontier scatters along its
// row of M (the transpose of the pull matrix) into Y with an atomic Gather.
// Y must hold the identity wherever nothing was pushed yet.
type Push[X, A any] struct {
	M        *hyb.Matrix
	X        []X
	Y        []A
	Frontier *bitmask.Bitmask
	// Wants, when not nil, skips destinations that take no input.
	Wants func(v int32) bool
	// Touched collects the destinations whose Y changed.
	Touched *bitmask.Bitmask
}

// Words pushes from the frontier members in bitmask words [lo, hi).
func Words[X, A any, S Semiring[X, A]](s S, p *Push[X, A], lo, hi int) {
	m := p.M
	fold := atomicFold[X, A, S]
	p.Frontier.ForEachInWords(lo, hi, func(u int32) {
		xu := p.X[u]
		visit := func(v int32, w float32) {
			if p.Wants != nil && !p.Wants(v) {
				return
			}
			if fold(s, &p.Y[v], v, u, xu, w) {
				p.Touched.AtomicSet(v)
			}
		}
		for k := 0; k < m.K; k++ {
			i := k*m.Pitch + int(u)
			v := m.EllCol[i]
			if v == hyb.Pad {
				break
			}
			w := float32(1)
			if m.EllVal != nil {
				w = m.EllVal[i]
			}
			visit(v, w)
		}
		for i := m.CooPtr[u]; i < m.CooPtr[u+1]; i++ {
			w := float32(1)
			if m.CooVal != nil {
				w = m.CooVal[i]
			}
			visit(m.CooCol[i], w)
		}
	})
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
		return make([]A, n)
	}
	words := make([]uint64, (uintptr(n)*size+7)/8)
	return unsafe.Slice((*A)(unsafe.Pointer(&words[0])), n)
}

// atomicFold sets *p = Gather(*p, ...) atomically and reports whether the
// bits of *p changed. A must be AtomicCapable and *p aligned to its size.
func atomicFold[X, A any, S Semiring[X, A]](s S, p *A, v, u int32, xu X, w float32) bool {
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
