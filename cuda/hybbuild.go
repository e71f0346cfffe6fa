//go:build cgo

package cuda

import (
	_ "embed"
	"encoding/binary"
	"github.com/hpgraph/hpgraph/cuda/rt"
	"math"
	"unsafe"

	"github.com/hpgraph/hpgraph/cuda/cu"
	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/hyb"
	"github.com/hpgraph/hpgraph/internal/phase"
	"github.com/hpgraph/hpgraph/vertexprog"
)

//go:embed hybbuild.cu
var hybBuildSource string

var hybBuildKernels = []string{"hb_ell", "hb_coo", "hb_restore", "hb_bin_count", "hb_bin_scan", "hb_bin_place", "hb_degrees",
	"hb_or_deg", "hb_or_count", "hb_or_scan1", "hb_or_scan2", "hb_or_scan3", "hb_or_fill",
	"hb_rk_iota", "hb_rk_rank", "hb_rk_counts", "hb_rk_records", "hb_rk_adj", "hb_rk_both", "hb_sy_deg", "hb_sy_mask", "hb_sy_rows", "hb_sy_fill"}

// buildOnDevice is PREPROCESS on the device for a matrix that
// vertexprog described without filling (hyb.Describe): it builds the ELL
// and COO arrays with hb_ell and hb_coo from the graph's CSR on the
// device (borrowCSR: the copy that is there, or an upload), so the host
// never holds a second copy of the graph. A transposed matrix
// (hyb.DescribeTranspose: a directed graph's in-matrix) is built from the
// transpose of its TransposeOf, made on the device (transposedOnDevice),
// which with K = 0 is its COO as it is. Inside device.do.
func (d *device) buildOnDevice(md *matDev, m *hyb.Matrix, pt *phase.Trace) {
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
	md.cooPtr = rt.Put(d, &md.bufs, m.CooPtr)
	pt.Mark("COO offsets")
	slots, coo := int64(m.K)*int64(m.Pitch), m.CooNNZ()
	md.ellCol, md.cooCol = rt.Alloc(&md.bufs, slots*4), rt.Alloc(&md.bufs, coo*4)
	if m.Weighted() {
		md.ellVal, md.cooVal = rt.Alloc(&md.bufs, slots*4), rt.Alloc(&md.bufs, coo*4)
	}
	pt.Mark("ELL and COO allocations")
	a := make([]byte, 80)
	le := binary.LittleEndian
	for i, p := range []cu.DevicePtr{rowPtr, col, val, md.cooPtr, md.ellCol, md.ellVal, md.cooCol, md.cooVal} {
		le.PutUint64(a[8*i:], uint64(p))
	}
	for i, v := range []int{m.N, m.K, m.Pitch} {
		le.PutUint32(a[64+4*i:], uint32(v))
	}
	unused := make([]byte, 4)
	most := int64(d.SMs) * 16
	if slots > 0 {
		mod.Launch2("hb_ell", min(rt.Blocks(slots, rt.BlockSize), most), d.Stream(), a, unused)
	}
	mod.Launch2("hb_coo", min(rt.Blocks(int64(m.N)*32, rt.BlockSize), most), d.Stream(), a, unused)
	d.Sync()
	pt.Mark("build")
	d.NotePeak()
}

// transposedOnDevice makes on the device the CSR of m, a transposed
// matrix (m.TransposeOf set): it transposes the out-CSR m.TransposeOf
// (borrowCSR: the copy on the device, or an upload that stays there for
// the graph's out-matrix) with deviceTranspose, the result's arrays
// joining bufs, and checks the transpose's row pointer against m's,
// counted on the host (a mismatch is a bug: it panics). Inside device.do.
func (d *device) transposedOnDevice(bufs *[]cu.DevicePtr, m *hyb.Matrix, pt *phase.Trace) (rowPtr, col, val cu.DevicePtr) {
	c := d.borrowCSR(*m.TransposeOf, pt)
	if m.Weighted() {
		val = c.val
	}
	rowPtr, col, val = d.deviceTranspose(bufs, c.rowPtr, c.col, val, m.N, m.NNZ())
	pt.Mark("transpose")
	checkTransposeRows(rowPtr, m.Src.RowPtr)
	pt.Mark("transpose's row offsets checked")
	return rowPtr, col, val
}

