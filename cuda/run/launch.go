//go:build cgo

package run

import (
	"encoding/binary"
	"math"
	"unsafe"

	"github.com/hpgraph/hpgraph/cuda/build"
	"github.com/hpgraph/hpgraph/cuda/cu"
	"github.com/hpgraph/hpgraph/cuda/rt"
	"github.com/hpgraph/hpgraph/vertexprog/driver"
)

// One superstep's launches: the kernels' arguments and grids.

// argBytes is the VP_Arg argument (lim: vp_loop's).
func argBytes(j int, batched bool, op int) []byte { return loopArg(j, batched, op, 0) }

func loopArg(j int, batched bool, op, lim int) []byte {
	b := make([]byte, 16)
	le := binary.LittleEndian
	le.PutUint32(b, uint32(int32(j)))
	if batched {
		le.PutUint32(b[4:], 1)
	}
	le.PutUint32(b[8:], uint32(int32(op)))
	le.PutUint32(b[12:], uint32(int32(lim)))
	return b
}

func aggIdentity(op driver.Aggregator) float64 {
	switch op {
	case driver.Min:
		return math.Inf(1)
	case driver.Max:
		return math.Inf(-1)
	}
	return 0
}

func (r *progRun) launch(name string, grid int64, mat []byte, arg []byte) {
	r.mod.Launch(name, grid, r.d.Stream(), mat, r.runArg, r.state, arg)
}

// setCtl sets (op 0) or advances (op 1) the device's superstep base, or
// sets the iteration bias (op 2) or a push batch's edge limit (op 3).
func (r *progRun) setCtl(op, v int) { r.launch("vp_ctl", 1, r.pull.Arg, argBytes(v, false, op)) }

// pushGrids are the blocks of vp_push and vp_apply_push: sized by the
// frontier when it is known (the first superstep of a call), a fixed small
// grid inside a batch (the kernels loop over whatever the frontier is).
func (r *progRun) pushGrids(batched bool) (push, apply int64) {
	sms := int64(max(1, r.d.SMs))
	if batched {
		g := int64(pushGridPerSM) * sms
		return g, g
	}
	l := r.last
	push = max(int64(l[recChunks]), rt.Blocks(int64(l[recMedium]), rt.BlockSize/32), rt.Blocks(int64(l[recSmall]), rt.BlockSize/8))
	if !r.queued || r.job.Part != nil {
		// The queues are built on the device (a part's: the other parts'
		// vertices by its unpacks): size by the frontier.
		push = max(rt.Blocks(int64(l[recActive]), rt.BlockSize/32), rt.Blocks(int64(l[recEdges]), 1024))
	}
	apply = rt.Blocks(min(int64(r.n), int64(l[recEdges])), rt.BlockSize)
	return min(max(push, 1), 16*sms), min(max(apply, 1), 16*sms)
}

// applyGrid is vp_apply_pull's blocks: at most applyPerSM per
// multiprocessor, and no more than it holds at once (kron21 LDBC
// PageRank, whose APPLY fits 6: 2.37 → 2.32 ms against 8 blocks, two
// waves), each taking VP_BLOCK rows a turn.
func (r *progRun) applyGrid() int64 {
	grid := rt.Blocks(r.pullRows(), int64(rt.BlockSize*r.feats.applyRows()))
	if applyPerSM > 0 {
		per := applyPerSM
		if k := r.mod.Resident("vp_apply_pull"); k > 0 {
			per = min(per, k)
		}
		grid = min(grid, int64(per*max(1, r.d.SMs)))
	}
	return grid
}

// rows is how many rows the run's pulls and APPLY pass over: a part's
// own (VP_Run's lo and hi; one at least, so that an empty part's kernels
// still write the superstep's record), or all.
func (r *progRun) rows() int64 {
	if p := r.job.Part; p != nil {
		return int64(max(1, p.Hi-p.Lo))
	}
	return int64(r.n)
}

// span is the run's rows: a part's own, or all.
func (r *progRun) span() (lo, hi int) {
	if p := r.job.Part; p != nil {
		return int(p.Lo), int(p.Hi)
	}
	return 0, r.n
}

// pullEnd is where the rows a pull and its APPLY pass over end (VP_Run's
// rowsEnd): a Sparse program without aggregators skips the span's
// trailing rows without arcs in, which gather nothing and whose Update of
// the identity changes nothing (Spec.Sparse), so only their x_bitmask
// words need clearing; other programs update every row.
func (r *progRun) pullEnd() int {
	lo, hi := r.span()
	if s := r.job.Spec; !s.Sparse || s.GatherAll || r.nagg > 0 {
		return hi
	}
	return r.pull.RowsEnd(lo, hi)
}

// pullRows is how many rows vp_pull_ell and vp_apply_pull update (one at
// least, so that their kernels still write the superstep's record).
func (r *progRun) pullRows() int64 {
	lo, _ := r.span()
	return int64(max(1, r.pullEnd()-lo))
}

