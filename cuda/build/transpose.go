//go:build cgo

package build

// The transpose on the device (issue 24, item 2): deviceTranspose turns a
// CSR already on the device into its transpose, equal to the host's
// datasets.Graph.Transpose, so that a directed graph's in-adjacency (the
// rows of InEdges' pull matrices: BFS, SSSP and PageRank pulls) need not
// be built on the host and uploaded. buildOnDevice uses it for a matrix
// described by hyb.DescribeTranspose (transposedOnDevice in hybbuild.go);
// vertexprog describes a directed graph's in-matrix so for a run that may
// go to a device. Not yet run on a GPU: the tests that must pass there are
// TestDeviceTransposeMatchesHost, TestDeviceInMatrixMatchesHost,
// TestDeviceInMatrixRowsChecked and TestDeviceInMatricesMatchCPU.
//
// Integration, as planned (done so, except where noted: the K = 0
// matrix takes the device's transpose as its COO; the out-CSR goes back
// among the prefetched copies instead of being kept for the out-matrix;
// the tiles of a transposed matrix read the out-CSR as its columns):
//
//  1. vertexprog: Graph.matrix(rowsIn, opt) for a directed graph no longer
//     calls inAdj() when the backend can transpose. hyb.Describe needs only
//     the rows' lengths (ChooseK and CooPtr read rowPtr alone), so the
//     host counts the in-degrees in one parallel pass over Col (per-worker
//     or atomic counters, then a prefix sum: n*8 bytes, not a second copy
//     of the graph) and describes the matrix from that rowPtr with Col and
//     W nil — hyb.Describe's consistency check then needs a variant (say
//     hyb.DescribeRows(n, rowPtr, nnz, weighted, opt)). The matrix records
//     that its Src is "the transpose of g.Dataset()" (a field such as
//     Matrix.TransposeOf *datasets.Graph), Degree comes from the counted
//     rowPtr, and Bounds as today. K = 0 is the exception: there the CSR is
//     the COO, so a K = 0 in-matrix (hyb.Describe shares rowPtr/col/val)
//     still needs the host transpose, or a device path that takes the
//     transposed CSR as the COO without copying (buildOnDevice keeps
//     tCol/tVal as md.cooCol/cooVal).
//  2. Materialize (the CPU engine, and any host reader of EllCol/CooCol)
//     keeps the host path: a Matrix with TransposeOf set and no Src.Col
//     builds g.inAdj() on first Materialize, exactly as today, so the CPU
//     backend and the host's InNeighbors are unchanged.
//  3. cuda.buildOnDevice: when m.TransposeOf is set, upload (or take the
//     prefetched copy of) the out-CSR of TransposeOf — the same bytes the
//     out-matrix uploads, so a prefetch of the graph serves both — then
//     deviceTranspose it, free the out-CSR unless the out-matrix is being
//     built too, check that the device's tRowPtr equals the host's counted
//     rowPtr (m.CooPtr is derived from it: one download of n*8 bytes, or a
//     device compare kernel; a mismatch is a bug and panics), and run
//     hb_ell/hb_coo on (tRowPtr, tCol, tVal) as today. cache.go's size
//     estimate for building a matrix adds deviceTransposeBytes.
//  4. Tests: for directed graphs (weighted or not, with self loops,
//     parallel arcs, hubs, empty rows), every split (all COO, mixed, all
//     ELL) and every app that pulls along InEdges: the device-built
//     in-matrix's EllCol/EllVal/CooCol/CooVal/CooPtr equal the host's
//     hyb.FromCSR of g.Dataset().Transpose() (as TestBuildOnDeviceMatchesHost
//     does for out-matrices), the Matrix's Degree equals the transpose's
//     row lengths, no host transpose was built (g.in stays nil) on the GPU
//     path, and BFS/SSSP/PageRank results on the GPU equal the CPU engine's
//     (verify's gonum check already covers the apps end to end).
//
// The algorithm (transpose.cu): a stable LSD radix sort, by head, of the
// arcs in the CSR's order, 8 bits a pass (ceil(log2(n)/8) passes: 3 for
// kron21, 4 for kron27), each pass a histogram of every 4096-arc tile,
// a scan of those, and a scatter through shared memory; then the row
// offsets by binary search of the sorted heads, and the weights of runs of
// parallel arcs sorted. Deterministic: no atomics decide any place.
//
// Speed (an estimate, not measured): a pass reads 4 bytes an arc for the
// histogram and 12 and writes 12 for the scatter (heads, tails, weights):
// about 1.9 GB a pass for kron21's 67M weighted arcs, 0.7-1 ms at the
// 2-3 TB/s such scatters reach on an H200; with tr_src (0.2 ms),
// tr_rowptr and tr_fix (0.3 ms), 3-4 ms for kron21 weighted, about 3 ms
// unweighted; kron27 (2.1B arcs, 4 passes) about 130 ms. Memory: besides
// the output (tRowPtr n*8, tCol and tVal nnz*4 each), nnz*12 bytes of
// temporaries (nnz*16 weighted) and nnz/16*4 of histograms.

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"unsafe"

	"github.com/hpgraph/hpgraph/cuda/cu"
	"github.com/hpgraph/hpgraph/cuda/rt"
	"github.com/hpgraph/hpgraph/internal/par"
)

