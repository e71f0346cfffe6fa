package spmv

import (
	"reflect"
	"sync/atomic"
	"unsafe"

	"github.com/hpgraph/hpgraph/bitmask"
)

// A push folds one contribution an edge into its destination. Where the
// semiring says what its Gather is — Reduce, a min, max or sum of
// numbers, of a contribution that depends on the source, its value and
// the edge alone (Contributor) — a push asks for a row's contributions in
// one call and folds them itself, a compare and a compare-and-swap on
// the number, instead of calling Gather through an interface at every
// edge (GAP's SSSP relaxes an edge in a few nanoseconds; the call alone
// costs about as much).

// Op is a Reduce a kernel folds natively.
type Op int

const (
	OpMin Op = iota + 1 // min(a, b), Go's built-in (NaN wins, -0 < +0)
	OpMax               // max(a, b), Go's built-in
	OpSum               // a + b
)

// Contributor gives a semiring's Gather as Reduce(acc, contribution):
// Gather(acc, v, u, xu, w) == Op(acc, c) with c the contribution of edge
// (u, v, w), which must not depend on v. Contributions sets out[i] to the
// contribution of u's edge of weight w[i] (every weight 1 when w is nil;
// out's length is the edges').
type Contributor[X, A any] interface {
	Contributions(u int32, xu X, w []float32, out []A)
}

// number is what a native fold folds: an accumulator whose underlying
// type is one of these.
type number interface {
	~int32 | ~uint32 | ~int64 | ~uint64 | ~float32 | ~float64
}

// nativeList is List for a Contributor of a numeric A over an all-COO M;
// ok is false where it does not apply (the caller runs List's own loop).
func nativeList[X, A any](p *Push[X, A], us, out []int32) (_ []int32, ok bool) {
	if p.Contrib == nil || p.Op == 0 || p.M.K != 0 {
		return out, false
	}
	switch reflect.TypeFor[A]().Kind() {
	case reflect.Int32:
		return pushNative[X, A, int32](p, us, out), true
	case reflect.Uint32:
		return pushNative[X, A, uint32](p, us, out), true
	case reflect.Int64:
		return pushNative[X, A, int64](p, us, out), true
	case reflect.Uint64:
		return pushNative[X, A, uint64](p, us, out), true
	case reflect.Float32:
		if out, ok := pushAdd[X, A, float32](p, us, out); ok {
			return out, true
		}
		return pushNative[X, A, float32](p, us, out), true
	case reflect.Float64:
		if out, ok := pushAdd[X, A, float64](p, us, out); ok {
			return out, true
		}
		return pushNative[X, A, float64](p, us, out), true
	}
	return out, false
}

// pushAdd is pushNative for Push.AddWeight (each contribution the
// source's value plus the edge's weight, X and A the same float type)
// without row filters: the contribution is added in the fold's loop, one
// pass over a row without a Contributions call or a buffer (kron20 SSSP,
// one core: Contributions and its buffer were 15% of the run with
// buckets 2 wide). ok is false where it does not apply.
func pushAdd[X, A any, F ~float32 | ~float64](p *Push[X, A], us, out []int32) (_ []int32, ok bool) {
	if !p.AddWeight || p.Rows != nil || p.Wants != nil || reflect.TypeFor[X]() != reflect.TypeFor[A]() {
		return out, false
	}
	m, op, serial, touched := p.M, p.Op, p.Serial, p.Touched
	x, y := asNumbers[X, F](p.X), asNumbers[A, F](p.Y)
	ptr, col, w, tw := m.CooPtr, m.CooCol, m.CooVal, touched.Words()
	for _, u := range us {
		xu := x[u]
		a, b := ptr[u], ptr[u+1]
		cols := col[a:b]
		var ws []float32
		if w != nil {
			ws = w[a:b]
			if serial {
				out = addRowSerial(op, xu, cols, ws, y, tw, out)
			} else {
				out = addRowAtomic(op, xu, cols, ws, y, touched, out)
			}
			continue
		}
		for i, v := range cols {
			c := xu + 1
			if ws != nil {
				c = xu + F(ws[i])
			}
			if !serial {
				if foldNumber(op, &y[v], c) && touched.AtomicSet(v) {
					out = append(out, v)
				}
				continue
			}
			// (no atomics: one goroutine runs the product)
			old := y[v]
			if nv := reduce(op, old, c); !sameBits(nv, old) {
				y[v] = nv
				if wi, bit := v>>5, uint32(1)<<(uint32(v)&31); tw[wi]&bit == 0 {
					tw[wi] |= bit
					out = append(out, v)
				}
			}
		}
	}
	return out, true
}

