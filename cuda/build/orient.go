//go:build cgo

package build

import (
	"encoding/binary"
	"fmt"
	"math"
	"unsafe"

	"github.com/hpgraph/hpgraph/cuda/cu"
	"github.com/hpgraph/hpgraph/cuda/rt"
	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/hyb"
	"github.com/hpgraph/hpgraph/internal/phase"
	"github.com/hpgraph/hpgraph/vertexprog/driver"
)

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
func (d *Device) orientDegrees(mod *rt.Module, a *orArg, tmp *[]cu.DevicePtr) {
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
func (d *Device) orientScan(mod *rt.Module, a orArg) {
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
// Do.
func (d *Device) deviceOrientation(md *Matrix, all bool) *Orientation {
	m := md.m
	n := int64(m.N)
	o := &Orientation{deg: rt.Alloc(&md.bufs, n*4), cnt: rt.Alloc(&md.bufs, n*4), off: rt.Alloc(&md.bufs, (n+1)*8)}
	var tmp []cu.DevicePtr
	defer func() { rt.FreeAll(tmp) }()
	a := orArg{ellCol: md.ellCol, cooCol: md.cooCol, cooPtr: md.cooPtr, deg: o.deg, cnt: o.cnt, off: o.off,
		sums: rt.Alloc(&tmp, max((n+orientRows-1)/orientRows, 1)*8), n: m.N, k: m.K, pitch: m.Pitch, unit: driver.OrientationBlock}
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
	o.used = d.inUse()
	d.NotePeak()
	return o
}

// deviceRankedOrientation builds the ranked orientation of g, whose
// Neighbors md's matrix holds (hybbuild.cu's hb_rk kernels, and two radix
// sorts of transpose.cu's: the ids by degree, then the lists' records by
// row); for a directed g, Both from its out-rows, uploaded for it
// (hb_rk_both). Only Off[N] comes back to the host, to size Adj and Both.
// With a trace (pt not nil) each step is waited for and marked: where
// kron21's 10-11 ms go (docs/perf/device-preprocess.md#lccs-orientation-on-the-device).
// Inside Do.
func (d *Device) deviceRankedOrientation(md *Matrix, g *datasets.Graph, pt *phase.Trace) *Orientation {
	m := md.m
	n := int64(m.N)
	o := &Orientation{deg: rt.Alloc(&md.bufs, n*4), cnt: rt.Alloc(&md.bufs, n*4), off: rt.Alloc(&md.bufs, (n+1)*8),
		rank: rt.Alloc(&md.bufs, n*4)}
	var tmp []cu.DevicePtr
	defer func() { rt.FreeAll(tmp) }()
	a := orArg{ellCol: md.ellCol, cooCol: md.cooCol, cooPtr: md.cooPtr, deg: o.deg, cnt: rt.Alloc(&tmp, n*4), rank: o.rank,
		sums: rt.Alloc(&tmp, max((n+orientRows-1)/orientRows, 1)*8), n: m.N, k: m.K, pitch: m.Pitch, unit: driver.OrientationBlock}
	if n == 0 {
		o.both, o.bothWords = rt.Alloc(&md.bufs, 4), 1
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
	if pt != nil {
		d.Sync()
		pt.Mark(fmt.Sprintf("ranked over %d rows, K %d, pitch %d, COO %d: the matrix's work before it", m.N, m.K, m.Pitch, m.CooNNZ()))
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
	sa.cnt, sa.off, sa.unit = o.cnt, o.off, driver.OrientationBlock
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
	o.both, o.bothWords = rt.Alloc(&md.bufs, words*4), words
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
	o.used = d.inUse()
	d.NotePeak()
	return o
}

// inUse is the device memory in use (cuMemGetInfo's total less free).
// Inside Do.
func (d *Device) inUse() int64 {
	free, total := d.MemInfo()
	return total - free
}

// Orientation is md's orientation of o's kind, built (Orient).
func (md *Matrix) Orientation(o *driver.Orientation) *Orientation {
	return md.orient[OrientKind(o)]
}

// Orient builds md's orientation of o's kind unless it has it; g is the
// graph whose Neighbors md holds, all its rows (a part's pull, a window
// of rows, is oriented on the host). Inside Do.
func (d *Device) Orient(md *Matrix, o *driver.Orientation, g *datasets.Graph, pt *phase.Trace) {
	if md.rows != (Window{0, md.m.N}) {
		panic("cuda: an orientation of a copy of some rows only") // (a bug: run orients a part's on the host)
	}
	switch k := OrientKind(o); {
	case md.orient[k] != nil:
	case o.Ranked:
		md.orient[k] = d.deviceRankedOrientation(md, g, pt)
		pt.Mark("orientation")
	default:
		md.orient[k] = d.deviceOrientation(md, o.All)
		pt.Mark("orientation")
	}
}

// OrientKind indexes Matrix.orient: 0 for an Orientation, 1 with All, 2
// for a ranked one.
func OrientKind(o *driver.Orientation) int {
	switch {
	case o.Ranked:
		return 2
	case o.All:
		return 1
	}
	return 0
}

// Bytes is the size of the device array of part p, n being the graph's
// vertices.
func (o *Orientation) Bytes(p driver.OrientationPart, n int64) int64 {
	switch p {
	case driver.OrientationDeg, driver.OrientationCnt, driver.OrientationRank:
		if p == driver.OrientationRank && o.rank == 0 {
			return 0
		}
		return 4 * n
	case driver.OrientationOff:
		return 8 * (n + 1)
	case driver.OrientationBoth:
		return 4 * o.bothWords
	}
	return 4 * o.adjLen
}

// Ptr is the device array of part p.
func (o *Orientation) Ptr(p driver.OrientationPart) cu.DevicePtr {
	switch p {
	case driver.OrientationDeg:
		return o.deg
	case driver.OrientationCnt:
		return o.cnt
	case driver.OrientationOff:
		return o.off
	case driver.OrientationRank:
		return o.rank
	case driver.OrientationBoth:
		return o.both
	}
	return o.adj
}
