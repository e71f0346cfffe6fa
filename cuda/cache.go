//go:build cgo

package cuda

import (
	"encoding/binary"
	"github.com/hpgraph/hpgraph/cuda/rt"
	"unsafe"

	"github.com/hpgraph/hpgraph/cuda/cu"
	"github.com/hpgraph/hpgraph/hyb"
	"github.com/hpgraph/hpgraph/internal/phase"
)

// matDev is a HYB matrix in device memory: the arrays every superstep
// reads, the pull bins when it has been a pull matrix, the row degrees
// when it has been a push matrix. It outlives runs (matCache).
type matDev struct {
	m                                         *hyb.Matrix
	sig                                       matSig
	ellCol, ellVal, cooCol, cooVal, cooPtr    cu.DevicePtr
	bins                                      *pullBins
	binRows, chunkHeavy, heavyRow, heavyFirst cu.DevicePtr
	binBufs                                   []cu.DevicePtr
	tiles                                     *pullTiles
	tileArcs, tileVal, tileBase               cu.DevicePtr
	tileFirst, tileInfo, tileWarp, tileMulti  cu.DevicePtr
	tileVFirst, tileVRow                      cu.DevicePtr
	tileBufs                                  []cu.DevicePtr
	pushDeg                                   cu.DevicePtr
	pushChunks                                int64         // the degrees' push chunks (hb_degrees), with pushDeg
	orient                                    [3]*orientDev // the graph's Orientations, by orientKind
	bufs                                      []cu.DevicePtr
	bytes                                     int64
	users                                     int
	used                                      uint64 // matCache.clock at the last use
	arg                                       []byte // the VP_Mat argument
}

// matCache keeps device copies of matrices across runs, keyed by the
// *hyb.Matrix (vertexprog.Graph keeps its matrices, so repeated runs on one
// graph pass the same pointer). Matrices no run uses are freed, least
// recently used first, when a run needs their memory, beyond cacheKeep of
// them, and while the device is low on memory. Used inside device.do
// only.
type matCache struct {
	d            *device
	m            map[*hyb.Matrix]*matDev
	clock        uint64
	hits, misses int
}

// cacheKeep is how many matrices no run uses stay on the device (and
// parkMax how many parked runs): a server answering every app on three
// graphs uses about 15 matrices, and with 4 kept it rebuilt one for most
// queries (tiles on the host: 0.8 s a kron21 PageRank), 24 queries/s in
// issue 25's soak.
const cacheKeep = 32

// lowOnMemory reports whether less than a quarter of the device's memory
// is free: unused matrices and parked runs then go, least recently used
// first, even below cacheKeep and parkMax. Inside device.do.
func (d *device) lowOnMemory() bool {
	free, total := d.MemInfo()
	return free < total/4
}

// matBytes is the device memory of m's base arrays, plus, for a matrix
// built on the device, the CSR it is built from (with csr) and, for a
// transposed or symmetrized matrix (hyb.DescribeTranspose,
// DescribeSymmetrized), deviceTranspose's arrays, its output and
// temporaries (and a symmetrized matrix's view, the CSR it is built
// from).
func matBytes(m *hyb.Matrix, csr bool) int64 {
	vals := int64(0)
	if m.Weighted() {
		vals = 4
	}
	b := int64(m.K)*int64(m.Pitch)*(4+vals) + m.CooNNZ()*(4+vals) + int64(m.N+1)*8
	if !m.Materialized() {
		if csr {
			b += m.NNZ()*(4+vals) + int64(m.N+1)*8
		}
		if m.TransposeOf != nil {
			b += deviceTransposeBytes(m.N, m.NNZ(), m.Weighted())
		}
		if of := m.SymmetrizeOf; of != nil {
			b += deviceTransposeBytes(m.N, int64(len(of.Col)), m.Weighted()) + m.NNZ()*(4+vals) + int64(m.N+1)*8 + int64(m.N)*4
		}
	}
	return b
}

// binBytes bounds the device memory of m's pull bins.
func binBytes(m *hyb.Matrix, lim binLimits) int64 {
	return 4*int64(m.N) + 8*(m.CooNNZ()/int64(max(1, lim.Chunk))+1) + 8*int64(m.N)/int64(max(1, lim.Warp)) + 64
}

// matSig identifies a matrix's contents cheaply: its sizes and where its
// arrays are (a guard against a matrix changed in place).
type matSig struct {
	n, k, pitch              int
	lens                     [4]int
	rowPtr, col, val, cooPtr unsafe.Pointer
	of                       [3]unsafe.Pointer // TransposeOf's or SymmetrizeOf's arrays
	ofLens                   [3]int
}

