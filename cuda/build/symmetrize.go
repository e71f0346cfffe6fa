//go:build cgo

package build

import (
	"encoding/binary"
	"fmt"
	"math"
	"unsafe"

	"github.com/hpgraph/hpgraph/cuda/cu"
	"github.com/hpgraph/hpgraph/cuda/rt"
	"github.com/hpgraph/hpgraph/hyb"
	"github.com/hpgraph/hpgraph/internal/phase"
)

// A directed graph's undirected view on the device (issue 24, item 2): the
// rows every program gathering along AllEdges reads, each vertex's out-
// and in-neighbours merged (datasets.Graph.Symmetrized), which the host
// built with a transpose and a merge of every row (kron21 read as arcs,
// 42M of them: 331-335 ms on the H200's 16 cores, most of a directed
// graph's PREPROCESS for an Orientation). Here the out-CSR (prefetched or
// uploaded) is transposed on the device (deviceTranspose), and the rows
// merged arc by arc (hb_sy_* in hybbuild.cu: chunks of 32 arcs, a warp
// each, so a hub's row is many warps' work): the kept entries of each
// side's chunks, their counts scanned, the view's row offsets from those
// sums, which go to the host (n*8 bytes: the matrix is described from
// them, hyb.DescribeSymmetrized), then the rows filled. The view stays on
// the device as a CSR copy whose source is those row offsets, so the
// matrix described from them borrows it (buildOnDevice), and it goes with
// that matrix.

// symArg is hybbuild.cu's HB_Sym: index 0 the out-rows (A), 1 the
// in-rows (B).
type symArg struct {
	ptr, col, val, deg, ch, mask, cnt, base [2]cu.DevicePtr
	symPtr, symCol, symVal                  cu.DevicePtr
	chunks                                  [2]int64
	n                                       int
}

func (a *symArg) bytes() []byte {
	b := make([]byte, 176)
	le := binary.LittleEndian
	at := 0
	put := func(v uint64) { le.PutUint64(b[at:], v); at += 8 }
	for _, p := range [][2]cu.DevicePtr{a.ptr, a.col, a.val, a.deg, a.ch, a.mask, a.cnt, a.base} {
		put(uint64(p[0]))
		put(uint64(p[1]))
	}
	put(uint64(a.symPtr))
	put(uint64(a.symCol))
	put(uint64(a.symVal))
	put(uint64(a.chunks[0]))
	put(uint64(a.chunks[1]))
	le.PutUint32(b[at:], uint32(a.n))
	return b
}

// symChunks bounds a side's chunks of 32 arcs: at most nnz/32 full ones
// and one partial a row.
func symChunks(n int, nnz int64) int64 { return nnz/32 + int64(n) + 1 }

// symmetrizedBytes bounds the device memory symmetrizeOnDevice needs
// besides the out-CSR: the transpose and its temporaries, each side's
// degrees, chunk offsets, masks, counts, bases and scan sums, and the
// view (at most twice the arcs).
func symmetrizedBytes(n int, nnz int64, weighted bool) int64 {
	per := int64(4)
	if weighted {
		per = 8
	}
	ch := symChunks(n, nnz)
	side := int64(n)*4 + int64(n+1)*8 + (int64(n)/orientRows+1)*8 + ch*8 + (ch+1)*8 + (ch/orientRows+1)*8
	return deviceTransposeBytes(n, nnz, weighted) + 2*side + int64(n+1)*8 + 2*nnz*per
}

// SymmetrizedRows is driver.Symmetrizer's on d.
func (d *Device) SymmetrizedRows(rowPtr []int64, col []int32, val []float32) ([]int64, error) {
	n := len(rowPtr) - 1
	if n < 0 || rowPtr[n] != int64(len(col)) || (val != nil && len(val) != len(col)) {
		return nil, fmt.Errorf("cuda: SymmetrizedRows: inconsistent CSR (%d row offsets, %d columns, %d values)", len(rowPtr), len(col), len(val))
	}
	var rows []int64
	err := d.Do("building a directed graph's undirected view", func() error {
		of := hyb.CSR{RowPtr: rowPtr, Col: col, Val: val}
		if symChunks(n, int64(len(col))) > math.MaxInt32 {
			return fmt.Errorf("cuda: a directed graph's undirected view: %d arcs are more than its scans take (the host builds it)", len(col))
		}
		need := symmetrizedBytes(n, int64(len(col)), val != nil)
		if d.csrFor(of) == nil {
			need += csrBytes(of)
		}
		if free, _ := d.MemInfo(); need > free {
			return fmt.Errorf("cuda: a directed graph's undirected view needs %d MiB of device memory, %d MiB are free (the host builds it)", need>>20, free>>20)
		}
		pt := phase.New("cuda", "undirected view")
		defer pt.Print()
		_, rows = d.symmetrizeOnDevice(of, nil, pt)
		return nil
	})
	return rows, err
}