// addRowSerial is pushAdd's fold of u's weighted row on one goroutine.
func addRowSerial[F ~float32 | ~float64](op Op, xu F, cols []int32, ws []float32, y []F, tw []uint32, out []int32) []int32 {
	ws = ws[:len(cols)]
	for i, v := range cols {
		old := y[v]
		if nv := reduce(op, old, xu+F(ws[i])); !sameBits(nv, old) {
			y[v] = nv
			if wi, bit := v>>5, uint32(1)<<(uint32(v)&31); tw[wi]&bit == 0 {
				tw[wi] |= bit
				out = append(out, v)
			}
		}
	}
	return out
}

// addRowAtomic is pushAdd's fold of u's weighted row where other
// goroutines fold into y too: a relaxation that betters nothing (most
// of them) costs a load and a compare, without foldNumber's call.
func addRowAtomic[F ~float32 | ~float64](op Op, xu F, cols []int32, ws []float32, y []F, touched *bitmask.Bitmask, out []int32) []int32 {
	ws = ws[:len(cols)]
	for i, v := range cols {
		c := xu + F(ws[i])
		if old := loadNumber(&y[v]); sameBits(reduce(op, old, c), old) {
			continue
		}
		if foldNumber(op, &y[v], c) && touched.AtomicSet(v) {
			out = append(out, v)
		}
	}
	return out
}

// loadNumber is *p, loaded atomically (p aligned to its size).
func loadNumber[N number](p *N) N {
	if unsafe.Sizeof(*p) == 4 {
		b := atomic.LoadUint32((*uint32)(unsafe.Pointer(p)))
		return *(*N)(unsafe.Pointer(&b))
	}
	b := atomic.LoadUint64((*uint64)(unsafe.Pointer(p)))
	return *(*N)(unsafe.Pointer(&b))
}

// asNumbers views a slice of A, whose underlying type is N, as []N.
func asNumbers[A any, N number](a []A) []N {
	return unsafe.Slice((*N)(unsafe.Pointer(unsafe.SliceData(a))), len(a))
}

func pushNative[X, A any, N number](p *Push[X, A], us, out []int32) []int32 {
	m, x, touched, wants, op, contrib := p.M, p.X, p.Touched, p.Wants, p.Op, p.Contrib
	y := asNumbers[A, N](p.Y)
	var rw []uint32
	if p.Rows != nil {
		rw, wants = p.Rows.Words(), nil
	}
	cooPtr, cooCol, cooVal := m.CooPtr, m.CooCol, m.CooVal
	var buf [rowBuf]A
	cb := asNumbers[A, N](buf[:])
	tw := touched.Words()
	serial, filtered := p.Serial, rw != nil || wants != nil
	if serial && rw != nil && wants == nil && cooVal == nil {
		return pushRowsSerial(contrib, op, x, y, cooPtr, cooCol, rw, tw, us, out)
	}
	for _, u := range us {
		xu := x[u]
		for a, b := cooPtr[u], cooPtr[u+1]; a < b; a += rowBuf {
			cols := cooCol[a:min(b, a+rowBuf)]
			var ws []float32
			if cooVal != nil {
				ws = cooVal[a : a+int64(len(cols))]
			}
			contrib.Contributions(u, xu, ws, buf[:len(cols)])
			cs := cb[:len(cols)]
			switch {
			case serial && wants == nil && rw != nil:
				out = foldRowsSerial(op, y, cols, cs, rw, tw, out)
			case filtered:
				out = foldFiltered(op, y, cols, cs, rw, wants, serial, touched, out)
			case serial:
				// (no atomics: one goroutine runs the product)
				for i, v := range cols {
					old := y[v]
					if nv := reduce(op, old, cs[i]); !sameBits(nv, old) {
						y[v] = nv
						if wi, bit := v>>5, uint32(1)<<(uint32(v)&31); tw[wi]&bit == 0 {
							tw[wi] |= bit
							out = append(out, v)
						}
					}
				}
			default:
				for i, v := range cols {
					if foldNumber(op, &y[v], cs[i]) && touched.AtomicSet(v) {
						out = append(out, v)
					}
				}
			}
		}
	}
	return out
}