// (The ELL and COO arrays derive from Src, which may be materialized into
// them later: Src and CooPtr identify the contents.)
func sigOf(m *hyb.Matrix) matSig {
	s := matSig{
		n: m.N, k: m.K, pitch: m.Pitch,
		lens:   [4]int{len(m.Src.RowPtr), len(m.Src.Col), len(m.Src.Val), len(m.CooPtr)},
		rowPtr: unsafe.Pointer(unsafe.SliceData(m.Src.RowPtr)), col: unsafe.Pointer(unsafe.SliceData(m.Src.Col)),
		val: unsafe.Pointer(unsafe.SliceData(m.Src.Val)), cooPtr: unsafe.Pointer(unsafe.SliceData(m.CooPtr)),
	}
	if of := derivedOf(m); of != nil {
		s.of = [3]unsafe.Pointer{unsafe.Pointer(unsafe.SliceData(of.RowPtr)), unsafe.Pointer(unsafe.SliceData(of.Col)), unsafe.Pointer(unsafe.SliceData(of.Val))}
		s.ofLens = [3]int{len(of.RowPtr), len(of.Col), len(of.Val)}
	}
	return s
}

// consistent reports whether a cached copy still matches its matrix.
func (md *matDev) consistent() bool { return sigOf(md.m) == md.sig }

// tileSpec asks for a pull matrix's tiles (rowBits 0: none); symmetric
// says the matrix is its own transpose (the tiles are the same either
// way, only built faster).
type tileSpec struct {
	rowBits, maxArcs int
	near             bool // groups for 4-byte accumulators (groupsNear)
	symmetric        bool
}

func (t *pullTiles) matches(ts tileSpec) bool {
	return t != nil && t.rowBits == ts.rowBits && t.maxArcs == ts.maxArcs && t.near == ts.near
}

// need is the device memory that using m (as a pull matrix with bins and
// tiles, or with push degrees) would add.
func (c *matCache) need(m *hyb.Matrix, bins, degrees bool, lim binLimits, ts tileSpec) int64 {
	md := c.m[m]
	if md != nil && !md.consistent() {
		md = nil
	}
	b := int64(0)
	if md == nil {
		b += matBytes(m, true) // (with its CSR: reserve may drop the copy)
	}
	if bins && (md == nil || md.bins == nil || md.bins.lim != lim) {
		b += binBytes(m, lim)
	}
	if degrees && (md == nil || md.pushDeg == 0) {
		b += 4 * int64(m.N)
	}
	if ts.rowBits > 0 && (md == nil || !md.tiles.matches(ts)) {
		b += tileBytes(m, ts.rowBits, ts.maxArcs)
		if tilesOnDevice(m, ts) {
			b += tileBuildBytes(m, ts, tlPool(c.d.SMs, ts.near))
		}
	}
	return b
}

