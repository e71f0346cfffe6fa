//go:build cgo

package cuda

import (
	"encoding/binary"
	"fmt"
	"unsafe"

	"github.com/hpgraph/hpgraph/cuda/cu"
	"github.com/hpgraph/hpgraph/hyb"
	"github.com/hpgraph/hpgraph/internal/par"
	"github.com/hpgraph/hpgraph/internal/phase"
)

// A directed graph's undirected view on the device (issue 24, item 2):
// the rows TC, LCC and any program gathering along AllEdges read, each
// vertex's out- and in-neighbours merged (datasets.Graph.Symmetrized),
// which the host built with a transpose and a merge of every row (kron21
// read as arcs, 42M of them: 331-335 ms on the H200's 16 cores, most of a
// directed TC's or LCC's PREPROCESS). Here the out-CSR (prefetched or
// uploaded) is transposed on the device (deviceTranspose), each row's
// merge counted (hb_sy_count: a thread a row), the counts scanned into
// row offsets, which go to the host (n*8 bytes: the matrix is described
// from them, hyb.DescribeSymmetrized), and the rows filled (hb_sy_fill).
// The view stays on the device as a CSR copy whose source is those row
// offsets, so the matrix described from them borrows it (buildOnDevice),
// and it goes with that matrix.

// symArg is hybbuild.cu's HB_Sym.
type symArg struct {
	outPtr, outCol, outVal, inPtr, inCol, inVal, cnt, symPtr, symCol, symVal cu.DevicePtr
	n                                                                        int
}

func (a *symArg) bytes() []byte {
	b := make([]byte, 88)
	le := binary.LittleEndian
	for i, p := range []cu.DevicePtr{a.outPtr, a.outCol, a.outVal, a.inPtr, a.inCol, a.inVal, a.cnt, a.symPtr, a.symCol, a.symVal} {
		le.PutUint64(b[8*i:], uint64(p))
	}
	le.PutUint32(b[80:], uint32(a.n))
	return b
}

// symmetrizedBytes bounds the device memory symmetrizeOnDevice needs
// besides the out-CSR: the transpose and its temporaries, the counts and
// scan sums, and the view (at most twice the arcs).
func symmetrizedBytes(n int, nnz int64, weighted bool) int64 {
	per := int64(4)
	if weighted {
		per = 8
	}
	return deviceTransposeBytes(n, nnz, weighted) + int64(n)*4 + (int64(n)/orientRows+1)*8 + int64(n+1)*8 + 2*nnz*per
}

// SymmetrizedRows implements vertexprog.Symmetrizer.
func (Backend) SymmetrizedRows(rowPtr []int64, col []int32, val []float32) ([]int64, error) {
	d, err := getDevice()
	if err != nil {
		return nil, err
	}
	n := len(rowPtr) - 1
	if n < 0 || rowPtr[n] != int64(len(col)) || (val != nil && len(val) != len(col)) {
		return nil, fmt.Errorf("cuda: SymmetrizedRows: inconsistent CSR (%d row offsets, %d columns, %d values)", len(rowPtr), len(col), len(val))
	}
	var rows []int64
	err = d.do("building a directed graph's undirected view", func() error {
		of := hyb.CSR{RowPtr: rowPtr, Col: col, Val: val}
		need := symmetrizedBytes(n, int64(len(col)), val != nil)
		if d.csrFor(of) == nil {
			need += csrBytes(of)
		}
		if free, _ := d.memInfo(); need > free {
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
// and panics), else a new slice. Inside device.do.
func (d *device) symmetrizeOnDevice(of hyb.CSR, want []int64, pt *phase.Trace) (*csrCopy, []int64) {
	n := len(of.RowPtr) - 1
	nnz := int64(len(of.Col))
	src := d.borrowCSR(of, pt)
	var tmp []cu.DevicePtr
	defer func() { freeAll(tmp) }()
	a := symArg{outPtr: src.rowPtr, outCol: src.col, n: n}
	if of.Val != nil {
		a.outVal = src.val
	}
	a.inPtr, a.inCol, a.inVal = deviceTranspose(&tmp, src.rowPtr, src.col, a.outVal, n, nnz)
	pt.Mark("transpose")
	c := &csrCopy{}
	ok := false
	defer func() {
		if !ok {
			freeAll(c.bufs)
		}
	}()
	c.rowPtr = devAlloc(&c.bufs, int64(n+1)*8)
	mod := d.hybBuildModule()
	most := int64(d.sms) * 16
	unused := make([]byte, 4)
	if n > 0 {
		a.cnt = devAlloc(&tmp, int64(n)*4)
		mod.launch2("hb_sy_count", min(blocks(int64(n), blockSize), most), d.stream, a.bytes(), unused)
		orientScan(mod, orArg{cnt: a.cnt, off: c.rowPtr, sums: devAlloc(&tmp, max((int64(n)+orientRows-1)/orientRows, 1)*8), n: n, unit: 1})
		d.syncStream()
	} else {
		cu.MemsetD32(c.rowPtr, 0, 2)
		cu.CtxSynchronize() // (the memset ran on the legacy stream)
	}
	rows := make([]int64, n+1)
	dtoh(unsafe.Pointer(&rows[0]), c.rowPtr, int64(n+1)*8)
	pt.Mark("counts")
	if want != nil {
		checkRows(rows, want, "undirected view")
		rows = want
	}
	total := rows[n]
	c.col = devAlloc(&c.bufs, total*4)
	if of.Val != nil {
		c.val = devAlloc(&c.bufs, total*4)
	}
	if total > 0 {
		a.symPtr, a.symCol, a.symVal = c.rowPtr, c.col, c.val
		mod.launch2("hb_sy_fill", min(blocks(int64(n), blockSize), most), d.stream, a.bytes(), unused)
		d.syncStream()
	}
	pt.Mark("rows")
	c.src = hyb.CSR{RowPtr: rows}
	c.done = true
	d.mu.Lock()
	d.csrs = append(d.csrs, c)
	d.mu.Unlock()
	ok = true
	d.notePeak()
	return c, rows
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
