package spmv

import (
	"reflect"
	"sync/atomic"
	"unsafe"

	"github.com/hpgraph/hpgraph/bitmask"
	"github.com/hpgraph/hpgraph/hyb"
)

// Relax pushes from every vertex of us straight into the values, as a
// shortest path's relaxation (GAP's sssp): for each edge (u, v, w) of
// their rows of the all-COO M, x[v] becomes x[u] + w (x[u] + 1 where M
// has no weights) where that is less than x[v]. It appends v to out and
// its new value to vals at each lowering (a v lowered twice, twice) and
// returns them. There is no accumulator and no APPLY: the caller's
// program declared that its push and Update do just this
// (vertexprog.Relaxer). A source's value is read when its row starts,
// so a push may run from a value that an earlier row of the same push
// lowered. serial says no other goroutine reads or writes x meanwhile;
// else every value is loaded atomically and lowered by
// compare-and-swap. ok is false where it does not apply: X not a float
// type, or M not all COO.
func Relax[X any](m *hyb.Matrix, x []X, us []int32, serial bool, out []int32, vals []X) (_ []int32, _ []X, ok bool) {
	if m.K != 0 {
		return out, vals, false
	}
	switch reflect.TypeFor[X]().Kind() {
	case reflect.Float32:
		o, v := relaxRows(m.CooPtr, m.CooCol, m.CooVal, asNumbers[X, float32](x), us, serial, out, asNumbersCap[X, float32](vals))
		return o, asNumbersCap[float32, X](v), true
	case reflect.Float64:
		o, v := relaxRows(m.CooPtr, m.CooCol, m.CooVal, asNumbers[X, float64](x), us, serial, out, asNumbersCap[X, float64](vals))
		return o, asNumbersCap[float64, X](v), true
	}
	return out, vals, false
}

// asNumbersCap views a slice of A as []B, same-sized types, its
// capacity kept (for appending through the view).
func asNumbersCap[A, B any](a []A) []B {
	return unsafe.Slice((*B)(unsafe.Pointer(unsafe.SliceData(a))), cap(a))[:len(a)]
}

func relaxRows[F ~float32 | ~float64](ptr []int64, col []int32, w []float32, x []F, us []int32, serial bool, out []int32, vals []F) ([]int32, []F) {
	for _, u := range us {
		a, b := ptr[u], ptr[u+1]
		cols := col[a:b]
		var ws []float32
		if w != nil {
			ws = w[a:b]
		}
		if serial {
			out, vals = relaxSerial(x[u], cols, ws, x, out, vals)
		} else {
			out, vals = relaxAtomic(loadNumber(&x[u]), cols, ws, x, out, vals)
		}
	}
	return out, vals
}

// relaxSerial lowers the destinations cols of a row from a source of
// value xu on one goroutine (ws nil: every weight 1).
func relaxSerial[F ~float32 | ~float64](xu F, cols []int32, ws []float32, x []F, out []int32, vals []F) ([]int32, []F) {
	if ws == nil {
		c := xu + 1
		for _, v := range cols {
			if c < x[v] {
				x[v] = c
				out, vals = append(out, v), append(vals, c)
			}
		}
		return out, vals
	}
	ws = ws[:len(cols)]
	for i, v := range cols {
		if c := xu + F(ws[i]); c < x[v] {
			x[v] = c
			out, vals = append(out, v), append(vals, c)
		}
	}
	return out, vals
}

// relaxAtomic is relaxSerial where other goroutines read and lower x
// too: a relaxation that lowers nothing (most of them) is a load and a
// compare.
func relaxAtomic[F ~float32 | ~float64](xu F, cols []int32, ws []float32, x []F, out []int32, vals []F) ([]int32, []F) {
	for i, v := range cols {
		c := xu + 1
		if ws != nil {
			c = xu + F(ws[i])
		}
		if lowerNumber(&x[v], c) {
			out, vals = append(out, v), append(vals, c)
		}
	}
	return out, vals
}

// lowerNumber sets *p = c atomically where c < *p and reports whether
// it did. *p must be aligned to its size.
func lowerNumber[F ~float32 | ~float64](p *F, c F) bool {
	if unsafe.Sizeof(c) == 4 {
		addr, nb := (*uint32)(unsafe.Pointer(p)), *(*uint32)(unsafe.Pointer(&c))
		for {
			old := atomic.LoadUint32(addr)
			if !(c < *(*F)(unsafe.Pointer(&old))) {
				return false
			}
			if atomic.CompareAndSwapUint32(addr, old, nb) {
				return true
			}
		}
	}
	addr, nb := (*uint64)(unsafe.Pointer(p)), *(*uint64)(unsafe.Pointer(&c))
	for {
		old := atomic.LoadUint64(addr)
		if !(c < *(*F)(unsafe.Pointer(&old))) {
			return false
		}
		if atomic.CompareAndSwapUint64(addr, old, nb) {
			return true
		}
	}
}

// RelaxMark is Relax that marks each lowered destination's bit in
// touched instead of listing it with its value (atomically where not
// serial): for a push that lowers many rows, which the caller then
// reads back from the bits in vertex order, each once, at its last
// value. ok is false where it does not apply (as Relax).
func RelaxMark[X any](m *hyb.Matrix, x []X, us []int32, serial bool, touched *bitmask.Bitmask) (ok bool) {
	if m.K != 0 {
		return false
	}
	switch reflect.TypeFor[X]().Kind() {
	case reflect.Float32:
		markRows(m.CooPtr, m.CooCol, m.CooVal, asNumbers[X, float32](x), us, serial, touched)
	case reflect.Float64:
		markRows(m.CooPtr, m.CooCol, m.CooVal, asNumbers[X, float64](x), us, serial, touched)
	default:
		return false
	}
	return true
}

func markRows[F ~float32 | ~float64](ptr []int64, col []int32, w []float32, x []F, us []int32, serial bool, touched *bitmask.Bitmask) {
	tw := touched.Words()
	for _, u := range us {
		a, b := ptr[u], ptr[u+1]
		cols := col[a:b]
		var ws []float32
		if w != nil {
			ws = w[a:b]
			ws = ws[:len(cols)]
		}
		if serial {
			xu := x[u]
			for i, v := range cols {
				c := xu + 1
				if ws != nil {
					c = xu + F(ws[i])
				}
				if c < x[v] {
					x[v] = c
					tw[v>>5] |= 1 << (uint32(v) & 31)
				}
			}
			continue
		}
		xu := loadNumber(&x[u])
		for i, v := range cols {
			c := xu + 1
			if ws != nil {
				c = xu + F(ws[i])
			}
			if lowerNumber(&x[v], c) {
				touched.AtomicSet(v)
			}
		}
	}
}
