//go:build cgo

package run

import (
	"math"
	"math/bits"
	"runtime"
	"unsafe"

	"github.com/hpgraph/hpgraph/cuda/build"
	"github.com/hpgraph/hpgraph/cuda/cu"
	"github.com/hpgraph/hpgraph/cuda/rt"
	"github.com/hpgraph/hpgraph/internal/phase"
)

// A run's buffers on the device: allocated (or adopted from a parked
// run, park.go) and filled with the job's initial state.

// upload finds the run's matrices, allocates its buffers (or adopts a
// parked run's) and fills them. Inside Do.
func (r *progRun) upload(lim build.BinLimits, ts build.TileSpec, pt *phase.Trace) {
	job := r.job
	d := r.d
	if job.Push == job.Pull {
		r.pull = d.Cache.Get(job.Pull.Matrix, true, true, lim, ts, build.Window{})
		r.push = r.pull
	} else {
		// (a push transposed on the device first: its temporaries are
		// gone before the pull's matrix takes its place)
		if job.Push != nil && job.Push.TransposeOf != nil {
			r.push = d.Cache.Get(job.Push.Matrix, false, true, lim, build.TileSpec{}, build.Window{})
		}
		r.pull = d.Cache.Get(job.Pull.Matrix, true, false, lim, ts, pullRows(job))
		if job.Push != nil && r.push == nil {
			r.push = d.Cache.Get(job.Push.Matrix, false, true, lim, build.TileSpec{}, build.Window{})
		}
	}
	if om := orientMatrix(job, r.layout); om != job.Pull {
		r.whole = d.Cache.Get(om.Matrix, false, false, build.BinLimits{}, build.TileSpec{}, build.Window{})
	}
	d.notePartPull(r.job.Part, r.pull)
	d.DropCSRs(true, false)
	pt.Mark("matrices")
	for _, a := range r.layout.arrays {
		if a.orient == nil {
			continue
		}
		d.Orient(r.oriented(), a.orient, r.job.Graph.Dataset(), pt)
	}
	// (another run may hold the matrix's tiles of another shape)
	r.tiles = ts.RowBits > 0 && r.pull.Tiles.Matches(ts)
	if r.tiles {
		d.counts.tiledRuns++
	}
	if !d.adopt(r) {
		r.allocate()
	}
	pt.Mark("run's buffers")
	r.fill()
	pt.Mark("run's state")
}

