//go:build cgo

package build

import (
	"encoding/binary"
	"unsafe"

	"github.com/hpgraph/hpgraph/cuda/cu"
	"github.com/hpgraph/hpgraph/cuda/rt"
	"github.com/hpgraph/hpgraph/hyb"
	"github.com/hpgraph/hpgraph/internal/phase"
)

// buildOnDevice is PREPROCESS on the device for a matrix that
// vertexprog described without filling (hyb.Describe): it builds the ELL
// and COO arrays with hb_ell and hb_coo from the graph's CSR on the
// device (borrowCSR: the copy that is there, or an upload), so the host
// never holds a second copy of the graph. A transposed matrix
// (hyb.DescribeTranspose: a directed graph's in-matrix) is built from the
// transpose of its TransposeOf, made on the device (transposedOnDevice),
// which with K = 0 is its COO as it is. Inside Do.
func (d *Device) buildOnDevice(md *Matrix, m *hyb.Matrix, pt *phase.Trace) {
	mod := d.hybBuildModule()
	pt.Mark("module")
	var tr []cu.DevicePtr
	defer func() { rt.FreeAll(tr) }()
	var rowPtr, col, val cu.DevicePtr
	if m.TransposeOf != nil && m.K == 0 {
		md.cooPtr, md.cooCol, md.cooVal = d.transposedOnDevice(&md.bufs, m, pt)
		d.NotePeak()
		return
	}
	if m.SymmetrizeOf != nil {
		// (the view SymmetrizedRows built for it, or, if it went, again)
		c := d.csrFor(m.Src)
		if c == nil {
			c, _ = d.symmetrizeOnDevice(*m.SymmetrizeOf, m.Src.RowPtr, pt)
		} else {
			pt.Mark("view on the device")
		}
		rowPtr, col = c.rowPtr, c.col
		if m.Weighted() {
			val = c.val
		}
	} else if m.TransposeOf != nil {
		rowPtr, col, val = d.transposedOnDevice(&tr, m, pt)
	} else {
		c := d.borrowCSR(m.Src, pt)
		rowPtr, col = c.rowPtr, c.col
		if m.Weighted() {
			val = c.val
		}
	}
	md.cooPtr = rt.Put(d, &md.bufs, m.CooPtr[md.rows.Lo:md.rows.Hi+1])
	pt.Mark("COO offsets")
	slots, coo := int64(m.K)*int64(md.pitch), m.CooNNZ()
	md.ellCol, md.cooCol = rt.Alloc(&md.bufs, slots*4), rt.Alloc(&md.bufs, coo*4)
	if m.Weighted() {
		md.ellVal, md.cooVal = rt.Alloc(&md.bufs, slots*4), rt.Alloc(&md.bufs, coo*4)
	}
	pt.Mark("ELL and COO allocations")
	a := make([]byte, 80)
	le := binary.LittleEndian
	// (the rows of md's copy: hb_ell's slots and hb_coo's rows [lo, n),
	// the COO offsets by the matrix's rows)
	for i, p := range []cu.DevicePtr{rowPtr, col, val, md.byRow(md.cooPtr, 8), md.ellCol, md.ellVal, md.cooCol, md.cooVal} {
		le.PutUint64(a[8*i:], uint64(p))
	}
	for i, v := range []int{md.rows.Hi, m.K, md.pitch, md.rows.Lo} {
		le.PutUint32(a[64+4*i:], uint32(v))
	}
	unused := make([]byte, 4)
	most := int64(d.SMs) * 16
	if slots > 0 {
		mod.Launch2("hb_ell", min(rt.Blocks(slots, rt.BlockSize), most), d.Stream(), a, unused)
	}
	if rows := int64(md.rows.Hi - md.rows.Lo); rows > 0 {
		mod.Launch2("hb_coo", min(rt.Blocks(rows*32, rt.BlockSize), most), d.Stream(), a, unused)
	}
	d.Sync()
	pt.Mark("build")
	d.NotePeak()
}

// transposedOnDevice makes on the device the CSR of m, a transposed
// matrix (m.TransposeOf set): it transposes the out-CSR m.TransposeOf
// (borrowCSR: the copy on the device, or an upload that stays there for
// the graph's out-matrix) with transposeRows (in chunks where it is
// large), the result's arrays joining bufs, and checks the transpose's
// row pointer against m's, counted on the host (a mismatch is a bug: it
// panics). Inside Do.
func (d *Device) transposedOnDevice(bufs *[]cu.DevicePtr, m *hyb.Matrix, pt *phase.Trace) (rowPtr, col, val cu.DevicePtr) {
	c := d.borrowCSR(*m.TransposeOf, pt)
	if m.Weighted() {
		val = c.val
	}
	rowPtr, col, val = d.transposeRows(bufs, c.rowPtr, c.col, val, m.TransposeOf.RowPtr, m.Src.RowPtr)
	pt.Mark("transpose, its rows checked")
	return rowPtr, col, val
}