// checkTransposeRows panics unless the device's row pointer dev (len(want)
// int64s) equals want, the host's count of the transpose's rows (a bug in
// deviceTranspose or the in-degree count). Inside device.do.
func checkTransposeRows(dev cu.DevicePtr, want []int64) {
	got := make([]int64, len(want))
	cu.MemcpyDtoH(unsafe.Pointer(&got[0]), dev, int64(len(got))*8)
	checkRows(got, want, "transpose")
}

// hybBuildModule compiles (or finds in the caches) and loads the
// kernels of hybbuild.cu. Inside device.do.
func (d *device) hybBuildModule() *rt.Module { return d.Module(hybBuildSource, hybBuildKernels) }

// restore copies bytes from src to dst on the device with hb_restore (see
// hybbuild.cu) and waits for it. Inside device.do.
func (d *device) restore(dst, src cu.DevicePtr, bytes int64) {
	a := make([]byte, 24)
	le := binary.LittleEndian
	le.PutUint64(a, uint64(src))
	le.PutUint64(a[8:], uint64(dst))
	le.PutUint64(a[16:], uint64(bytes))
	d.hybBuildModule().Launch2("hb_restore", min(rt.Blocks((bytes+15)/16, rt.BlockSize), int64(d.SMs)*16), d.Stream(), a, make([]byte, 4))
	d.Sync()
}

// hbTile is the rows a block of hb_bin_count and hb_bin_place bins
// (HB_TILE in hybbuild.cu).
const hbTile = 256 * 8