// compactGrid is vp_compact's blocks: one per VP_BLOCK vertices up to
// compactPerSM per multiprocessor, which then loop.
func (r *progRun) compactGrid() int64 {
	return min(rt.Blocks(int64(r.n), rt.BlockSize), int64(compactPerSM*max(1, r.d.SMs)))
}

// enqueue launches superstep base+j. Inside Do.
func (r *progRun) enqueue(dir driver.Direction, j int, batched bool) {
	a := argBytes(j, batched, 0)
	if dir == driver.Push {
		pg, ag := r.pushGrids(batched) // (before queued changes: it sizes by it)
		if !r.queued {
			// After pulls (or at the start) the frontier is a bitmask only.
			r.launch("vp_compact", r.compactGrid(), r.pull.Arg, a)
			r.queued = true
		}
		r.launch("vp_push", pg, r.push.Arg, a)
		r.launch("vp_apply_push", ag, r.pull.Arg, a)
		return
	}
	r.queued = false
	a = r.pullArg(j, batched)
	r.enqueuePull(a)
	r.launch("vp_apply_pull", r.applyGrid(), r.pull.Arg, a)
}

// pullArg is the VP_Arg of pull superstep ctl[0]+j's kernels (op 1 with
// tiles: APPLY resets the rows tiles fold into).
func (r *progRun) pullArg(j int, batched bool) []byte {
	if r.tiles {
		return argBytes(j, batched, 1)
	}
	return argBytes(j, batched, 0)
}

// enqueuePull launches a pull superstep's gathers, without its APPLY.
// Inside Do.
func (r *progRun) enqueuePull(a []byte) {
	if r.tiles {
		t := r.pull.Tiles
		r.mod.LaunchShared("vp_pull_tiles", int64(t.Count()), build.TileBlock, t.Shared(r.job.ASize), r.d.Stream(), r.pull.Arg, r.runArg, r.state, a)
		r.tr.mark()
		return
	}
	r.launch("vp_pull_ell", rt.Blocks(r.pullRows(), rt.BlockSize), r.pull.Arg, a)
	r.launch("vp_pull_coo", r.pull.CooBlocks(r.feats.HasWants || r.feats.HasDone), r.pull.Arg, a)
}

// launchRecords launches vp_records for supersteps ctl[0]+j, ... (count
// of them). Inside Do.
func (r *progRun) launchRecords(j, count int) {
	arg := r.recArg[:]
	binary.LittleEndian.PutUint64(arg, r.recDev)
	binary.LittleEndian.PutUint32(arg[8:], uint32(int32(j)))
	binary.LittleEndian.PutUint32(arg[12:], uint32(count))
	r.mod.Launch2("vp_records", 1, r.d.Stream(), r.runArg, arg)
}

// makeRunArg is the VP_Run argument (kernels.cu).
func (r *progRun) makeRunArg() []byte {
	b := make([]byte, 216)
	le := binary.LittleEndian
	var pushDeg, frontDeg cu.DevicePtr
	if r.push != nil {
		pushDeg, frontDeg = r.push.PushDeg, r.push.PushDeg
		if r.frontDeg != 0 {
			frontDeg = r.frontDeg
		}
	}
	for i, v := range []uint64{
		uint64(r.x), r.xTex, uint64(r.mask[0]), uint64(r.mask[1]), r.maskTex[0], r.maskTex[1],
		uint64(r.queue[0]), uint64(r.queue[1]), uint64(r.chunks[0]), uint64(r.chunks[1]),
		uint64(r.touchedList), uint64(pushDeg), uint64(r.y),
		uint64(r.partial), uint64(r.heavyCount), uint64(r.rec), uint64(r.ctl),
	} {
		le.PutUint64(b[8*i:], v)
	}
	useMask := 1
	if r.job.Spec.GatherAll {
		useMask = 0
	}
	idem := 0
	if r.job.Spec.Idempotent {
		idem = 1
	}
	for i, v := range []int{r.n, recordRing, r.recW, useMask, build.PushSmall, build.PushChunk, idem} {
		le.PutUint32(b[136+4*i:], uint32(int32(v)))
	}
	le.PutUint32(b[164:], math.Float32bits(float32(r.job.Spec.Delta)))
	le.PutUint64(b[168:], uint64(r.farBits))
	le.PutUint64(b[176:], uint64(r.yLoop))
	le.PutUint64(b[184:], uint64(r.probeBuf))
	le.PutUint64(b[192:], uint64(frontDeg))
	lo, hi := r.span()
	le.PutUint32(b[200:], uint32(int32(lo)))
	le.PutUint32(b[204:], uint32(int32(hi)))
	le.PutUint32(b[208:], uint32(int32(r.pullEnd())))
	return b
}

// stateOffsets runs vp_state_layout of m: the offsets of State's n
// members, then sizeof(State). Inside Do.
func stateOffsets(m *rt.Module, n int) []uint64 {
	out := make([]uint64, n+1)
	buf := cu.MemAlloc(int64(8 * len(out)))
	defer cu.MemFree(buf)
	m.LaunchPtr("vp_state_layout", buf)
	cu.MemcpyDtoH(unsafe.Pointer(&out[0]), buf, int64(8*len(out)))
	return out
}
