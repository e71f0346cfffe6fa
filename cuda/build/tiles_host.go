package build

import (
	"github.com/hpgraph/hpgraph/hyb"
	"github.com/hpgraph/hpgraph/internal/par"
)

// makePullTiles cuts m's rows into segments of 1<<rowBits rows and their
// column-sorted entries into tiles of at most maxArcs entries: on the
// host, the reference for the device's build (tilesdev.go, array by
// array) and the builder of the shapes the device does not take. near
// groups them by groupsNear (for 4-byte accumulators), else by groups.
// symmetric says m is its own transpose (an undirected graph's), so
// column c's entries are row c's and the first sort can be a copy.
func makePullTiles(m *hyb.Matrix, rowBits, maxArcs int, near, symmetric bool) *Tiles {
	return makePullTilesChunked(m, rowBits, maxArcs, near, symmetric, false, planChunk)
}

// makePullTilesChunked is makePullTiles planning segments in pieces of
// at most chunk entries (tests: the pieces change nothing), launched in
// column order where columns (TileSpec.Columns).
func makePullTilesChunked(m *hyb.Matrix, rowBits, maxArcs int, near, symmetric, columns bool, chunk int64) *Tiles {
	n := m.N
	maxArcs = max(1, maxArcs)
	t := &Tiles{rowBits: rowBits, maxArcs: maxArcs, near: near, columns: columns}
	nseg := (n + 1<<rowBits - 1) >> rowBits
	weighted := m.Weighted()
	// Each row's entries, from the CSR the matrix describes (a row's ELL
	// slots then its COO entries are the CSR row in order; the tiles sort
	// by column anyway, and the host need not fill the HYB arrays).
	src := m.Src
	if m.SymmetrizeOf != nil {
		// (a directed graph's undirected view, built on the device: the
		// host builds its own for the tiles)
		src = m.Source()
	}
	rowPtr, srcCol, srcVal := src.RowPtr, src.Col, src.Val
	each := func(r int, f func(c int32, w float32)) {
		for i := rowPtr[r]; i < rowPtr[r+1]; i++ {
			w := float32(1)
			if srcVal != nil {
				w = srcVal[i]
			}
			f(srcCol[i], w)
		}
	}

	// Pass 1: entries by column (a counting sort), rows increasing within
	// a column. Row ranges count and place their entries in parallel, each
	// range after the ranges before it within every column (so as many
	// ranges as fit in about the memory of the entries). A symmetric
	// matrix's columns are its rows, copied.
	nnz := rowPtr[n]
	parts := par.Split(n, max(1, min(par.Workers(), int(nnz/int64(max(1, n))))), func(i int) int64 { return rowPtr[i] })
	var rowOf []int32
	var valOf []float32
	var colPtr []int64
	if of := m.TransposeOf; of != nil {
		// A transposed matrix's columns are the rows of the CSR it is the
		// transpose of (a directed graph's in-matrix: its out-CSR), rows
		// increasing, a pair's parallel arcs by weight as the host's
		// transpose orders them (datasets sorts rows by column and
		// weight): read in place, and the host builds no transpose.
		colPtr, rowOf, valOf = of.RowPtr, of.Col, of.Val
	} else if symmetric {
		// Column c is row c: its entries in row order, the rows sorted
		// (a row that is not comes out in another valid order). Read in
		// place.
		colPtr, rowOf, valOf = rowPtr, srcCol, srcVal
	} else {
		rowOf = make([]int32, nnz)
		if weighted {
			valOf = make([]float32, nnz)
		}
		next := make([][]int64, len(parts)-1) // per range: where its next entry of each column goes
		par.Parts(parts, func(w, lo, hi int) {
			c := make([]int64, n)
			for r := lo; r < hi; r++ {
				each(r, func(col int32, _ float32) { c[col]++ })
			}
			next[w] = c
		})
		colPtr = rangeStarts(next, n)
		par.Parts(parts, func(w, lo, hi int) {
			nx := next[w]
			for r := lo; r < hi; r++ {
				each(r, func(c int32, v float32) {
					p := nx[c]
					nx[c]++
					rowOf[p] = int32(r)
					if weighted {
						valOf[p] = v
					}
				})
			}
		})
	}
	rowPtr = nil
	// Pass 2: a stable distribution by segment, so each segment's entries
	// go by column: column ranges in parallel, each after the ranges before
	// it within every segment.
	cparts := par.Split(n, par.Workers(), func(i int) int64 { return colPtr[i] })
	snext := make([][]int64, len(cparts)-1)
	par.Parts(cparts, func(w, lo, hi int) {
		c := make([]int64, nseg)
		for p := colPtr[lo]; p < colPtr[hi]; p++ {
			c[rowOf[p]>>rowBits]++
		}
		snext[w] = c
	})
	segPtr := rangeStarts(snext, nseg)
	cols := make([]int32, nnz)
	rows := make([]uint16, nnz)
	var svals []float32
	if weighted {
		svals = make([]float32, nnz)
	}
	mask := int32(1)<<rowBits - 1
	par.Parts(cparts, func(w, lo, hi int) {
		nx := snext[w]
		for c := lo; c < hi; c++ {
			for p := colPtr[c]; p < colPtr[c+1]; p++ {
				r := rowOf[p]
				q := nx[r>>rowBits]
				nx[r>>rowBits]++
				cols[q], rows[q] = int32(c), uint16(r&mask)
				if weighted {
					svals[q] = valOf[p]
				}
			}
		}
	})
	rowOf, valOf, colPtr, snext = nil, nil, nil, nil

	// Pass 3: each segment's slots and their warps (segments in
	// parallel, a large one also in pieces: kron21's first segment holds
	// 39% of the entries), then the tiles (all in parallel), concatenated
	// in order.
	sc := tileScratch{rowBits: rowBits, near: near, cols: cols, rows: rows, vals: svals, planChunk: chunk}
	plans := make([]segPlan, nseg)
	par.Dynamic(unitParts(nseg), func(lo, hi int) {
		w := sc.worker(n, true)
		for s := lo; s < hi; s++ {
			plans[s] = w.plan(s, segPtr[s], segPtr[s+1])
		}
	})
	type job struct {
		seg  int
		i, e int64
	}
	var jobs []job
	t.multi = make([]uint8, nseg)
	for s := range nseg {
		lo, hi := segPtr[s], segPtr[s+1]
		if lo == hi && (s > 0 || hi < segPtr[nseg]) {
			// No tile for a segment without entries: its rows' y stays the
			// identity (kron21: 208 of 512 segments, isolated vertices).
			// A matrix without entries keeps one, whose block marks the
			// superstep as run.
			continue
		}
		jobs = append(jobs, job{s, lo, min(lo+int64(maxArcs), hi)})
		for i := jobs[len(jobs)-1].e; i < hi; i += int64(maxArcs) {
			jobs = append(jobs, job{s, i, min(i+int64(maxArcs), hi)})
			t.multi[s] = 1
		}
	}
	var segFirst []int64 // (tilePlaces': segment s's first tile)
	var places []float32
	if columns {
		segFirst, places = tilePlaces(m, rowBits, maxArcs)
	}
	built := make([]tileOut, len(jobs))
	par.Dynamic(unitParts(len(jobs)), func(lo, hi int) {
		w := sc.worker(n, false)
		for k := lo; k < hi; k++ {
			jb := jobs[k]
			built[k] = w.tile(&plans[jb.seg], jb.seg, segPtr[jb.seg], jb.i, jb.e)
			if places != nil {
				built[k].tile.at = places[segFirst[jb.seg]+(jb.i-segPtr[jb.seg])/int64(maxArcs)]
			}
		}
	})
	var total int64
	for k := range built {
		total += int64(len(built[k].arcs))
	}
	t.arcs = make([]uint32, 0, total)
	if weighted {
		t.vals = make([]float32, 0, total)
	}
	t.base = make([]int32, 0, total/32)
	t.vfirst = make([]int32, 1, nseg+1)
	for s := range plans {
		t.vrow = append(t.vrow, plans[s].vrow...)
		t.vfirst = append(t.vfirst, int32(len(t.vrow)))
	}
	plans = nil
	var tiles []segTile
	for k := range built {
		b := &built[k]
		tl := b.tile
		tl.first = int64(len(t.arcs))
		tiles = append(tiles, tl)
		t.arcs = append(t.arcs, b.arcs...)
		t.vals = append(t.vals, b.vals...)
		t.base = append(t.base, b.base...)
		built[k] = tileOut{}
	}
	launchOrder(tiles, columns)
	t.first = make([]int64, len(tiles))
	t.info = make([]int32, len(tiles))
	t.warp = make([]int32, 0, len(tiles)*(tileWarps+1))
	for i, tl := range tiles {
		t.first[i] = tl.first
		t.info[i] = tl.seg
		if t.multi[tl.seg] != 0 {
			t.info[i] |= -1 << 31
		}
		t.warp = append(t.warp, tl.warp[:]...)
	}
	return t
}

// rangeStarts turns counts[w][k] (range w's entries of bucket k) into
// where range w's first entry of bucket k goes, buckets in order and
// ranges in order within a bucket, and returns the buckets' offsets
// (k+1 of them): the placement of a stable parallel counting sort.
func rangeStarts(counts [][]int64, k int) []int64 {
	ptr := make([]int64, k+1)
	for b := range k {
		at := ptr[b]
		for w := range counts {
			at, counts[w][b] = at+counts[w][b], at
		}
		ptr[b+1] = at
	}
	return ptr
}
