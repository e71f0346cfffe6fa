//go:build cgo

package cuda

import (
	"encoding/binary"
	"math"

	"github.com/hpgraph/hpgraph/cuda/build"
	"github.com/hpgraph/hpgraph/cuda/rt"
	"github.com/hpgraph/hpgraph/vertexprog"
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

func aggIdentity(op vertexprog.Aggregator) float64 {
	switch op {
	case vertexprog.Min:
		return math.Inf(1)
	case vertexprog.Max:
		return math.Inf(-1)
	}
	return 0
}

func (r *run) launch(name string, grid int64, mat []byte, arg []byte) {
	r.mod.Launch(name, grid, r.d.Stream(), mat, r.runArg, r.state, arg)
}

// setCtl sets (op 0) or advances (op 1) the device's superstep base, or
// sets the iteration bias (op 2) or a push batch's edge limit (op 3).
func (r *run) setCtl(op, v int) { r.launch("vp_ctl", 1, r.pull.Arg, argBytes(v, false, op)) }

// pushGrids are the blocks of vp_push and vp_apply_push: sized by the
// frontier when it is known (the first superstep of a call), a fixed small
// grid inside a batch (the kernels loop over whatever the frontier is).
func (r *run) pushGrids(batched bool) (push, apply int64) {
	sms := int64(max(1, r.d.SMs))
	if batched {
		g := int64(pushGridPerSM) * sms
		return g, g
	}
	l := r.last
	push = max(int64(l[recChunks]), rt.Blocks(int64(l[recMedium]), rt.BlockSize/32), rt.Blocks(int64(l[recSmall]), rt.BlockSize/8))
	if !r.queued {
		// The queues are built on the device: size by the frontier.
		push = max(rt.Blocks(int64(l[recActive]), rt.BlockSize/32), rt.Blocks(int64(l[recEdges]), 1024))
	}
	apply = rt.Blocks(min(int64(r.n), int64(l[recEdges])), rt.BlockSize)
	return min(max(push, 1), 16*sms), min(max(apply, 1), 16*sms)
}

// applyGrid is vp_apply_pull's blocks: at most applyPerSM per
// multiprocessor, and no more than it holds at once (kron21 LDBC
// PageRank, whose APPLY fits 6: 2.37 → 2.32 ms against 8 blocks, two
// waves), each taking VP_BLOCK rows a turn.
func (r *run) applyGrid() int64 {
	grid := rt.Blocks(int64(r.n), int64(rt.BlockSize*r.feats.applyRows()))
	if applyPerSM > 0 {
		per := applyPerSM
		if k := r.mod.Resident("vp_apply_pull"); k > 0 {
			per = min(per, k)
		}
		grid = min(grid, int64(per*max(1, r.d.SMs)))
	}
	return grid
}

// compactGrid is vp_compact's blocks: one per VP_BLOCK vertices up to
// compactPerSM per multiprocessor, which then loop.
func (r *run) compactGrid() int64 {
	return min(rt.Blocks(int64(r.n), rt.BlockSize), int64(compactPerSM*max(1, r.d.SMs)))
}

// enqueue launches superstep base+j. Inside Do.
func (r *run) enqueue(dir vertexprog.Direction, j int, batched bool) {
	a := argBytes(j, batched, 0)
	if dir == vertexprog.Push {
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
	if r.tiles {
		a := argBytes(j, batched, 1) // (op 1: APPLY resets the rows tiles fold into)
		t := r.pull.Tiles
		r.mod.LaunchShared("vp_pull_tiles", int64(t.Count()), build.TileBlock, t.Shared(r.job.ASize), r.d.Stream(), r.pull.Arg, r.runArg, r.state, a)
		r.tr.mark()
		r.launch("vp_apply_pull", r.applyGrid(), r.pull.Arg, a)
		return
	}
	r.launch("vp_pull_ell", rt.Blocks(int64(r.n), rt.BlockSize), r.pull.Arg, a)
	r.launch("vp_pull_coo", r.pull.CooBlocks(r.feats.HasWants || r.feats.HasDone), r.pull.Arg, a)
	r.launch("vp_apply_pull", r.applyGrid(), r.pull.Arg, a)
}