// pushRowsSerial is pushNative on one goroutine through rw's bits over
// an unweighted M: every edge of a row has the same contribution, asked
// for once, and the rows and their edges run in one loop without calls
// but Contributions' (a grid's BFS pushes about 4 edges a row: a call
// and a buffer a row cost more than its edges).
func pushRowsSerial[X, A any, N number](contrib Contributor[X, A], op Op, x []X, y []N, ptr []int64, col []int32, rw, tw []uint32, us, out []int32) []int32 {
	var c [1]A
	cn := asNumbers[A, N](c[:])
	for _, u := range us {
		contrib.Contributions(u, x[u], nil, c[:])
		cu := cn[0]
		for e, end := ptr[u], ptr[u+1]; e < end; e++ {
			v := uint32(col[e])
			wi, bit := v>>5, uint32(1)<<(v&31)
			if rw[wi]&bit == 0 {
				continue
			}
			old := y[v]
			nv := reduce(op, old, cu)
			if sameBits(nv, old) {
				continue
			}
			y[v] = nv
			if t := tw[wi]; t&bit == 0 {
				tw[wi] = t | bit
				out = append(out, int32(v))
			}
		}
	}
	return out
}

// foldRowsSerial is pushNative's fold of one row's contributions cs into
// the destinations cols whose bits rw holds, on one goroutine: few live
// values, so the compiler keeps the loop's state in registers.
func foldRowsSerial[N number](op Op, y []N, cols []int32, cs []N, rw, tw []uint32, out []int32) []int32 {
	cs = cs[:len(cols)]
	for i, v := range cols {
		wi, bit := v>>5, uint32(1)<<(uint32(v)&31)
		if rw[wi]&bit == 0 {
			continue
		}
		old := y[v]
		nv := reduce(op, old, cs[i])
		if sameBits(nv, old) {
			continue
		}
		y[v] = nv
		if tw[wi]&bit == 0 {
			tw[wi] |= bit
			out = append(out, v)
		}
	}
	return out
}

// foldFiltered is pushNative's fold of one row's contributions cs into
// the destinations cols that the filter (rw's bits, or wants) lets in.
func foldFiltered[N number](op Op, y []N, cols []int32, cs []N, rw []uint32, wants RowFilter, serial bool, touched *bitmask.Bitmask, out []int32) []int32 {
	tw := touched.Words()
	for i, v := range cols {
		if rw != nil && rw[v>>5]&(1<<(uint32(v)&31)) == 0 || wants != nil && !wants.Wants(v) {
			continue
		}
		if serial {
			if nv := reduce(op, y[v], cs[i]); !sameBits(nv, y[v]) {
				y[v] = nv
				if tw[v>>5]&(1<<(uint32(v)&31)) == 0 {
					tw[v>>5] |= 1 << (uint32(v) & 31)
					out = append(out, v)
				}
			}
		} else if foldNumber(op, &y[v], cs[i]) && touched.AtomicSet(v) {
			out = append(out, v)
		}
	}
	return out
}