// symmetrizeOnDevice builds of's undirected view on the device and keeps
// it among the CSR copies, its source the view's row offsets on the host,
// which it returns: want where given (a matrix described from them whose
// view went: the device's are checked against them, a mismatch is a bug
// and panics), else a new slice. Inside Do.
func (d *Device) symmetrizeOnDevice(of hyb.CSR, want []int64, pt *phase.Trace) (*csrCopy, []int64) {
	n := len(of.RowPtr) - 1
	nnz := int64(len(of.Col))
	src := d.borrowCSR(of, pt)
	var tmp []cu.DevicePtr
	defer func() { rt.FreeAll(tmp) }()
	a := symArg{n: n}
	a.ptr[0], a.col[0] = src.rowPtr, src.col
	if of.Val != nil {
		a.val[0] = src.val
	}
	a.ptr[1], a.col[1], a.val[1] = d.deviceTranspose(&tmp, src.rowPtr, src.col, a.val[0], n, nnz)
	pt.Mark("transpose")
	c := &csrCopy{}
	ok := false
	defer func() {
		if !ok {
			rt.FreeAll(c.bufs)
		}
	}()
	c.rowPtr = rt.Alloc(&c.bufs, int64(n+1)*8)
	a.symPtr = c.rowPtr
	mod := d.hybBuildModule()
	most := int64(d.SMs) * 16
	if n > 0 {
		unused := make([]byte, 4)
		a.deg[0], a.deg[1] = rt.Alloc(&tmp, int64(n)*4), rt.Alloc(&tmp, int64(n)*4)
		mod.Launch2("hb_sy_deg", min(rt.Blocks(int64(n), rt.BlockSize), most), d.Stream(), a.bytes(), unused)
		for s := range 2 {
			a.ch[s] = rt.Alloc(&tmp, int64(n+1)*8)
			d.orientScan(mod, orArg{cnt: a.deg[s], off: a.ch[s], sums: rt.Alloc(&tmp, (int64(n)/orientRows+1)*8), n: n, unit: 32})
		}
		ch := symChunks(n, nnz) // (both sides hold nnz arcs)
		for s := range 2 {
			a.chunks[s] = ch
			a.mask[s], a.cnt[s] = rt.Alloc(&tmp, ch*4), rt.Alloc(&tmp, ch*4)
			a.base[s] = rt.Alloc(&tmp, (ch+1)*8)
		}
		for s := range 2 {
			mod.Launch2("hb_sy_mask", min(rt.Blocks(a.chunks[s]*32, rt.BlockSize), most), d.Stream(), a.bytes(), side(s))
			d.orientScan(mod, orArg{cnt: a.cnt[s], off: a.base[s], sums: rt.Alloc(&tmp, (a.chunks[s]/orientRows+1)*8), n: int(a.chunks[s]), unit: 1})
		}
		mod.Launch2("hb_sy_rows", min(rt.Blocks(int64(n)+1, rt.BlockSize), most), d.Stream(), a.bytes(), unused)
		d.Sync()
	} else {
		cu.MemsetD32(c.rowPtr, 0, 2)
		cu.CtxSynchronize() // (the memset ran on the legacy stream)
	}
	rows := make([]int64, n+1)
	d.DtoH(unsafe.Pointer(&rows[0]), c.rowPtr, int64(n+1)*8)
	pt.Mark("counts")
	if want != nil {
		checkRows(rows, want, "undirected view")
		rows = want
	}
	total := rows[n]
	c.col = rt.Alloc(&c.bufs, total*4)
	if of.Val != nil {
		c.val = rt.Alloc(&c.bufs, total*4)
	}
	if total > 0 {
		a.symCol, a.symVal = c.col, c.val
		for s := range 2 {
			mod.Launch2("hb_sy_fill", min(rt.Blocks(a.chunks[s]*32, rt.BlockSize), most), d.Stream(), a.bytes(), side(s))
		}
		d.Sync()
	}
	pt.Mark("rows")
	d.keepCSR(c, hyb.CSR{RowPtr: rows})
	ok = true
	return c, rows
}

// side is a kernel's int argument s, the side of HB_Sym it works on.
func side(s int) []byte { return binary.LittleEndian.AppendUint32(nil, uint32(s)) }
