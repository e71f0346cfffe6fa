//go:build cgo

package cuda

import (
	_ "embed"
	"encoding/binary"
	"unsafe"

	"github.com/hpgraph/hpgraph/cuda/cu"
	"github.com/hpgraph/hpgraph/hyb"
)

//go:embed hybbuild.cu
var hybBuildSource string

var hybBuildKernels = []string{"hb_ell", "hb_coo", "hb_restore"}

// buildOnDevice is PREPROCESS on the device for a matrix that
// vertexprog described without filling (hyb.Describe): it uploads the
// CSR, builds the ELL and COO arrays from it with hb_ell and hb_coo, and
// frees the CSR, so the host never holds a second copy of the graph.
// Inside device.do.
func buildOnDevice(md *matDev, m *hyb.Matrix, pt *phaseTrace) {
	d := theDev
	mod := d.hybBuildModule()
	pt.mark("module")
	var csr []cu.DevicePtr
	defer func() { freeAll(csr) }()
	rowPtr := devPut(&csr, m.Src.RowPtr)
	pt.mark("row offsets")
	col := devAlloc(&csr, int64(len(m.Src.Col))*4)
	pt.mark("columns' allocation")
	if len(m.Src.Col) > 0 {
		htod(col, unsafe.Pointer(&m.Src.Col[0]), int64(len(m.Src.Col))*4)
	}
	pt.mark("columns' upload")
	val := devPut(&csr, m.Src.Val)
	md.cooPtr = devPut(&md.bufs, m.CooPtr)
	slots, coo := int64(m.K)*int64(m.Pitch), m.CooNNZ()
	md.ellCol, md.cooCol = devAlloc(&md.bufs, slots*4), devAlloc(&md.bufs, coo*4)
	if m.Weighted() {
		md.ellVal, md.cooVal = devAlloc(&md.bufs, slots*4), devAlloc(&md.bufs, coo*4)
	}
	pt.mark("values, COO offsets, ELL and COO allocations")
	a := make([]byte, 80)
	le := binary.LittleEndian
	for i, p := range []cu.DevicePtr{rowPtr, col, val, md.cooPtr, md.ellCol, md.ellVal, md.cooCol, md.cooVal} {
		le.PutUint64(a[8*i:], uint64(p))
	}
	for i, v := range []int{m.N, m.K, m.Pitch} {
		le.PutUint32(a[64+4*i:], uint32(v))
	}
	unused := make([]byte, 4)
	most := int64(d.sms) * 16
	mod.launch2("hb_ell", min(blocks(slots, blockSize), most), d.stream, a, unused)
	mod.launch2("hb_coo", min(blocks(int64(m.N)*32, blockSize), most), d.stream, a, unused)
	d.syncStream()
	pt.mark("build")
	d.notePeak()
}

// hybBuildModule compiles (or finds in the caches) and loads the
// kernels of hybbuild.cu. Inside device.do.
func (d *device) hybBuildModule() *module {
	ptx, key, err := d.kernelImage(hybBuildSource)
	if err != nil {
		panic(err)
	}
	m, err := d.loadModule(key, ptx, hybBuildKernels)
	if err != nil {
		panic(err)
	}
	return m
}

// devAlloc allocates bytes of device memory owned by bufs (0 for none).
func devAlloc(bufs *[]cu.DevicePtr, bytes int64) cu.DevicePtr {
	if bytes <= 0 {
		return 0
	}
	p := cu.MemAlloc(bytes)
	*bufs = append(*bufs, p)
	return p
}

// restore copies bytes from src to dst on the device with hb_restore (see
// hybbuild.cu) and waits for it. Inside device.do.
func (d *device) restore(dst, src cu.DevicePtr, bytes int64) {
	a := make([]byte, 24)
	le := binary.LittleEndian
	le.PutUint64(a, uint64(src))
	le.PutUint64(a[8:], uint64(dst))
	le.PutUint64(a[16:], uint64(bytes))
	d.hybBuildModule().launch2("hb_restore", min(blocks((bytes+15)/16, blockSize), int64(d.sms)*16), d.stream, a, make([]byte, 4))
	d.syncStream()
}
