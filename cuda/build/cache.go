//go:build cgo

package build

import (
	"encoding/binary"
	"errors"

	"github.com/hpgraph/hpgraph/cuda/cu"
	"github.com/hpgraph/hpgraph/cuda/rt"
	"github.com/hpgraph/hpgraph/hyb"
	"github.com/hpgraph/hpgraph/internal/phase"
)

// cacheKeep is how many matrices no run uses stay on the device (and
// parkMax how many parked runs): a server answering every app on three
// graphs uses about 15 matrices, and with 4 kept it rebuilt one for most
// queries (tiles on the host: 0.8 s a kron21 PageRank), 24 queries/s in
// issue 25's soak.
const cacheKeep = 32

// matBytes is the device memory of m's base arrays over the rows of its
// copy (rowsOf: ELL slots at pitch, COO offsets of those rows), plus, for
// a matrix built on the device, the CSR it is built from (with csr) and,
// for a transposed or symmetrized matrix (hyb.DescribeTranspose,
// DescribeSymmetrized), deviceTranspose's arrays, its output and
// temporaries (and a symmetrized matrix's view, the CSR it is built
// from).
func matBytes(m *hyb.Matrix, csr bool, rows Window, pitch int) int64 {
	vals := int64(0)
	if m.Weighted() {
		vals = 4
	}
	b := int64(m.K)*int64(pitch)*(4+vals) + m.CooNNZ()*(4+vals) + int64(rows.Hi-rows.Lo+1)*8
	if !m.Materialized() {
		if csr {
			b += m.NNZ()*(4+vals) + int64(m.N+1)*8
		}
		if of := m.TransposeOf; of != nil {
			if m.K == 0 {
				b -= m.CooNNZ()*(4+vals) + int64(m.N+1)*8 // (the transpose's output is its COO)
			}
			b += transposeRowsBytes(of.RowPtr, m.Weighted())
		}
		if of := m.SymmetrizeOf; of != nil {
			b += deviceTransposeBytes(m.N, int64(len(of.Col)), m.Weighted()) + m.NNZ()*(4+vals) + int64(m.N+1)*8 + int64(m.N)*4
		}
	}
	return b
}

// SharedCSR is the device memory Need counts twice for a pull matrix
// and a push matrix described as the transpose of the pull's CSR (a
// part's: vertexprog.PartMatrices), each with the CSR it is built from:
// one copy of that CSR serves both.
func SharedCSR(pull, push *hyb.Matrix) int64 {
	if pull.Materialized() || push.TransposeOf == nil || !sameRows(*push.TransposeOf, pull.Src) {
		return 0
	}
	vals := int64(0)
	if pull.Weighted() {
		vals = 4
	}
	return pull.NNZ()*(4+vals) + int64(pull.N+1)*8
}

// binBytes bounds the device memory of m's pull bins over rows (its
// copy's: the bins list only those).
func binBytes(m *hyb.Matrix, lim BinLimits, rows Window) int64 {
	n := int64(rows.Hi - rows.Lo)
	return 4*n + 8*(m.CooNNZ()/int64(max(1, lim.Chunk))+1) + 8*n/int64(max(1, lim.Warp)) + 64
}

// rowsOf is the rows of m's device copy where the window w is asked
// (Window), and its ELL's pitch: w, its first row rounded down to a
// multiple of 32, where m is described by its own CSR and has no entries
// outside w, and no push degrees are asked (a push's kernels read any
// row); else every row, at m's pitch.
func rowsOf(m *hyb.Matrix, w Window, degrees bool) (Window, int) {
	all := Window{0, m.N}
	rp := m.Src.RowPtr
	if w.Hi <= 0 || degrees || w.Lo < 0 || w.Lo > w.Hi || w.Hi > m.N || m.TransposeOf != nil || m.SymmetrizeOf != nil ||
		len(rp) != m.N+1 || len(m.CooPtr) != m.N+1 {
		return all, m.Pitch
	}
	w.Lo &^= 31
	if w == all || rp[w.Lo] != rp[0] || rp[w.Hi] != rp[m.N] {
		return all, m.Pitch
	}
	return w, (w.Hi - w.Lo + 31) &^ 31
}

