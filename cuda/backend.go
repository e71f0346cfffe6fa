//go:build cuda

package cuda

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"unsafe"

	"github.com/hpgraph/hpgraph/hyb"
	"github.com/hpgraph/hpgraph/vertexprog"
	"github.com/mumax/3/cuda/cu"
)

// Texture selects how kernels read the bitmasks and X in runs started
// afterwards: through texture objects (true) or __ldg loads (false).
// HPGRAPH_CUDA_TEXTURE=0 or 1 sets its initial value; a benchmark may
// flip it to compare.
var Texture = true

// cooTile is VP_TILE of kernels.cu: the COO entries one block reduces.
const cooTile = 1024

func init() {
	switch os.Getenv("HPGRAPH_CUDA_TEXTURE") {
	case "0", "false":
		Texture = false
	case "1", "true":
		Texture = true
	}
	vertexprog.RegisterBackend(Backend{})
}

// Backend is the CUDA backend (name "cuda").
type Backend struct{}

// Name implements vertexprog.Backend.
func (Backend) Name() string { return "cuda" }

// Available reports why the backend cannot run here (no driver, no
// device), or nil. The first call starts the CUDA context.
func (Backend) Available() error {
	_, err := getDevice()
	return err
}

// Describe names the device the backend runs on.
func Describe() (string, error) {
	d, err := getDevice()
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%s (compute %d.%d, %d MiB)", d.name, d.major, d.minor, d.totalMem>>20), nil
}

// matDev is a HYB matrix in device memory and its VP_Mat argument.
type matDev struct {
	ellCol, ellVal, cooRow, cooCol, cooVal, cooPtr cu.DevicePtr
	m                                              *hyb.Matrix
	arg                                            []byte
}

// matrixBytes is the device memory of m's arrays that a pull (rows) or a
// push (ptr) reads.
func matrixBytes(m *hyb.Matrix, rows, ptr bool) int64 {
	b := int64(len(m.EllCol))*4 + int64(len(m.EllVal))*4 + int64(len(m.CooCol))*4 + int64(len(m.CooVal))*4
	if rows {
		b += int64(len(m.CooRow)) * 4
	}
	if ptr {
		b += int64(len(m.CooPtr)) * 8
	}
	return b
}

// run is one program on the device.
type run struct {
	d      *device
	job    *vertexprog.DeviceJob
	mod    *module
	n      int
	words  int
	layout *stateLayout
	feats  features

	bufs []cu.DevicePtr
	texs []uint64

	pull, push *matDev
	x, y       cu.DevicePtr
	xTex       uint64
	mask       [2]cu.DevicePtr
	maskTex    [2]uint64
	cur        int // mask[cur] is x_bitmask, mask[1-cur] active_bitmask
	touched    cu.DevicePtr
	pushDeg    cu.DevicePtr
	carryFirst cu.DevicePtr
	carryLast  cu.DevicePtr
	ctl        cu.DevicePtr // counters, aggregator acc, prev, ops
	arrays     []cu.DevicePtr
	state      []byte

	ops    []vertexprog.Aggregator
	prev   []float64
	yDirty bool
	closed bool
}

// Start implements vertexprog.DeviceBackend.
func (Backend) Start(job *vertexprog.DeviceJob) (vertexprog.DeviceRun, error) {
	d, err := getDevice()
	if err != nil {
		return nil, err
	}
	return start(d, job)
}