// allocate allocates the run's device buffers, textures and events.
func (r *progRun) allocate() {
	job, n := r.job, r.n
	r.graphs = map[graphKey]*rt.Graph{}
	r.x = r.alloc(int64(n) * int64(job.XSize))
	r.y = r.alloc(max(8, int64(n)*int64(job.ASize)))
	r.mask[0] = r.alloc(int64(r.words) * 4)
	r.mask[1] = r.alloc(int64(r.words) * 4)
	if job.Push != nil {
		r.touchedList = r.alloc(int64(max(1, n)) * 4)
		// The queues are built on the device before the first push
		// (vp_compact).
		r.queue[0] = r.alloc(int64(max(1, n)) * 4)
		r.queue[1] = r.alloc(int64(max(1, n)) * 4)
		capChunks := max(1, r.push.PushChunks)
		r.chunks[0] = r.alloc(capChunks * 8)
		r.chunks[1] = r.alloc(capChunks * 8)
		r.yLoop = r.alloc(max(8, int64(n)*int64(job.ASize)))
		if r.feats.Priority {
			r.farBits = r.alloc(int64(r.words) * 4)
		}
		if job.Part != nil {
			r.frontDeg = r.alloc(int64(max(1, n)) * 4)
		}
	}
	if bn := r.pull.Bins; bn != nil && bn.Chunks() > 0 {
		r.partial = r.alloc(int64(bn.Chunks()) * int64(job.ASize))
		r.heavyCount = r.alloc(int64(bn.HeavyRows()) * 4)
	}
	r.rec = r.alloc(int64(recordRing*r.recW) * 8)
	r.recHost = r.d.Pinned(int64(recordRing*r.recW) * 8)
	r.recDev = rt.HostDevicePtr(r.recHost)
	r.ctl = r.alloc(16)
	ptrs := make([]uint64, len(r.layout.arrays))
	for i, a := range r.layout.arrays {
		var p cu.DevicePtr
		if a.orient != nil {
			p = r.oriented().Orientation(a.orient).Ptr(a.part)
		} else {
			p = r.alloc(a.bytes)
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
	if r.feats.Probe && r.tiles {
		r.probeBuf = r.alloc(int64(r.pull.Tiles.Count()) * 24)
	}
	r.runArg = r.makeRunArg()
	r.clock.Create()
}

// fill copies the job's initial state to the run's buffers and resets
// the device's records and control words.
func (r *progRun) fill() {
	job, n := r.job, r.n
	if job.DeviceInit {
		r.fillOnDevice()
		return
	}
	r.send(0, r.x, job.X, true, false)
	if r.frontDeg != 0 && n > 0 {
		r.d.HtoD(r.frontDeg, unsafe.Pointer(&job.Part.FrontierDegree[0]), int64(n)*4)
	}
	if r.words > 0 {
		r.d.HtoD(r.mask[0], unsafe.Pointer(&job.Active.Words()[0]), int64(r.words)*4)
		cu.MemsetD32(r.mask[1], 0, int64(r.words))
		if r.farBits != 0 {
			cu.MemsetD32(r.farBits, 0, int64(r.words))
		}
	}
	if r.heavyCount != 0 {
		cu.MemsetD32(r.heavyCount, 0, int64(r.pull.Bins.HeavyRows()))
	}

	// The record of superstep -1 describes the initial frontier; record 0
	// starts empty.
	r.last = make([]uint64, r.recW)
	act := 0
	for _, w := range job.Active.Words() {
		act += bits.OnesCount32(w)
	}
	r.last[recActive], r.last[recRan] = uint64(act), 1
	if job.Push != nil {
		deg := job.Push.Degree
		if job.Part != nil {
			deg = job.Part.FrontierDegree
		}
		var edges int64
		for w, word := range job.Active.Words() {
			for word != 0 {
				b := bits.TrailingZeros32(word)
				word &^= 1 << b
				if v := w*32 + b; v < n {
					edges += int64(deg[v])
				}
			}
		}
		r.last[recEdges] = uint64(edges)
	}

	// The record ring and the control words.
	ring := make([]uint64, recordRing*r.recW)
	copy(ring[(recordRing-1)*r.recW:], r.last)
	for i, op := range job.Spec.Aggregators {
		ring[(recordRing-1)*r.recW+recordHead+i] = math.Float64bits(job.Aggregates[i])
		ring[recordHead+i] = math.Float64bits(aggIdentity(op))
	}
	copy(r.last, ring[(recordRing-1)*r.recW:])
	r.d.HtoD(r.rec, unsafe.Pointer(&ring[0]), int64(len(ring))*8)
	cu.MemsetD32(r.ctl, 0, 4)
	for i, a := range r.layout.arrays {
		if a.scratch {
			cu.MemsetD32(r.arrays[i], 0, a.bytes/4)
			continue
		}
		r.send(1+i, r.arrays[i], unsafe.Slice((*byte)(a.ptr), a.bytes), !a.readOnly, a.constant)
	}
	// Memsets and copies above ran on the legacy stream; the kernels run
	// on the device's own (non-blocking) stream.
	cu.CtxSynchronize()
	r.fillTiles()
}

// fillTiles: vp_pull_tiles folds into y on the rows of segments of
// several tiles: they start as the identity, and APPLY puts them back.
func (r *progRun) fillTiles() {
	if r.tiles {
		r.launch("vp_fill", rt.Blocks(r.rows(), rt.BlockSize), r.pull.Arg, argBytes(0, false, 0))
	}
}

// fillOnDevice is fill for a job whose initial state vp_init makes
// (DeviceJob.DeviceInit): the read-only arrays are sent, the writable
// ones zeroed, and vp_init_state writes X, the writable arrays, the
// first frontier and the record of superstep -1, which comes back as
// r.last (Initial). Everything goes into the stream without a wait
// (memsets, copies of the records and the arrays: HtoDQueued) but the
// one for r.last: a kron21 SSSP query's start waited four times (~0.2
// ms).
func (r *progRun) fillOnDevice() {
	d := r.d
	if r.words > 0 {
		d.Fill32(r.mask[1], 0, int64(r.words))
		if r.farBits != 0 {
			d.Fill32(r.farBits, 0, int64(r.words))
		}
	}
	if r.heavyCount != 0 {
		d.Fill32(r.heavyCount, 0, int64(r.pull.Bins.HeavyRows()))
	}
	ring := make([]uint64, recordRing*r.recW)
	ring[(recordRing-1)*r.recW+recRan] = 1
	for i, op := range r.job.Spec.Aggregators {
		ring[(recordRing-1)*r.recW+recordHead+i] = math.Float64bits(aggIdentity(op))
		ring[recordHead+i] = math.Float64bits(aggIdentity(op))
	}
	d.HtoDQueued(r.rec, unsafe.Pointer(&ring[0]), int64(len(ring))*8)
	d.Fill32(r.ctl, 0, 4)
	r.queueCopies = true
	for i, a := range r.layout.arrays {
		if a.readOnly {
			r.send(1+i, r.arrays[i], unsafe.Slice((*byte)(a.ptr), a.bytes), false, a.constant)
		} else if a.bytes > 0 {
			d.Fill32(r.arrays[i], 0, a.bytes/4)
		}
	}
	r.queueCopies = false
	r.fillTiles()
	if r.words > 0 {
		r.launch("vp_init_state", min(rt.Blocks(int64(r.words)*32, rt.BlockSize), int64(32*max(1, d.SMs))), r.pull.Arg, argBytes(0, false, 0))
	}
	d.Sync()
	// (the queued copies' host memory: the job's arrays, which r.job
	// holds, and the ring, here; the driver stages such copies before it
	// returns, and they are done now in any case)
	runtime.KeepAlive(ring)
	r.last = make([]uint64, r.recW)
	d.DtoH(unsafe.Pointer(&r.last[0]), r.rec+cu.DevicePtr((recordRing-1)*r.recW*8), int64(r.recW)*8)
}

// Initial implements driver.DeviceInitReporter.
func (r *progRun) Initial() (active int, frontierEdges int64, aggregates []float64) {
	aggregates = make([]float64, r.nagg)
	for k := range aggregates {
		aggregates[k] = math.Float64frombits(r.last[recordHead+k])
	}
	return int(r.last[recActive]), int64(r.last[recEdges]), aggregates
}

func (r *progRun) tex(p cu.DevicePtr, bytes int64) uint64 {
	t := rt.TexCreate(p, bytes)
	r.texs = append(r.texs, t)
	return t
}