// get returns m's device copy with the parts asked for (the pull bins,
// the push degrees, tiles), making what is missing, and marks it used.
// Inside device.do.
func (c *matCache) get(m *hyb.Matrix, bins, degrees bool, lim binLimits, ts tileSpec) *matDev {
	if c.m == nil {
		c.m = map[*hyb.Matrix]*matDev{}
	}
	c.clock++
	pt := phase.New("cuda", "matrix")
	defer pt.Print()
	md := c.m[m]
	if md != nil && !md.consistent() {
		if md.users == 0 {
			c.free(md)
		} else {
			delete(c.m, m) // the runs using it free it at release
		}
		md = nil
	}
	if md == nil {
		c.misses++
		md = &matDev{m: m, sig: sigOf(m)}
		// (K = 0 is materialized, its COO the CSR: copied on the device
		// where the graph's CSR is there)
		if m.Materialized() && !(m.K == 0 && m.N > 0 && m.TransposeOf == nil && c.d.csrFor(m.Src) != nil) {
			md.ellCol, md.ellVal = rt.Put(c.d, &md.bufs, m.EllCol), rt.Put(c.d, &md.bufs, m.EllVal)
			md.cooCol, md.cooVal = rt.Put(c.d, &md.bufs, m.CooCol), rt.Put(c.d, &md.bufs, m.CooVal)
			md.cooPtr = rt.Put(c.d, &md.bufs, m.CooPtr)
		} else {
			c.d.buildOnDevice(md, m, pt)
		}
		md.bytes = matBytes(m, false)
		c.m[m] = md
	} else {
		c.hits++
	}
	// (Bins in use by another run stay as they are.)
	if bins && (md.bins == nil || md.bins.lim != lim && md.users == 0) {
		rt.FreeAll(md.binBufs)
		md.binBufs = nil
		md.bins = c.d.deviceBins(md, m, lim)
		pt.Mark("bins")
	}
	if degrees && md.pushDeg == 0 {
		c.d.deviceDegrees(md)
		pt.Mark("push degrees")
	}
	// (Tiles in use by another run stay as they are.)
	if ts.rowBits > 0 && !md.tiles.matches(ts) && (md.tiles == nil || md.users == 0) {
		rt.FreeAll(md.tileBufs)
		md.tileBufs = nil
		if tilesOnDevice(m, ts) {
			md.tiles = c.d.deviceTiles(md, ts, pt) // (tilesdev.go)
		} else {
			t := makePullTiles(m, ts.rowBits, ts.maxArcs, ts.near, ts.symmetric)
			md.tileArcs, md.tileVal = rt.Put(c.d, &md.tileBufs, t.arcs), rt.Put(c.d, &md.tileBufs, t.vals)
			md.tileBase, md.tileFirst = rt.Put(c.d, &md.tileBufs, t.base), rt.Put(c.d, &md.tileBufs, t.first)
			md.tileInfo, md.tileWarp = rt.Put(c.d, &md.tileBufs, t.info), rt.Put(c.d, &md.tileBufs, t.warp)
			md.tileMulti = rt.Put(c.d, &md.tileBufs, t.multi)
			md.tileVFirst, md.tileVRow = rt.Put(c.d, &md.tileBufs, t.vfirst), rt.Put(c.d, &md.tileBufs, t.vrow)
			t.arcs, t.vals, t.base, t.vrow = nil, nil, nil, nil // (on the device now)
			md.tiles = t
		}
		pt.Mark("tiles")
	}
	md.users++
	md.used = c.clock
	md.arg = md.matArg()
	return md
}

// release ends a run's use of md.
func (c *matCache) release(md *matDev) {
	md.users--
	if md.users == 0 && c.m[md.m] != md {
		c.free(md) // replaced while in use
	}
	c.trim(cacheKeep)
}

func (c *matCache) free(md *matDev) {
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
func (c *matCache) trim(keep int) {
	for {
		var old *matDev
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
	c.d.dropCSRs(false, c.d.LowOnMemory())
}

// pushChunksOf is the push chunks of m's degrees where its device copy
// counted them, else a bound (pushChunkBound). Inside device.do.
func (c *matCache) pushChunksOf(m *hyb.Matrix) int64 {
	if md := c.m[m]; md != nil && md.pushDeg != 0 && md.consistent() {
		return md.pushChunks
	}
	return pushChunkBound(m.NNZ())
}

// matArg is the VP_Mat argument (kernels.cu).
func (md *matDev) matArg() []byte {
	m := md.m
	b := make([]byte, 200)
	le := binary.LittleEndian
	for i, p := range []cu.DevicePtr{md.ellCol, md.ellVal, md.cooCol, md.cooVal, md.cooPtr, md.binRows, md.chunkHeavy, md.heavyRow, md.heavyFirst,
		md.tileArcs, md.tileVal, md.tileBase, md.tileFirst, md.tileInfo, md.tileWarp, md.tileMulti, md.tileVFirst, md.tileVRow} {
		le.PutUint64(b[8*i:], uint64(p))
	}
	ints := []int{m.N, m.K, m.Pitch, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}
	if bn := md.bins; bn != nil {
		ch, w, q, t := bn.blocks()
		ints[3] = bn.lim.Chunk
		ints[4], ints[5], ints[6], ints[7] = len(bn.chunkHeavy), bn.nWarp, bn.nQuad, bn.nThread
		ints[8], ints[9], ints[10] = w, q, t
		_ = ch
	}
	if md.tiles != nil {
		ints[11], ints[12] = md.tiles.rowBits, tileVMax(md.tiles.rowBits)
	}
	for i, v := range ints {
		le.PutUint32(b[144+4*i:], uint32(int32(v)))
	}
	return b
}

// cooBlocks is the grid of vp_pull_coo; listed: for a program that
// lists its warp and quad rows first (kernels.cu's VP_LISTED).
func (md *matDev) cooBlocks(listed bool) int64 {
	if md.bins == nil {
		return 0
	}
	ch, w, q, t := md.bins.blocks()
	if listed {
		ch = ceilDiv(ch, listedChunksPerBlock)
		w, q = ceilDiv(md.bins.nWarp, listedRowsPerBlock), ceilDiv(md.bins.nQuad, listedRowsPerBlock)
	}
	return int64(ch + w + q + t)
}