// foldNumber sets *p = op(*p, c) atomically and reports whether the bits
// of *p changed. *p must be aligned to its size. (atomicFold's loop, with
// the fold inlined where atomicFold calls Gather.)
func foldNumber[N number](op Op, p *N, c N) bool {
	if unsafe.Sizeof(c) == 4 {
		addr := (*uint32)(unsafe.Pointer(p))
		for {
			old := atomic.LoadUint32(addr)
			nv := reduce(op, *(*N)(unsafe.Pointer(&old)), c)
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
		nv := reduce(op, *(*N)(unsafe.Pointer(&old)), c)
		nb := *(*uint64)(unsafe.Pointer(&nv))
		if nb == old {
			return false
		}
		if atomic.CompareAndSwapUint64(addr, old, nb) {
			return true
		}
	}
}

// sameBits reports whether a and b are the same bits.
func sameBits[N number](a, b N) bool {
	if unsafe.Sizeof(a) == 4 {
		return *(*uint32)(unsafe.Pointer(&a)) == *(*uint32)(unsafe.Pointer(&b))
	}
	return *(*uint64)(unsafe.Pointer(&a)) == *(*uint64)(unsafe.Pointer(&b))
}

// reduce is op(a, b).
func reduce[N number](op Op, a, b N) N {
	switch op {
	case OpMin:
		return min(a, b)
	case OpMax:
		return max(a, b)
	}
	return a + b
}

// sumBlock is Pull.Sum's block of rows [lo, hi): false where X and A
// are not both float64 or both float32 (the caller's Block runs). The
// columns' values are read without a bounds check (the caller checked
// them once against len(X)): nine instructions an edge become seven, and
// more random loads stay in flight (kron20 PageRank float32, one thread,
// the gather's loop alone: 38-40 -> 35-37 ms an iteration). A row's
// edges alternate between two sums, added at its end: one chain of
// 4-cycle adds held the loads behind it (2M rows of 32 random columns,
// float32, one core of the development machine: 80-93 -> 58-59 ms).
func sumBlock[X, A any](p *Pull[X, A], lo, hi int) bool {
	m := p.M
	xk, ak := reflect.TypeFor[X]().Kind(), reflect.TypeFor[A]().Kind()
	switch {
	case xk == reflect.Float64 && ak == reflect.Float64:
		sumRows64(lo, hi, m.CooPtr, m.CooCol, *(*[]float64)(unsafe.Pointer(&p.X)), *(*[]float64)(unsafe.Pointer(&p.Y)), *(*float64)(unsafe.Pointer(&p.Identity)))
	case xk == reflect.Float32 && ak == reflect.Float32:
		sumRows32(lo, hi, m.CooPtr, m.CooCol, *(*[]float32)(unsafe.Pointer(&p.X)), *(*[]float32)(unsafe.Pointer(&p.Y)), *(*float32)(unsafe.Pointer(&p.Identity)))
	default:
		return false
	}
	return true
}

// sumRows64 and sumRows32 are two loops, not one generic function: as
// one, the float64 instance's loop loaded each value apart and ran
// urand21's PageRank iteration 43-47 -> 47-50 ms on two cores (session 33).
func sumRows64(lo, hi int, ptr []int64, col []int32, x, y []float64, id float64) {
	xp := unsafe.Pointer(unsafe.SliceData(x))
	at := func(c unsafe.Pointer, e int64) float64 {
		return *(*float64)(unsafe.Add(xp, uintptr(*(*uint32)(unsafe.Add(c, uintptr(e)*4)))*8))
	}
	cs := col[ptr[lo]:ptr[hi]] // (the block's columns, checked once)
	cp, base, last := unsafe.Pointer(unsafe.SliceData(cs)), ptr[lo], int64(len(cs))
	var e int64
	for v := lo; v < hi; v++ {
		end := min(ptr[v+1]-base, last)
		s0, s1 := id, 0.0
		for ; e+1 < end; e += 2 {
			s0 += at(cp, e)
			s1 += at(cp, e+1)
		}
		if e < end {
			s0 += at(cp, e)
			e++
		}
		y[v] = s0 + s1
	}
}

// sumRows32 adds a row's values in pairs in float32, each pair's sum then
// to a float64 sum: one conversion a pair, not one a value (and the
// first add of a pair from memory), about 4.8 instructions an edge
// against 6.5. The sum's error stays that of a float64 sum of float32
// values rounded once more each (2^-24 of a pair, not of the running
// sum): kron20's float32 LDBC ranks lie as close to the float64 ones as
// before (8.4e-8 relative at most, both).
func sumRows32(lo, hi int, ptr []int64, col []int32, x, y []float32, id float32) {
	xp := unsafe.Pointer(unsafe.SliceData(x))
	at := func(c unsafe.Pointer, e int64) float32 {
		return *(*float32)(unsafe.Add(xp, uintptr(*(*uint32)(unsafe.Add(c, uintptr(e)*4)))*4))
	}
	cs := col[ptr[lo]:ptr[hi]]
	cp, base, last := unsafe.Pointer(unsafe.SliceData(cs)), ptr[lo], int64(len(cs))
	// (converted once: converted at each row, CVTSS2SD wrote into the
	// register of the last row's sum, and each row's adds waited for the
	// last row's: grid1000's float32 iteration on one core took 1.5-2
	// times its float64 one)
	fid := float64(id)
	var e int64
	for v := lo; v < hi; v++ {
		end := min(ptr[v+1]-base, last)
		s0, s1 := fid, 0.0
		for ; e+3 < end; e += 4 {
			s0 += float64(at(cp, e) + at(cp, e+1))
			s1 += float64(at(cp, e+2) + at(cp, e+3))
		}
		for ; e < end; e++ {
			s0 += float64(at(cp, e))
		}
		y[v] = float32(s0 + s1)
	}
}

// minPlusBlock is Pull.MinPlus's block of rows [lo, hi): false where X
// and A are not the same float type (the caller's Block runs).
func minPlusBlock[X, A any](p *Pull[X, A], lo, hi int) bool {
	m := p.M
	if reflect.TypeFor[X]() != reflect.TypeFor[A]() {
		return false
	}
	switch reflect.TypeFor[X]().Kind() {
	case reflect.Float32:
		minPlusRows(lo, hi, m.CooPtr, m.CooCol, m.CooVal, asNumbers[X, float32](p.X), asNumbers[A, float32](p.Y), *(*float32)(unsafe.Pointer(&p.Identity)))
	case reflect.Float64:
		minPlusRows(lo, hi, m.CooPtr, m.CooCol, m.CooVal, asNumbers[X, float64](p.X), asNumbers[A, float64](p.Y), *(*float64)(unsafe.Pointer(&p.Identity)))
	default:
		return false
	}
	return true
}

// minPlusRows sets y[v] for each row v of [lo, hi) to the min of id and
// x[u] + w over its edges, the columns' values read without a bounds
// check (the caller checked them) and folded into four minima, each
// over every fourth edge: a float min is three instructions on the one
// before, whose chain bounded a row's loop (Go's min is the same in any
// order, -0 included; a NaN, but for its payload).
func minPlusRows[F ~float32 | ~float64](lo, hi int, ptr []int64, col []int32, w []float32, x, y []F, id F) {
	xp, size := unsafe.Pointer(unsafe.SliceData(x)), unsafe.Sizeof(id)
	at := func(u int32) F { return *(*F)(unsafe.Add(xp, uintptr(uint32(u))*size)) }
	for v := lo; v < hi; v++ {
		a, b := ptr[v], ptr[v+1]
		cols := col[a:b]
		a0, a1, a2, a3 := id, id, id, id
		i := 0
		if w == nil {
			for ; i+4 <= len(cols); i += 4 {
				a0 = min(a0, at(cols[i])+1)
				a1 = min(a1, at(cols[i+1])+1)
				a2 = min(a2, at(cols[i+2])+1)
				a3 = min(a3, at(cols[i+3])+1)
			}
			for ; i < len(cols); i++ {
				a0 = min(a0, at(cols[i])+1)
			}
		} else {
			ws := w[a:b]
			ws = ws[:len(cols)]
			for ; i+4 <= len(cols); i += 4 {
				a0 = min(a0, at(cols[i])+F(ws[i]))
				a1 = min(a1, at(cols[i+1])+F(ws[i+1]))
				a2 = min(a2, at(cols[i+2])+F(ws[i+2]))
				a3 = min(a3, at(cols[i+3])+F(ws[i+3]))
			}
			for ; i < len(cols); i++ {
				a0 = min(a0, at(cols[i])+F(ws[i]))
			}
		}
		y[v] = min(a0, a1, a2, a3)
	}
}