const (
	// trTile is the arcs a block of tr_src, tr_hist and tr_scatter takes
	// (TR_TILE), trRadix a pass's digits (TR_RADIX), trScanChunk the
	// histogram entries a block of tr_scan1 scans (TR_SCAN_CHUNK).
	trTile      = 4096
	trDigitBits = 8
	trRadix     = 1 << trDigitBits
	trScanChunk = 4096
)

// transposePasses is the radix passes that sort heads in [0, n).
func transposePasses(n int) int {
	return max(1, (bits.Len(uint(max(n-1, 0)))+trDigitBits-1)/trDigitBits)
}

// deviceTransposeBytes is the device memory deviceTranspose takes at its
// peak for nnz arcs among n vertices, output included.
func deviceTransposeBytes(n int, nnz int64, weighted bool) int64 {
	b := int64(n+1)*8 + nnz*4*4 // tRowPtr, tCol, two key arrays, the tails' temporary
	if weighted {
		b += nnz * 4 * 2
	}
	tiles := (nnz + trTile - 1) / trTile
	return b + tiles*trRadix*4 + (tiles*trRadix+trScanChunk-1)/trScanChunk*8
}

// trArg is transpose.cu's TR_Arg.
type trArg struct {
	rowPtr, keyIn, srcIn, valIn, keyOut, srcOut, valOut, hist, sums, tRowPtr cu.DevicePtr
	nnz, tiles                                                               int64
	n, shift                                                                 int
	base                                                                     int64
}

func (a *trArg) bytes() []byte {
	b := make([]byte, 112)
	le := binary.LittleEndian
	for i, p := range []cu.DevicePtr{a.rowPtr, a.keyIn, a.srcIn, a.valIn, a.keyOut, a.srcOut, a.valOut, a.hist, a.sums, a.tRowPtr} {
		le.PutUint64(b[8*i:], uint64(p))
	}
	le.PutUint64(b[80:], uint64(a.nnz))
	le.PutUint64(b[88:], uint64(a.tiles))
	le.PutUint32(b[96:], uint32(a.n))
	le.PutUint32(b[100:], uint32(a.shift))
	le.PutUint64(b[104:], uint64(a.base))
	return b
}

// deviceTranspose returns the transpose of the device CSR (rowPtr: n+1
// int64 offsets, col: nnz int32 heads, val: nnz float32 weights or 0 for
// none): row v of the result lists the tails u of the arcs u -> v in
// increasing order, parallel arcs by increasing weight — exactly
// datasets.Graph.Transpose's arrays (weights of equal value keep their
// out-row order; only -0 beside +0 among one pair's parallel arcs could
// be ordered otherwise, as the host's unstable sort orders them
// arbitrarily). The result's arrays (tVal 0 when val is) are added to
// bufs; the input is left as it was. Inside Do.
func (d *Device) deviceTranspose(bufs *[]cu.DevicePtr, rowPtr, col, val cu.DevicePtr, n int, nnz int64) (tRowPtr, tCol, tVal cu.DevicePtr) {
	tRowPtr = rt.Alloc(bufs, int64(n+1)*8)
	if nnz == 0 || n == 0 {
		cu.MemsetD32(tRowPtr, 0, int64(n+1)*2)
		cu.CtxSynchronize() // (the memset ran on the legacy stream)
		return tRowPtr, 0, 0
	}
	mod := d.transposeModule()
	weighted := val != 0
	tCol = rt.Alloc(bufs, nnz*4)
	if weighted {
		tVal = rt.Alloc(bufs, nnz*4)
	}
	var tmp []cu.DevicePtr
	defer func() { rt.FreeAll(tmp) }()
	tiles := (nnz + trTile - 1) / trTile
	keys := [2]cu.DevicePtr{rt.Alloc(&tmp, nnz*4), rt.Alloc(&tmp, nnz*4)}
	srcTmp := rt.Alloc(&tmp, nnz*4)
	var valTmp cu.DevicePtr
	if weighted {
		valTmp = rt.Alloc(&tmp, nnz*4)
	}
	hist, sums := sortScratch(&tmp, nnz)

	// The last pass writes the tails and weights to the output; tr_src
	// writes the tails where the first pass does not read them.
	passes := transposePasses(n)
	f := (passes - 1) % 2
	b := sortBufs{key: keys, src: [2]cu.DevicePtr{srcTmp, srcTmp}, val: [2]cu.DevicePtr{valTmp, valTmp}}
	b.src[f], b.val[f] = tCol, tVal
	unused := make([]byte, 4)
	most := int64(d.SMs) * 16
	mod.Launch2("tr_src", min(tiles, most), d.Stream(), (&trArg{rowPtr: rowPtr, srcOut: b.src[1], nnz: nnz, tiles: tiles, n: n}).bytes(), unused)
	keyIn := d.radixSort(mod, col, b.src[1], val, b, nnz, 0, passes, hist, sums)
	// keyIn: the sorted heads; srcIn, valIn: tCol, tVal.
	a := (&trArg{keyIn: keyIn, srcIn: tCol, valOut: tVal, tRowPtr: tRowPtr, nnz: nnz, tiles: tiles, n: n}).bytes()
	mod.Launch2("tr_rowptr", min(rt.Blocks(int64(n)+1, rt.BlockSize), most), d.Stream(), a, unused)
	if weighted {
		mod.Launch2("tr_fix", min(rt.Blocks(nnz, rt.BlockSize), most), d.Stream(), a, unused)
	}
	d.Sync()
	d.NotePeak()
	return tRowPtr, tCol, tVal
}