// windowELL is ell, a host ELL array of m (K × m.Pitch, column-major),
// over the rows of a copy at pitch: each slot's rows [rows.Lo, rows.Hi),
// then pad.
func windowELL[T any](ell []T, m *hyb.Matrix, rows Window, pitch int, pad T) []T {
	if ell == nil || rows.Lo == 0 && pitch == m.Pitch {
		return ell
	}
	out := make([]T, m.K*pitch)
	for k := range m.K {
		slot := out[k*pitch : (k+1)*pitch]
		for i := copy(slot, ell[k*m.Pitch+rows.Lo:k*m.Pitch+rows.Hi]); i < pitch; i++ {
			slot[i] = pad
		}
	}
	return out
}

// RowBytes is the device memory of md's ELL slots and COO offsets, and
// what they would take over all the matrix's rows.
func (md *Matrix) RowBytes() (have, whole int64) {
	m := md.m
	per := int64(4)
	if m.Weighted() {
		per = 8
	}
	have = int64(m.K)*int64(md.pitch)*per + int64(md.rows.Hi-md.rows.Lo+1)*8
	whole = int64(m.K)*int64(m.Pitch)*per + int64(m.N+1)*8
	return have, whole
}

// need is the device memory that using m (as a pull matrix with bins and
// tiles, or with push degrees), its copy over the window w, would add.
func (c *Cache) Need(m *hyb.Matrix, bins, degrees bool, lim BinLimits, ts TileSpec, w Window) int64 {
	rows, pitch := rowsOf(m, w, degrees)
	md := c.m[m]
	if md != nil && (!md.consistent() || md.rows != rows) {
		md = nil
	}
	b := int64(0)
	if md == nil {
		b += matBytes(m, true, rows, pitch) // (with its CSR: reserve may drop the copy)
	}
	if bins && (md == nil || md.Bins == nil || md.Bins.lim != lim) {
		b += binBytes(m, lim, rows)
	}
	if degrees && (md == nil || md.PushDeg == 0) {
		b += 4 * int64(m.N)
	}
	if ts.RowBits > 0 && (md == nil || !md.Tiles.Matches(ts)) {
		b += tileBytes(m, ts.RowBits, ts.MaxArcs)
		if TilesOnDevice(m, ts) {
			b += tileBuildBytes(m, ts, tlPool(c.d.SMs, ts.Near))
		}
	}
	return b
}

