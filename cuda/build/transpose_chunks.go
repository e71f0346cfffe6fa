//go:build cgo

package build

import (
	"fmt"
	"sort"
	"unsafe"

	"github.com/hpgraph/hpgraph/cuda/cu"
	"github.com/hpgraph/hpgraph/cuda/rt"
)

// The transpose in chunks: deviceTranspose sorts every arc at once, with
// temporaries of 12 bytes an arc (16 weighted) beside its output, which
// made a part's push matrix on a device cost 16 bytes an arc more than
// the matrix itself while it was built (kron28's part of the hubs asked
// for 216 GB). Where the host knows the result's rows (a described
// transpose counts them), transposeRows sorts the arcs chunk by chunk,
// each chunk whole out-rows, and places each chunk's tails at cursors
// that start at those rows (tr_place, tr_advance in transpose.cu): its
// temporaries are one chunk's, and its result is deviceTranspose's.

// transposeChunkArcs is the arcs a chunked transpose sorts at once (a
// chunk takes whole rows, so its last row may carry it past). Its
// temporaries are 16 bytes an arc of a chunk, 24 weighted: 4 GiB.
var transposeChunkArcs int64 = 1 << 28

// transposeRows is deviceTranspose of the device CSR (rowPtr, col, val)
// whose row offsets are srcRows on the host, the result's row offsets
// tRows counted by the host: over transposeChunkArcs arcs it sorts chunk
// by chunk. The result's arrays join bufs. Inside Do.
func (d *Device) transposeRows(bufs *[]cu.DevicePtr, rowPtr, col, val cu.DevicePtr, srcRows, tRows []int64) (tRowPtr, tCol, tVal cu.DevicePtr) {
	n := len(srcRows) - 1
	nnz := srcRows[n]
	bounds := chunkRows(srcRows, transposeChunkArcs)
	if len(bounds) <= 2 {
		tRowPtr, tCol, tVal = d.deviceTranspose(bufs, rowPtr, col, val, n, nnz)
		checkTransposeRows(tRowPtr, tRows)
		return tRowPtr, tCol, tVal
	}
	mod := d.transposeModule()
	weighted := val != 0
	tRowPtr = rt.Put(d, bufs, tRows)
	tCol = rt.Alloc(bufs, nnz*4)
	if weighted {
		tVal = rt.Alloc(bufs, nnz*4)
	}
	var tmp []cu.DevicePtr
	defer func() { rt.FreeAll(tmp) }()
	most := largestChunk(srcRows, bounds)
	cur := rt.Alloc(&tmp, int64(n)*8+4) // (the heads' cursors, then tr_check's count)
	d.Restore(cur, tRowPtr, int64(n)*8)
	b := sortBufs{key: [2]cu.DevicePtr{rt.Alloc(&tmp, most*4), rt.Alloc(&tmp, most*4)},
		src: [2]cu.DevicePtr{rt.Alloc(&tmp, most*4), rt.Alloc(&tmp, most*4)}}
	if weighted {
		b.val = [2]cu.DevicePtr{rt.Alloc(&tmp, most*4), rt.Alloc(&tmp, most*4)}
	}
	hist, sums := sortScratch(&tmp, most)
	passes := transposePasses(n)
	f := (passes - 1) % 2
	unused := make([]byte, 4)
	grid := int64(d.SMs) * 16
	for i := 1; i < len(bounds); i++ {
		a0, a1 := srcRows[bounds[i-1]], srcRows[bounds[i]]
		k := a1 - a0
		if k == 0 {
			continue
		}
		tiles := (k + trTile - 1) / trTile
		mod.Launch2("tr_src", min(tiles, grid), d.Stream(), (&trArg{rowPtr: rowPtr, srcOut: b.src[1], nnz: k, tiles: tiles, n: n, base: a0}).bytes(), unused)
		valIn := cu.DevicePtr(0)
		if weighted {
			valIn = val + cu.DevicePtr(a0*4)
		}
		keys := d.radixSort(mod, col+cu.DevicePtr(a0*4), b.src[1], valIn, b, k, 0, passes, hist, sums)
		a := (&trArg{keyIn: keys, srcIn: b.src[f], valIn: b.val[f], srcOut: tCol, valOut: tVal, tRowPtr: cur, nnz: k, n: n}).bytes()
		blocks := min(rt.Blocks(k, rt.BlockSize), grid)
		if weighted {
			fix := (&trArg{keyIn: keys, srcIn: b.src[f], valOut: b.val[f], nnz: k, n: n}).bytes()
			mod.Launch2("tr_fix", blocks, d.Stream(), fix, unused)
		}
		mod.Launch2("tr_place", blocks, d.Stream(), a, unused)
		mod.Launch2("tr_advance", blocks, d.Stream(), a, unused)
	}
	count := cur + cu.DevicePtr(int64(n)*8)
	d.Fill32(count, 0, 1)
	mod.Launch2("tr_check", min(rt.Blocks(int64(n), rt.BlockSize), grid), d.Stream(), (&trArg{rowPtr: tRowPtr, tRowPtr: cur, hist: count, n: n}).bytes(), unused)
	var bad uint32
	d.Sync()
	cu.MemcpyDtoH(unsafe.Pointer(&bad), count, 4)
	if bad != 0 {
		panic(fmt.Sprintf("hpgraph: the chunked transpose left %d rows' cursors off their counted ends (a bug)", bad))
	}
	d.NotePeak()
	return tRowPtr, tCol, tVal
}

// chunkRows cuts the rows of a CSR with row offsets rowPtr into runs of
// about most arcs, whole rows each: the rows where they start, and n.
func chunkRows(rowPtr []int64, most int64) []int {
	n := len(rowPtr) - 1
	bounds := []int{0}
	for r := 0; r < n; {
		// the first row whose start is at least most arcs past r's, or
		// the row after r where r alone has more
		next := r + sort.Search(n-r, func(i int) bool { return rowPtr[r+i] >= rowPtr[r]+most })
		next = max(next, r+1)
		if next > n {
			next = n
		}
		bounds = append(bounds, next)
		r = next
	}
	if n == 0 {
		bounds = append(bounds, 0)
	}
	return bounds
}

// largestChunk is the arcs of the longest of chunkRows' chunks.
func largestChunk(rowPtr []int64, bounds []int) int64 {
	most := int64(0)
	for i := 1; i < len(bounds); i++ {
		most = max(most, rowPtr[bounds[i]]-rowPtr[bounds[i-1]])
	}
	return most
}

// transposeRowsBytes is the device memory transposeRows takes at its
// peak for nnz arcs among n vertices whose CSR has row offsets rowPtr,
// output included.
func transposeRowsBytes(rowPtr []int64, weighted bool) int64 {
	n := len(rowPtr) - 1
	nnz := rowPtr[n]
	bounds := chunkRows(rowPtr, transposeChunkArcs)
	if len(bounds) <= 2 {
		return deviceTransposeBytes(n, nnz, weighted)
	}
	most := largestChunk(rowPtr, bounds)
	rec := int64(16)
	out := nnz * 4
	if weighted {
		rec, out = 24, nnz*8
	}
	return int64(n+1)*8 + int64(n)*8 + 4 + out + most*rec + sortScratchBytes(most)
}