// deviceBins bins m's rows on the device (hb_bin_* in hybbuild.cu) into
// md's bin buffers: the same lists as makePullBins (bins_test.go) on the
// host, which took 6 ms of a kron21 BFS's first PREPROCESS. Only the
// heavy rows come back to the host, which cuts them into chunks (they are
// few). Inside device.do.
func (d *device) deviceBins(md *matDev, m *hyb.Matrix, lim binLimits) *pullBins {
	mod := d.hybBuildModule()
	b := &pullBins{lim: lim}
	tiles := int64(ceilDiv(m.N, hbTile))
	var tmp []cu.DevicePtr
	defer func() { rt.FreeAll(tmp) }()
	counts := rt.Alloc(&tmp, tiles*16+16)
	totals := counts + cu.DevicePtr(tiles*16)
	arg := func(rows, heavy cu.DevicePtr) []byte {
		a := make([]byte, 56)
		le := binary.LittleEndian
		for i, p := range []cu.DevicePtr{md.cooPtr, counts, rows, heavy, totals} {
			le.PutUint64(a[8*i:], uint64(p))
		}
		for i, v := range []int{m.N, lim.Thread, lim.Quad, lim.Warp} {
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

// deviceDegrees fills md.pushDeg with the row degrees of md's matrix,
// counted on the device from its ELL and COO arrays (hb_degrees), and
// md.pushChunks with the push chunks they make. Inside device.do.
func (d *device) deviceDegrees(md *matDev) {
	m := md.m
	md.pushDeg = rt.Alloc(&md.bufs, int64(m.N)*4)
	var tmp []cu.DevicePtr
	defer func() { rt.FreeAll(tmp) }()
	chunks := rt.Alloc(&tmp, 8)
	cu.MemsetD32(chunks, 0, 2)
	cu.CtxSynchronize() // (the memset ran on the legacy stream)
	a := make([]byte, 48)
	le := binary.LittleEndian
	for i, p := range []cu.DevicePtr{md.ellCol, md.cooPtr, md.pushDeg, chunks} {
		le.PutUint64(a[8*i:], uint64(p))
	}
	for i, v := range []int{m.N, m.K, m.Pitch, pushChunk} {
		le.PutUint32(a[32+4*i:], uint32(v))
	}
	d.hybBuildModule().Launch2("hb_degrees", min(rt.Blocks(int64(m.N), rt.BlockSize), int64(d.SMs)*16), d.Stream(), a, make([]byte, 4))
	d.Sync()
	var c uint64
	cu.MemcpyDtoH(unsafe.Pointer(&c), chunks, 8)
	md.pushChunks = int64(c)
}

// orientDev is a graph's vertexprog.Orientation on the device, built
// from the matrix of its Neighbors and kept with it (matDev.orient).
type orientDev struct {
	deg, cnt, off, adj cu.DevicePtr
	adjLen             int64 // Adj's entries (Off[N])
	// rank, both: a ranked orientation's (both one zero word for an
	// undirected graph)
	rank, both cu.DevicePtr
}

// orientRows is how many rows a block of hb_or_scan1 sums (HB_OR_ROWS).
const orientRows = 1024

// orArg is hybbuild.cu's HB_Or.
type orArg struct {
	ellCol, cooCol, cooPtr, deg, cnt, off, adj, sums, rank, key, val, low, padAt, len, seg cu.DevicePtr
	n, k, pitch, all, unit                                                                 int
}

func (a *orArg) bytes() []byte {
	b := make([]byte, 144)
	le := binary.LittleEndian
	for i, p := range []cu.DevicePtr{a.ellCol, a.cooCol, a.cooPtr, a.deg, a.cnt, a.off, a.adj, a.sums, a.rank, a.key, a.val, a.low, a.padAt, a.len, a.seg} {
		le.PutUint64(b[8*i:], uint64(p))
	}
	for i, v := range []int{a.n, a.k, a.pitch, a.all, a.unit} {
		le.PutUint32(b[120+4*i:], uint32(v))
	}
	return b
}

// orSegment is HB_OR_SEG: the row entries a warp of hb_or_count and
// hb_rk_records takes at a time.
const orSegment = 256

// orientDegrees runs hb_or_deg (each row's degree and length, its count
// zeroed), scans the lengths into a's segments (seg, allocated in tmp)
// and counts each row's kept entries with hb_or_count. Asynchronous.
func (d *device) orientDegrees(mod *rt.Module, a *orArg, tmp *[]cu.DevicePtr) {
	n := int64(a.n)
	grid := min(rt.Blocks(n*32, rt.BlockSize), int64(d.SMs)*16)
	a.len, a.seg = rt.Alloc(tmp, n*4), rt.Alloc(tmp, (n+1)*8)
	unused := make([]byte, 4)
	mod.Launch2("hb_or_deg", min(rt.Blocks(n, rt.BlockSize), int64(d.SMs)*16), d.Stream(), a.bytes(), unused)
	sa := *a
	sa.cnt, sa.off, sa.unit = a.len, a.seg, orSegment
	d.orientScan(mod, sa)
	mod.Launch2("hb_or_count", grid, d.Stream(), a.bytes(), unused)
}

// orientScan turns the n counts at a.cnt into their offsets at a.off (n+1
// entries, each count rounded up to a.unit) with hb_or_scan1..3, sums
// holding a long long per orientRows counts. Asynchronous.
func (d *device) orientScan(mod *rt.Module, a orArg) {
	n := int64(a.n)
	scanBlocks := (n + orientRows - 1) / orientRows
	unused := make([]byte, 4)
	b := a.bytes()
	mod.Launch2("hb_or_scan1", scanBlocks, d.Stream(), b, unused)
	nb := make([]byte, 4)
	binary.LittleEndian.PutUint32(nb, uint32(scanBlocks))
	mod.Launch2("hb_or_scan2", 1, d.Stream(), b, nb)
	mod.Launch2("hb_or_scan3", min(rt.Blocks(n, rt.BlockSize), int64(d.SMs)*16), d.Stream(), b, unused)
}

// deviceOrientation builds the orientation (all: every neighbour) of the
// graph whose Neighbors md's matrix holds, with the hb_or kernels: the
// degrees, the lists' lengths, their offsets (a scan in three kernels),
// then the lists. Only Off[N] comes back to the host, to size Adj. Inside
// device.do.
func (d *device) deviceOrientation(md *matDev, all bool) *orientDev {
	m := md.m
	n := int64(m.N)
	o := &orientDev{deg: rt.Alloc(&md.bufs, n*4), cnt: rt.Alloc(&md.bufs, n*4), off: rt.Alloc(&md.bufs, (n+1)*8)}
	var tmp []cu.DevicePtr
	defer func() { rt.FreeAll(tmp) }()
	a := orArg{ellCol: md.ellCol, cooCol: md.cooCol, cooPtr: md.cooPtr, deg: o.deg, cnt: o.cnt, off: o.off,
		sums: rt.Alloc(&tmp, max((n+orientRows-1)/orientRows, 1)*8), n: m.N, k: m.K, pitch: m.Pitch, unit: vertexprog.OrientationBlock}
	if all {
		a.all = 1
	}
	mod := d.hybBuildModule()
	most := int64(d.SMs) * 16
	unused := make([]byte, 4)
	if n == 0 {
		cu.MemsetD32(o.off, 0, 2)
		cu.CtxSynchronize()
	} else {
		d.orientDegrees(mod, &a, &tmp)
		d.orientScan(mod, a)
		d.Sync()
	}
	cu.MemcpyDtoH(unsafe.Pointer(&o.adjLen), o.off+cu.DevicePtr(n*8), 8)
	if o.adjLen > 0 {
		o.adj = rt.Alloc(&md.bufs, o.adjLen*4)
		a.adj = o.adj
		mod.Launch2("hb_or_fill", min(rt.Blocks(n*32, rt.BlockSize), most), d.Stream(), a.bytes(), unused)
		d.Sync()
	}
	md.bytes += n*16 + 8 + o.adjLen*4
	d.NotePeak()
	return o
}

// deviceRankedOrientation builds the ranked orientation of g, whose
// Neighbors md's matrix holds (hybbuild.cu's hb_rk kernels, and two radix
// sorts of transpose.cu's: the ids by degree, then the lists' records by
// row); for a directed g, Both from its out-rows, uploaded for it
// (hb_rk_both). Only Off[N] comes back to the host, to size Adj and Both.
// With a trace (pt not nil) each step is waited for and marked: where
// kron21's 10-11 ms go (session 23). Inside device.do.
func (d *device) deviceRankedOrientation(md *matDev, g *datasets.Graph, pt *phase.Trace) *orientDev {
	m := md.m
	n := int64(m.N)
	o := &orientDev{deg: rt.Alloc(&md.bufs, n*4), cnt: rt.Alloc(&md.bufs, n*4), off: rt.Alloc(&md.bufs, (n+1)*8),
		rank: rt.Alloc(&md.bufs, n*4)}
	var tmp []cu.DevicePtr
	defer func() { rt.FreeAll(tmp) }()
	a := orArg{ellCol: md.ellCol, cooCol: md.cooCol, cooPtr: md.cooPtr, deg: o.deg, cnt: rt.Alloc(&tmp, n*4), rank: o.rank,
		sums: rt.Alloc(&tmp, max((n+orientRows-1)/orientRows, 1)*8), n: m.N, k: m.K, pitch: m.Pitch, unit: vertexprog.OrientationBlock}
	if n == 0 {
		o.both = rt.Alloc(&md.bufs, 4)
		cu.MemsetD32(o.off, 0, 2)
		cu.MemsetD32(o.both, 0, 1)
		cu.CtxSynchronize()
		return o
	}
	mod, tr := d.hybBuildModule(), d.transposeModule()
	most := int64(d.SMs) * 16
	unused := make([]byte, 4)
	launch := func(name string, threads int64, a orArg) {
		mod.Launch2(name, min(rt.Blocks(threads, rt.BlockSize), most), d.Stream(), a.bytes(), unused)
	}
	// Degrees and each vertex's count above it, in id order.
	mark := func(name string) {
		if pt != nil {
			d.Sync()
			pt.Mark(name)
		}
	}
	d.orientDegrees(mod, &a, &tmp)
	mark("ranked: degrees and counts")
	// Ranks: the ids sorted stably by degree (below nnz+1, or 2^31);
	// order, the sorted ids, stays for a directed graph's Both.
	var order cu.DevicePtr
	{
		var sbuf []cu.DevicePtr
		ids := rt.Alloc(&tmp, n*4)
		b := sortBufs{key: [2]cu.DevicePtr{rt.Alloc(&sbuf, n*4), rt.Alloc(&sbuf, n*4)}, src: [2]cu.DevicePtr{rt.Alloc(&tmp, n*4), ids}}
		hist, sums := sortScratch(&sbuf, n)
		ia := a
		ia.val = ids
		launch("hb_rk_iota", n, ia)
		passes := transposePasses(int(min(m.NNZ(), math.MaxInt32-1) + 1))
		d.radixSort(tr, o.deg, ids, 0, b, n, 0, passes, hist, sums)
		order = b.src[(passes-1)%2]
		ia.val = order
		launch("hb_rk_rank", n, ia)
		d.Sync()
		rt.FreeAll(sbuf)
		mark("ranks (sort by degree)")
	}
	// In rank order: the counts below (key), then low, their offsets; the
	// lists' lengths (cnt), then off.
	ca := a
	ca.key, ca.val = rt.Alloc(&tmp, n*4), o.cnt
	launch("hb_rk_counts", n, ca)
	low := rt.Alloc(&tmp, (n+1)*8)
	sa := a
	sa.cnt, sa.off, sa.unit = ca.key, low, 1
	d.orientScan(mod, sa)
	sa.cnt, sa.off, sa.unit = o.cnt, o.off, vertexprog.OrientationBlock
	d.orientScan(mod, sa)
	d.Sync()
	cu.MemcpyDtoH(unsafe.Pointer(&o.adjLen), o.off+cu.DevicePtr(n*8), 8)
	mark("list lengths and offsets")
	if o.adjLen > 0 {
		// The records, then their sort by row.
		recs := o.adjLen
		b := sortBufs{key: [2]cu.DevicePtr{rt.Alloc(&tmp, recs*4), rt.Alloc(&tmp, recs*4)}, src: [2]cu.DevicePtr{rt.Alloc(&tmp, recs*4), rt.Alloc(&tmp, recs*4)}}
		padAt := rt.Alloc(&tmp, 8)
		cu.MemsetD32(padAt, 0, 2)
		cu.CtxSynchronize() // (the memsets ran on the legacy stream)
		ra := a
		ra.key, ra.val, ra.low, ra.padAt = b.key[1], b.src[1], low, padAt
		mark("records allocated")
		launch("hb_rk_records", n*32, ra)
		mark("records written")
		hist, sums := sortScratch(&tmp, recs)
		passes := transposePasses(int(n))
		d.radixSort(tr, b.key[1], b.src[1], 0, b, recs, 0, passes, hist, sums)
		mark("records sorted")
		o.adj = rt.Alloc(&md.bufs, o.adjLen*4)
		fa := a
		fa.off, fa.adj, fa.val = o.off, o.adj, b.src[(passes-1)%2]
		launch("hb_rk_adj", recs, fa)
		d.Sync()
		mark("lists")
	}
	words := int64(1)
	if g.Directed {
		words = max(1, (o.adjLen+31)/32)
	}
	o.both = rt.Alloc(&md.bufs, words*4)
	cu.MemsetD32(o.both, 0, words)
	cu.CtxSynchronize() // (the memset ran on the legacy stream)
	if g.Directed && o.adjLen > 0 {
		// Which edges have arcs both ways: the out-rows, the device's copy
		// (the undirected view was made from it) or uploaded for it.
		rowPtr, col := cu.DevicePtr(0), cu.DevicePtr(0)
		if c := d.csrFor(hyb.CSR{RowPtr: g.RowPtr, Col: g.Col}); c != nil {
			rowPtr, col = c.rowPtr, c.col
		} else {
			rowPtr, col = rt.Put(d, &tmp, g.RowPtr), rt.Put(d, &tmp, g.Col)
		}
		args := make([]byte, 64)
		le := binary.LittleEndian
		for i, p := range []cu.DevicePtr{rowPtr, col, order, o.off, o.cnt, o.adj, o.both} {
			le.PutUint64(args[8*i:], uint64(p))
		}
		le.PutUint32(args[56:], uint32(n))
		mod.Launch2("hb_rk_both", min(rt.Blocks(n*32, rt.BlockSize), most), d.Stream(), args, unused)
		d.Sync()
		mark("arcs both ways")
	}
	md.bytes += n*20 + 8 + words*4 + o.adjLen*4
	d.NotePeak()
	return o
}

// orientation is md's orientation of o's kind, built.
func (md *matDev) orientation(o *vertexprog.Orientation) *orientDev { return md.orient[orientKind(o)] }

// orientKind indexes matDev.orient: 0 for an Orientation, 1 with All, 2
// for a ranked one.
func orientKind(o *vertexprog.Orientation) int {
	switch {
	case o.Ranked:
		return 2
	case o.All:
		return 1
	}
	return 0
}

// ptr is the device array of part p.
func (o *orientDev) ptr(p vertexprog.OrientationPart) cu.DevicePtr {
	switch p {
	case vertexprog.OrientationDeg:
		return o.deg
	case vertexprog.OrientationCnt:
		return o.cnt
	case vertexprog.OrientationOff:
		return o.off
	case vertexprog.OrientationRank:
		return o.rank
	case vertexprog.OrientationBoth:
		return o.both
	}
	return o.adj
}