// get returns m's device copy with the parts asked for (the pull bins,
// the push degrees, tiles), over the window w where it can be (rowsOf),
// making what is missing, and marks it used. Inside Do.
func (c *Cache) Get(m *hyb.Matrix, bins, degrees bool, lim BinLimits, ts TileSpec, w Window) *Matrix {
	if c.m == nil {
		c.m = map[*hyb.Matrix]*Matrix{}
	}
	c.clock++
	pt := phase.New("cuda", "matrix")
	defer pt.Print()
	rows, pitch := rowsOf(m, w, degrees)
	md := c.m[m]
	// (a copy of other rows than asked is replaced, as a stale one)
	if md != nil && (!md.consistent() || md.rows != rows) {
		if md.users == 0 {
			c.free(md)
		} else {
			delete(c.m, m) // the runs using it free it at release
		}
		md = nil
	}
	if md == nil {
		c.misses++
		md = &Matrix{m: m, sig: sigOf(m), rows: rows, pitch: pitch}
		// (K = 0 is materialized, its COO the CSR: copied on the device
		// where the graph's CSR is there)
		if m.Materialized() && !(m.K == 0 && m.N > 0 && m.TransposeOf == nil && c.d.csrFor(m.Src) != nil) {
			md.ellCol = rt.Put(c.d, &md.bufs, windowELL(m.EllCol, m, rows, pitch, hyb.Pad))
			md.ellVal = rt.Put(c.d, &md.bufs, windowELL(m.EllVal, m, rows, pitch, 0))
			md.cooCol, md.cooVal = rt.Put(c.d, &md.bufs, m.CooCol), rt.Put(c.d, &md.bufs, m.CooVal)
			md.cooPtr = rt.Put(c.d, &md.bufs, m.CooPtr[rows.Lo:rows.Hi+1])
		} else {
			c.d.buildOnDevice(md, m, pt)
		}
		md.bytes = matBytes(m, false, rows, pitch)
		c.m[m] = md
	} else {
		c.hits++
	}
	// (Bins in use by another run stay as they are.)
	if bins && (md.Bins == nil || md.Bins.lim != lim && md.users == 0) {
		rt.FreeAll(md.binBufs)
		md.binBufs = nil
		md.Bins = c.d.deviceBins(md, m, lim)
		pt.Mark("bins")
	}
	if degrees && md.PushDeg == 0 {
		c.d.deviceDegrees(md)
		pt.Mark("push degrees")
	}
	// (Tiles in use by another run stay as they are.)
	if ts.RowBits > 0 && !md.Tiles.Matches(ts) && (md.Tiles == nil || md.users == 0) {
		rt.FreeAll(md.tileBufs)
		md.tileBufs = nil
		if TilesOnDevice(m, ts) {
			// The tiles are worth less than the run: where their build
			// runs out of memory after all (the free memory it was sized
			// against is an estimate's), the run pulls by rows. kron27 in
			// GAP's order after a BFS asked 120.9 GiB with 121.3 free,
			// and failed (session 36).
			err := rt.Catch("building the pull's tiles", func() error {
				md.Tiles = c.d.deviceTiles(md, ts, pt) // (tilesdev.go)
				return nil
			})
			if err != nil {
				if !errors.Is(err, rt.ErrOutOfMemory) {
					panic(err)
				}
				rt.FreeAll(md.tileBufs)
				md.tileBufs, md.Tiles = nil, nil
				pt.Mark("tiles: out of memory, pulling by rows")
			}
		} else {
			t := makePullTilesChunked(m, ts.RowBits, ts.MaxArcs, ts.Near, ts.Symmetric, ts.Columns, planChunk)
			md.tileArcs, md.tileVal = rt.Put(c.d, &md.tileBufs, t.arcs), rt.Put(c.d, &md.tileBufs, t.vals)
			md.tileBase, md.tileFirst = rt.Put(c.d, &md.tileBufs, t.base), rt.Put(c.d, &md.tileBufs, t.first)
			md.tileInfo, md.tileWarp = rt.Put(c.d, &md.tileBufs, t.info), rt.Put(c.d, &md.tileBufs, t.warp)
			md.tileMulti = rt.Put(c.d, &md.tileBufs, t.multi)
			md.tileVFirst, md.tileVRow = rt.Put(c.d, &md.tileBufs, t.vfirst), rt.Put(c.d, &md.tileBufs, t.vrow)
			t.arcs, t.vals, t.base, t.vrow = nil, nil, nil, nil // (on the device now)
			md.Tiles = t
		}
		pt.Mark("tiles")
	}
	md.users++
	md.used = c.clock
	md.Arg = md.matArg()
	return md
}

// release ends a run's use of md.
func (c *Cache) Release(md *Matrix) {
	md.users--
	if md.users == 0 && c.m[md.m] != md {
		c.free(md) // replaced while in use
	}
	c.Trim(cacheKeep)
}

func (c *Cache) free(md *Matrix) {
	rt.FreeAll(md.bufs)
	rt.FreeAll(md.binBufs)
	rt.FreeAll(md.tileBufs)
	md.bufs, md.binBufs, md.tileBufs = nil, nil, nil
	if c.m[md.m] == md {
		delete(c.m, md.m)
	}
}

// trim frees unused matrices, least recently used first, until at most
// keep remain and the device is not low on memory.
func (c *Cache) Trim(keep int) {
	for {
		var old *Matrix
		unused := 0
		for _, md := range c.m {
			if md.users == 0 {
				unused++
				if old == nil || md.used < old.used {
					old = md
				}
			}
		}
		if old == nil || unused <= keep && !c.d.LowOnMemory() {
			break
		}
		c.free(old)
	}
	// (the graphs' CSRs whose matrices went, and under pressure all)
	c.d.DropCSRs(false, c.d.LowOnMemory())
}

// pushChunksOf is the push chunks of m's degrees where its device copy
// counted them, else a bound (pushChunkBound). Inside Do.
func (c *Cache) PushChunksOf(m *hyb.Matrix) int64 {
	if md := c.m[m]; md != nil && md.PushDeg != 0 && md.consistent() {
		return md.PushChunks
	}
	return pushChunkBound(m.NNZ())
}