func start(d *device, job *vertexprog.DeviceJob) (*run, error) {
	if job.Pull == nil {
		return nil, errors.New("cuda: the job has no pull matrix")
	}
	n := job.Pull.N
	if job.XSize < 0 || job.ASize <= 0 || len(job.X) != n*job.XSize {
		return nil, fmt.Errorf("cuda: inconsistent job: %d vertices, %d bytes of X at %d each, accumulator of %d bytes", n, len(job.X), job.XSize, job.ASize)
	}
	if job.Push != nil && (job.ASize != 4 && job.ASize != 8 || job.Push.N != n) {
		return nil, fmt.Errorf("cuda: push needs a 4- or 8-byte accumulator (have %d) and a square push matrix", job.ASize)
	}
	if job.Active == nil || job.Active.Len() != n {
		return nil, errors.New("cuda: the job's initial frontier does not match the graph")
	}
	if len(job.Aggregates) != len(job.Spec.Aggregators) {
		return nil, fmt.Errorf("cuda: %d aggregator values for %d aggregators", len(job.Aggregates), len(job.Spec.Aggregators))
	}
	layout, err := layoutState(&job.Code)
	if err != nil {
		return nil, err
	}
	feats := features{
		XSize: job.XSize, ASize: job.ASize, HasWants: job.HasWants, HasDone: job.HasDone,
		Texture: Texture,
	}
	feats.TextureX = Texture && job.XSize > 0 && job.XSize%4 == 0 && int64(n)*int64(job.XSize/4) <= d.texMaxWidth

	need := deviceBytes(job, layout)
	err = d.do("checking free device memory", func() error {
		free, total := d.memInfo()
		if need > free {
			return fmt.Errorf("%w on %s: the run needs %d bytes (%.1f MiB) of device memory, %d bytes (%.1f MiB) of %d are free",
				ErrOutOfMemory, d.name, need, float64(need)/(1<<20), free, float64(free)/(1<<20), total)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}

	src := buildSource(&job.Code, layout, feats)
	ptx, key, err := compile(src, d.arch())
	if err != nil {
		return nil, err
	}
	r := &run{d: d, job: job, n: n, words: (n + 31) / 32, layout: layout, feats: feats, yDirty: true,
		ops: job.Spec.Aggregators, prev: append([]float64(nil), job.Aggregates...)}
	err = d.do("copying the run to the device", func() error {
		var err error
		if r.mod, err = d.loadModule(key, ptx); err != nil {
			return err
		}
		if !r.mod.layoutOK {
			if err := layout.layoutErr(r.mod.stateOffsets(len(layout.offsets))); err != nil {
				return err
			}
			r.mod.layoutOK = true
		}
		r.upload()
		return nil
	})
	if err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

// deviceBytes is the device memory a job needs.
func deviceBytes(job *vertexprog.DeviceJob, l *stateLayout) int64 {
	n := int64(job.Pull.N)
	words := (n + 31) / 32
	need := int64(0)
	if job.Push == nil {
		need += matrixBytes(job.Pull.Matrix, true, false)
	} else if job.Push == job.Pull {
		need += matrixBytes(job.Pull.Matrix, true, true)
	} else {
		need += matrixBytes(job.Pull.Matrix, true, false) + matrixBytes(job.Push.Matrix, false, true)
	}
	need += n*int64(job.XSize) + max(8, n*int64(job.ASize)) + 2*words*4
	if job.Push != nil {
		need += words*4 + n*4 // touched, push degrees
	}
	if tiles := (int64(len(job.Pull.CooCol)) + cooTile - 1) / cooTile; tiles > 1 {
		need += 2 * tiles * int64(job.ASize)
	}
	need += ctlBytes(len(job.Spec.Aggregators))
	for _, a := range l.arrays {
		need += a.bytes
	}
	return need
}

func ctlBytes(nagg int) int64 { return int64(16 + 16*nagg + 4*nagg) }

// alloc allocates bytes of device memory owned by the run (0 for none).
func (r *run) alloc(bytes int64) cu.DevicePtr {
	if bytes <= 0 {
		return 0
	}
	p := cu.MemAlloc(bytes)
	r.bufs = append(r.bufs, p)
	return p
}

// put copies a Go slice of plain data to new device memory.
func put[T any](r *run, s []T) cu.DevicePtr {
	bytes := int64(len(s)) * int64(unsafe.Sizeof(*new(T)))
	p := r.alloc(bytes)
	if bytes > 0 {
		cu.MemcpyHtoD(p, unsafe.Pointer(&s[0]), bytes)
	}
	return p
}

func (r *run) uploadMatrix(m *hyb.Matrix, rows, ptr bool) *matDev {
	md := &matDev{m: m}
	md.ellCol, md.ellVal = put(r, m.EllCol), put(r, m.EllVal)
	md.cooCol, md.cooVal = put(r, m.CooCol), put(r, m.CooVal)
	if rows {
		md.cooRow = put(r, m.CooRow)
	}
	if ptr {
		md.cooPtr = put(r, m.CooPtr)
	}
	md.arg = make([]byte, 72)
	le := binary.LittleEndian
	for i, p := range []cu.DevicePtr{md.ellCol, md.ellVal, md.cooRow, md.cooCol, md.cooVal, md.cooPtr} {
		le.PutUint64(md.arg[8*i:], uint64(p))
	}
	le.PutUint64(md.arg[48:], uint64(len(m.CooCol)))
	le.PutUint32(md.arg[56:], uint32(m.N))
	le.PutUint32(md.arg[60:], uint32(m.K))
	le.PutUint32(md.arg[64:], uint32(m.Pitch))
	return md
}

// upload allocates and fills everything. On the context's thread.
func (r *run) upload() {
	job := r.job
	switch {
	case job.Push == nil:
		r.pull = r.uploadMatrix(job.Pull.Matrix, true, false)
	case job.Push == job.Pull:
		r.pull = r.uploadMatrix(job.Pull.Matrix, true, true)
		r.push = r.pull
	default:
		r.pull = r.uploadMatrix(job.Pull.Matrix, true, false)
		r.push = r.uploadMatrix(job.Push.Matrix, false, true)
	}
	if job.Push != nil {
		r.pushDeg = put(r, job.Push.Degree)
		r.touched = r.alloc(int64(r.words) * 4)
		if r.words > 0 {
			cu.MemsetD32(r.touched, 0, int64(r.words))
		}
	}
	r.x = put(r, job.X)
	r.y = r.alloc(max(8, int64(r.n)*int64(job.ASize)))
	r.mask[0] = put(r, job.Active.Words())
	r.mask[1] = r.alloc(int64(r.words) * 4)
	if r.words > 0 {
		cu.MemsetD32(r.mask[1], 0, int64(r.words))
	}
	if tiles := (int64(len(job.Pull.CooCol)) + cooTile - 1) / cooTile; tiles > 1 {
		r.carryFirst = r.alloc(tiles * int64(job.ASize))
		r.carryLast = r.alloc(tiles * int64(job.ASize))
	}
	nagg := len(r.ops)
	r.ctl = r.alloc(ctlBytes(nagg))
	ops := make([]int32, max(1, nagg))
	for i, op := range r.ops {
		ops[i] = int32(op)
	}
	if nagg > 0 {
		cu.MemcpyHtoD(r.ctl+cu.DevicePtr(16+16*nagg), unsafe.Pointer(&ops[0]), int64(4*nagg))
	}
	ptrs := make([]uint64, len(r.layout.arrays))
	for i, a := range r.layout.arrays {
		p := r.alloc(a.bytes)
		if a.bytes > 0 {
			cu.MemcpyHtoD(p, a.ptr, a.bytes)
		}
		r.arrays = append(r.arrays, p)
		ptrs[i] = uint64(p)
	}
	r.state = r.layout.bytes(ptrs)
	if r.feats.Texture && r.words > 0 {
		for i := range r.mask {
			r.maskTex[i] = r.tex(r.mask[i], int64(r.words)*4)
		}
	}
	if r.feats.TextureX && r.n > 0 {
		r.xTex = r.tex(r.x, int64(r.n)*int64(job.XSize))
	}
}

func (r *run) tex(p cu.DevicePtr, bytes int64) uint64 {
	t := texCreate(p, bytes)
	r.texs = append(r.texs, t)
	return t
}

// ctlArg is the VP_Ctl argument of superstep it.
func (r *run) ctlArg(it int) []byte {
	b := make([]byte, 120)
	le := binary.LittleEndian
	nagg := cu.DevicePtr(len(r.ops))
	var acc, prev, ops cu.DevicePtr
	if nagg > 0 {
		acc, prev, ops = r.ctl+16, r.ctl+16+8*nagg, r.ctl+16+16*nagg
	}
	for i, v := range []uint64{
		uint64(r.x), r.xTex, uint64(r.mask[r.cur]), r.maskTex[r.cur], uint64(r.mask[1-r.cur]),
		uint64(r.touched), uint64(r.ctl), uint64(r.pushDeg), uint64(r.y),
		uint64(r.carryFirst), uint64(r.carryLast), uint64(acc), uint64(prev), uint64(ops),
	} {
		le.PutUint64(b[8*i:], v)
	}
	le.PutUint32(b[112:], uint32(int32(it)))
	if !r.job.Spec.GatherAll {
		le.PutUint32(b[116:], 1)
	}
	return b
}

func aggIdentity(op vertexprog.Aggregator) float64 {
	switch op {
	case vertexprog.Min:
		return math.Inf(1)
	case vertexprog.Max:
		return math.Inf(-1)
	}
	return 0
}

func blocks(n int64, per int64) int64 { return (n + per - 1) / per }

// Step implements vertexprog.DeviceRun.
func (r *run) Step(it int, dir vertexprog.Direction) (active int, frontierEdges int64, aggregates []float64, err error) {
	if r.closed {
		return 0, 0, nil, errors.New("cuda: Step on a closed run")
	}
	if dir == vertexprog.Push && r.push == nil {
		return 0, 0, nil, errors.New("cuda: push superstep requested for a run without a push matrix")
	}
	nagg := len(r.ops)
	err = r.d.do(fmt.Sprintf("superstep %d (%s)", it, dir), func() error {
		// Counters to 0, the aggregators' contributions to their
		// identities, the previous superstep's values for aggregate().
		hdr := make([]float64, 2+2*nagg)
		for i, op := range r.ops {
			hdr[2+i] = aggIdentity(op)
			hdr[2+nagg+i] = r.prev[i]
		}
		cu.MemcpyHtoD(r.ctl, unsafe.Pointer(&hdr[0]), int64(8*len(hdr)))
		if r.words > 0 {
			cu.MemsetD32(r.mask[1-r.cur], 0, int64(r.words))
		}
		ctl := r.ctlArg(it)
		rows := blocks(int64(r.n), blockSize)
		pm := r.pull.arg
		if dir == vertexprog.Push {
			if r.yDirty {
				r.mod.launch("vp_fill", rows, pm, ctl, r.state)
				r.yDirty = false
			}
			r.mod.launch("vp_push", rows, r.push.arg, ctl, r.state)
			r.mod.launch("vp_apply_push", rows, pm, ctl, r.state)
		} else {
			r.mod.launch("vp_pull_ell", rows, pm, ctl, r.state)
			if tiles := blocks(int64(len(r.pull.m.CooCol)), cooTile); tiles > 0 {
				r.mod.launch("vp_pull_coo", tiles, pm, ctl, r.state)
				if tiles > 1 {
					r.mod.launch("vp_pull_fixup", blocks(tiles, blockSize), pm, ctl, r.state)
				}
			}
			r.mod.launch("vp_apply_pull", rows, pm, ctl, r.state)
			r.yDirty = true
		}
		// One read back per superstep (it waits for the kernels).
		back := make([]uint64, 2+nagg)
		cu.MemcpyDtoH(unsafe.Pointer(&back[0]), r.ctl, int64(8*len(back)))
		active, frontierEdges = int(back[0]), int64(back[1])
		aggregates = make([]float64, nagg)
		for i := range aggregates {
			aggregates[i] = math.Float64frombits(back[2+i])
		}
		r.cur = 1 - r.cur
		return nil
	})
	if err != nil {
		return 0, 0, nil, err
	}
	r.prev = aggregates
	return active, frontierEdges, aggregates, nil
}

// Finish implements vertexprog.DeviceRun: X into x, the writable state
// arrays into their Go slices.
func (r *run) Finish(x []byte) error {
	if r.closed {
		return errors.New("cuda: Finish on a closed run")
	}
	if len(x) != r.n*r.job.XSize {
		return fmt.Errorf("cuda: Finish: %d bytes for X, want %d", len(x), r.n*r.job.XSize)
	}
	return r.d.do("copying results back", func() error {
		if len(x) > 0 {
			cu.MemcpyDtoH(unsafe.Pointer(&x[0]), r.x, int64(len(x)))
		}
		for i, a := range r.layout.arrays {
			if !a.readOnly && a.bytes > 0 {
				cu.MemcpyDtoH(a.ptr, r.arrays[i], a.bytes)
			}
		}
		return nil
	})
}

// Close implements vertexprog.DeviceRun.
func (r *run) Close() {
	if r.closed {
		return
	}
	r.closed = true
	_ = r.d.do("freeing device memory", func() error {
		for _, t := range r.texs {
			texDestroy(t)
		}
		for _, p := range r.bufs {
			// Keep freeing the rest when one fails (a broken context).
			_ = catch("cuMemFree", func() error { cu.MemFree(p); return nil })
		}
		r.texs, r.bufs = nil, nil
		return nil
	})
}