// hbTile is the rows a block of hb_bin_count and hb_bin_place bins
// (HB_TILE in hybbuild.cu).
const hbTile = 256 * 8

// deviceBins bins m's rows on the device (hb_bin_* in hybbuild.cu) into
// md's bin buffers: the same lists as makePullBins (bins_test.go) on the
// host, which took 6 ms of a kron21 BFS's first PREPROCESS. Only the
// heavy rows come back to the host, which cuts them into chunks (they are
// few). Inside Do.
func (d *Device) deviceBins(md *Matrix, m *hyb.Matrix, lim BinLimits) *Bins {
	mod := d.hybBuildModule()
	b := &Bins{lim: lim}
	// (the rows of md's copy, [lo, n))
	tiles := int64(ceilDiv(md.rows.Hi-md.rows.Lo, hbTile))
	var tmp []cu.DevicePtr
	defer func() { rt.FreeAll(tmp) }()
	counts := rt.Alloc(&tmp, tiles*16+16)
	totals := counts + cu.DevicePtr(tiles*16)
	arg := func(rows, heavy cu.DevicePtr) []byte {
		a := make([]byte, 64)
		le := binary.LittleEndian
		for i, p := range []cu.DevicePtr{md.byRow(md.cooPtr, 8), counts, rows, heavy, totals} {
			le.PutUint64(a[8*i:], uint64(p))
		}
		for i, v := range []int{md.rows.Hi, lim.Thread, lim.Quad, lim.Warp, md.rows.Lo} {
			le.PutUint32(a[40+4*i:], uint32(v))
		}
		return a
	}
	var tot [4]int32
	if tiles > 0 {
		mod.Launch2("hb_bin_count", tiles, d.Stream(), arg(0, 0), make([]byte, 4))
		nt := make([]byte, 4)
		binary.LittleEndian.PutUint32(nt, uint32(tiles))
		mod.Launch2("hb_bin_scan", 1, d.Stream(), arg(0, 0), nt)
		d.Sync()
		cu.MemcpyDtoH(unsafe.Pointer(&tot[0]), totals, 16)
	}
	b.nWarp, b.nQuad, b.nThread = int(tot[0]), int(tot[1]), int(tot[2])
	md.binRows = rt.Alloc(&md.binBufs, int64(b.nWarp+b.nQuad+b.nThread)*4)
	heavy := rt.Alloc(&tmp, int64(tot[3])*4)
	if tiles > 0 {
		mod.Launch2("hb_bin_place", tiles, d.Stream(), arg(md.binRows, heavy), make([]byte, 4))
		d.Sync()
	}
	if tot[3] > 0 {
		b.heavyRow = make([]int32, tot[3])
		cu.MemcpyDtoH(unsafe.Pointer(&b.heavyRow[0]), heavy, int64(tot[3])*4)
	}
	b.heavyFirst, b.chunkHeavy = heavyChunks(m.CooPtr, b.heavyRow, lim.Chunk)
	md.chunkHeavy = rt.Put(d, &md.binBufs, b.chunkHeavy)
	md.heavyRow = rt.Put(d, &md.binBufs, b.heavyRow)
	md.heavyFirst = rt.Put(d, &md.binBufs, b.heavyFirst)
	return b
}

// deviceDegrees fills md.PushDeg with the row degrees of md's matrix,
// counted on the device from its ELL and COO arrays (hb_degrees), and
// md.PushChunks with the push chunks they make. md holds every row
// (rowsOf: a window's copy has no degrees). Inside Do.
func (d *Device) deviceDegrees(md *Matrix) {
	m := md.m
	if md.rows != (Window{0, m.N}) {
		panic("cuda: push degrees of a copy of some rows only") // (a bug: rowsOf gives every row with degrees)
	}
	md.PushDeg = rt.Alloc(&md.bufs, int64(m.N)*4)
	var tmp []cu.DevicePtr
	defer func() { rt.FreeAll(tmp) }()
	chunks := rt.Alloc(&tmp, 8)
	cu.MemsetD32(chunks, 0, 2)
	cu.CtxSynchronize() // (the memset ran on the legacy stream)
	a := make([]byte, 48)
	le := binary.LittleEndian
	for i, p := range []cu.DevicePtr{md.ellCol, md.cooPtr, md.PushDeg, chunks} {
		le.PutUint64(a[8*i:], uint64(p))
	}
	for i, v := range []int{m.N, m.K, m.Pitch, PushChunk} {
		le.PutUint32(a[32+4*i:], uint32(v))
	}
	d.hybBuildModule().Launch2("hb_degrees", min(rt.Blocks(int64(m.N), rt.BlockSize), int64(d.SMs)*16), d.Stream(), a, make([]byte, 4))
	d.Sync()
	var c uint64
	cu.MemcpyDtoH(unsafe.Pointer(&c), chunks, 8)
	md.PushChunks = int64(c)
}