// matArg is the VP_Mat argument (run/kernels.cu).
func (md *Matrix) matArg() []byte {
	m := md.m
	b := make([]byte, 200)
	le := binary.LittleEndian
	// (the ELL and COO offsets by the matrix's rows: byRow)
	for i, p := range []cu.DevicePtr{md.byRow(md.ellCol, 4), md.byRow(md.ellVal, 4), md.cooCol, md.cooVal, md.byRow(md.cooPtr, 8), md.binRows, md.chunkHeavy, md.heavyRow, md.heavyFirst,
		md.tileArcs, md.tileVal, md.tileBase, md.tileFirst, md.tileInfo, md.tileWarp, md.tileMulti, md.tileVFirst, md.tileVRow} {
		le.PutUint64(b[8*i:], uint64(p))
	}
	ints := []int{m.N, m.K, md.pitch, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}
	if bn := md.Bins; bn != nil {
		ch, w, q, t := bn.blocks()
		ints[3] = bn.lim.Chunk
		ints[4], ints[5], ints[6], ints[7] = len(bn.chunkHeavy), bn.nWarp, bn.nQuad, bn.nThread
		ints[8], ints[9], ints[10] = w, q, t
		_ = ch
	}
	if md.Tiles != nil {
		ints[11], ints[12] = md.Tiles.rowBits, tileVMax(md.Tiles.rowBits)
	}
	for i, v := range ints {
		le.PutUint32(b[144+4*i:], uint32(int32(v)))
	}
	return b
}

// cooBlocks is the grid of vp_pull_coo; listed: for a program that
// lists its warp and quad rows first (run/kernels.cu's VP_LISTED).
func (md *Matrix) CooBlocks(listed bool) int64 {
	if md.Bins == nil {
		return 0
	}
	ch, w, q, t := md.Bins.blocks()
	if listed {
		ch = ceilDiv(ch, listedChunksPerBlock)
		w, q = ceilDiv(md.Bins.nWarp, listedRowsPerBlock), ceilDiv(md.Bins.nQuad, listedRowsPerBlock)
	}
	return int64(ch + w + q + t)
}

// RowsEnd is where rows [lo, hi)'s trailing run of empty rows starts
// (hyb.RowsEnd): a data-driven program's pulls need not pass over them.
func (md *Matrix) RowsEnd(lo, hi int) int {
	rp := md.m.Src.RowPtr
	if len(rp) != md.m.N+1 || hi > md.m.N {
		return hi
	}
	return hyb.RowsEnd(rp, lo, hi)
}

// Len is how many matrices the cache holds.
func (c *Cache) Len() int { return len(c.m) }

// Hits and Misses count the Gets that found a matrix's copy and those
// that made one.
func (c *Cache) Hits() (hits, misses int) { return c.hits, c.misses }

// OrientBytes bounds the device memory of building m's orientations of
// the kinds asked for (OrientKind) that its copy lacks, the graph's own
// out-arcs being outArcs where it is directed (0: undirected). A build
// holds its degrees, counts and offsets (16n), its rows' lengths and
// segments while it runs (12n), and its lists: each edge once above its
// lower end (kinds 0 and 2, at most NNZ/2 entries, NNZ counting both
// arcs of an edge) or every neighbour (kind 1), each list padded to a
// block (3n at most). A ranked one also its ranks (4n), the ids' sort and
// the counts below and their offsets while it runs (24n), its records
// (four arrays as long as its lists, the sort's) and their sort's
// scratch, and for a directed graph Both and, where the device lacks
// them, the out-rows. The count had been 80n + 20·NNZ for a ranked one,
// every arc twice over: kron27's parts oriented on the host for it
// (docs/parts.md). cuMemAlloc's rounding is under orientMargin a kind.
func (c *Cache) OrientBytes(m *hyb.Matrix, kinds [3]bool, outArcs int64) int64 {
	md := c.m[m]
	n, need := int64(m.N), int64(0)
	for k, named := range kinds {
		if !named || md != nil && md.orient[k] != nil {
			continue
		}
		lists := (m.NNZ()+1)/2 + 3*n
		if k == 1 {
			lists = m.NNZ() + 3*n
		}
		need += orientMargin + 28*n + 16 + n/orientRows*8 + 4*lists
		if k == 2 {
			need += 28*n + 8 + 16*lists + sortScratchBytes(lists) + sortScratchBytes(n)
			if outArcs > 0 {
				need += lists/8 + 4 + 8*(n+1) + 4*outArcs
			}
		}
	}
	return need
}

// orientMargin covers an orientation build's allocations' rounding by
// the driver (2 MiB a large one, a dozen of them).
const orientMargin = 32 << 20