// sortBufs are the arrays a radix sort's passes write: pass p writes
// key[p%2], src[p%2] and val[p%2] (val 0: no values).
type sortBufs struct{ key, src, val [2]cu.DevicePtr }

// sortScratch allocates on tmp the histograms and sums of a radix sort
// of nnz records.
func sortScratch(tmp *[]cu.DevicePtr, nnz int64) (hist, sums cu.DevicePtr) {
	tiles := (nnz + trTile - 1) / trTile
	chunks := (tiles*trRadix + trScanChunk - 1) / trScanChunk
	return rt.Alloc(tmp, tiles*trRadix*4), rt.Alloc(tmp, chunks*8)
}

// sortScratchBytes is the device memory of sortScratch's arrays.
func sortScratchBytes(nnz int64) int64 {
	tiles := (nnz + trTile - 1) / trTile
	return tiles*trRadix*4 + (tiles*trRadix+trScanChunk-1)/trScanChunk*8
}

// radixSort sorts the nnz records (keyIn, srcIn, valIn) stably by key
// with the tr_ passes (passes of trDigitBits bits, from bit shift up),
// writing through b: the sorted records are key[f], src[f] and val[f]
// for f = (passes-1)%2, and it returns key[f]. The input arrays are read
// by the first pass only, so they may be b's arrays of index 1. hist and
// sums are sortScratch's. Asynchronous on the device's stream.
func (d *Device) radixSort(mod *rt.Module, keyIn, srcIn, valIn cu.DevicePtr, b sortBufs, nnz int64, shift, passes int, hist, sums cu.DevicePtr) cu.DevicePtr {
	tiles := (nnz + trTile - 1) / trTile
	chunks := (tiles*trRadix + trScanChunk - 1) / trScanChunk
	unused := make([]byte, 4)
	for p := range passes {
		k := p % 2
		a := (&trArg{keyIn: keyIn, srcIn: srcIn, valIn: valIn, keyOut: b.key[k], srcOut: b.src[k], valOut: b.val[k],
			hist: hist, sums: sums, nnz: nnz, tiles: tiles, shift: shift + p*trDigitBits}).bytes()
		mod.Launch2("tr_hist", tiles, d.Stream(), a, unused)
		mod.Launch2("tr_scan1", chunks, d.Stream(), a, unused)
		mod.Launch2("tr_scan2", 1, d.Stream(), a, unused)
		mod.Launch2("tr_scatter", tiles, d.Stream(), a, unused)
		keyIn, srcIn, valIn = b.key[k], b.src[k], b.val[k]
	}
	return keyIn
}

// checkTransposeRows panics unless the device's row pointer dev (len(want)
// int64s) equals want, the host's count of the transpose's rows (a bug in
// deviceTranspose or the in-degree count). Inside Do.
func checkTransposeRows(dev cu.DevicePtr, want []int64) {
	got := make([]int64, len(want))
	cu.MemcpyDtoH(unsafe.Pointer(&got[0]), dev, int64(len(got))*8)
	checkRows(got, want, "transpose")
}

// checkRows panics unless the row offsets the device made (got) equal
// want, the ones the host counted or a matrix was described from.
func checkRows(got, want []int64, what string) {
	if len(got) != len(want) {
		panic(fmt.Sprintf("cuda: the device's %s has %d row offsets, the host %d (a bug)", what, len(got), len(want)))
	}
	bad := make([]int, par.Workers())
	for w := range bad {
		bad[w] = -1
	}
	par.Blocks(len(want), func(w, lo, hi int) {
		for i := lo; i < hi; i++ {
			if got[i] != want[i] {
				bad[w] = i
				return
			}
		}
	})
	for _, i := range bad {
		if i >= 0 {
			panic(fmt.Sprintf("cuda: the device's %s has row offset %d at row %d, the host has %d (a bug)", what, got[i], i, want[i]))
		}
	}
}
