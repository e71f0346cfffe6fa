//go:build cgo

package run

import (
	"errors"
	"fmt"
	"math"
	"os"
	"strings"
	"time"
	"unsafe"

	"github.com/hpgraph/hpgraph/cuda/rt"
	"github.com/hpgraph/hpgraph/vertexprog/driver"
)

// The supersteps: Step and StepBatch enqueue them (vp_loop, the
// grid-wide kernels, graphs) and read their records back.

// smallFrontier is kernels.cu's VP_SMALL_FRONTIER (the engine's batching
// rule): a batched superstep runs while its frontier has under
// n/smallFrontier vertices (or, pushing, under the batch's edge limit).
const smallFrontier = 64

// Step implements driver.DeviceRun.
func (r *progRun) Step(it int, dir driver.Direction) (active int, frontierEdges int64, aggregates []float64, err error) {
	reps, err := r.steps(it, dir, 1, 0)
	if err != nil {
		return 0, 0, nil, err
	}
	return reps[0].Active, reps[0].FrontierEdges, reps[0].Aggregates, nil
}

// StepBatch implements driver.DeviceBatchRun: up to max supersteps
// (at most maxBatch) are enqueued back to back and their records read
// back once. Each superstep after the first runs only while the frontier
// is nonempty and small (the engine's batching rule: under n/64 vertices,
// or pushing, under pushEdges edges): the batch ends after the first
// superstep that activates nothing, or before the first whose frontier is
// large, which the engine then runs on its own.
func (r *progRun) StepBatch(it int, dir driver.Direction, max int, pushEdges int64) ([]driver.StepReport, error) {
	return r.steps(it, dir, max, pushEdges)
}

func (r *progRun) steps(it int, dir driver.Direction, count int, pushEdges int64) ([]driver.StepReport, error) {
	if r.closed {
		return nil, errors.New("cuda: Step on a closed run")
	}
	if dir == driver.Push && r.push == nil {
		return nil, errors.New("cuda: push superstep requested for a run without a push matrix")
	}
	count = min(max(count, 1), maxBatch)
	var reps []driver.StepReport
	var tr *stepTrace
	if traceSteps {
		tr = &stepTrace{call: time.Now()}
	}
	err := r.d.Do("running supersteps", func() error {
		tr.start(r.d.RT())
		r.tr = tr
		defer func() { r.tr = nil }()
		tr.mark()
		s0 := r.step
		pushEdges = min(max(pushEdges, 0), math.MaxInt32)
		// The clock starts before the call's first launch: in the graph of
		// its first superstep when nothing comes before that (a host call
		// less: docs/perf/supersteps-and-graphs.md#the-device-clock-in-the-graph).
		if !r.pullGraph(dir, s0) || it-s0 != r.bias || count > 1 && pushEdges != r.edges {
			r.clock.Begin(r.d.RT())
		}
		tr.mark()
		if it-s0 != r.bias {
			r.bias = it - s0
			r.setCtl(2, r.bias)
		}
		if count > 1 && pushEdges != r.edges {
			r.edges = pushEdges
			r.setCtl(3, int(pushEdges))
		}
		if dir == driver.Push && r.yDirty {
			r.launch("vp_fill", rt.Blocks(r.rows(), rt.BlockSize), r.pull.Arg, argBytes(0, false, 0))
			r.yDirty = false
		}
		if r.startLoop(dir, count) {
			r.clock.End(r.d.RT())
			tr.enqueued(r.d.RT())
			r.readRecords(s0, count, false)
			tr.waited()
			reps = r.reports(s0, count)
			last := reps[len(reps)-1]
			if len(reps) == count || last.Active == 0 || !r.batchable(last) {
				return nil
			}
			// The frontier outgrew the cluster: the grid-wide kernels go on.
			s0, count = r.step, count-len(reps)
		}
		recorded := r.enqueueSteps(dir, s0, count)
		tr.mark()
		if dir == driver.Pull {
			r.yDirty = true
		}
		r.clock.End(r.d.RT())
		tr.mark()
		tr.enqueued(r.d.RT())
		r.readRecords(s0, count, recorded)
		tr.waited()
		if r.probeBuf != 0 && dir == driver.Pull {
			r.printTileProbe()
		}
		reps = append(reps, r.reports(s0, count)...)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("superstep %d (%s): %w", it, dir, err)
	}
	tr.report(r.d.RT(), it, len(reps))
	return reps, nil
}

// startLoop launches vp_loop for supersteps r.step, ... (up to count)
// when they push from a frontier small enough for one cluster, and
// reports whether it did. A device that cannot launch the cluster gets
// one of 8 blocks, then none. Inside Do.
func (r *progRun) startLoop(dir driver.Direction, count int) bool {
	// (the kernel starts on the same test: a launch it declines would
	// read as a superstep that activated nothing)
	lim, first := min(r.d.hooks.loopEdges, loopCap), min(r.d.hooks.loopEdges, loopCap)
	if r.feats.LoopList > 0 {
		first = min(first, r.feats.LoopList)
	}
	if dir != driver.Push || count < 2 || r.loop == 0 || r.last[recActive] == 0 || r.last[recEdges] > uint64(first) {
		return false
	}
	s0 := r.step
	if !r.queued {
		r.launch("vp_compact", r.compactGrid(), r.pull.Arg, argBytes(s0-r.base, false, 0))
		r.queued = true
	}
	if !r.yLoopOK {
		r.launch("vp_fill", rt.Blocks(r.rows(), rt.BlockSize), r.pull.Arg, argBytes(0, false, 1))
		r.yLoopOK = true
	}
	arg := loopArg(s0-r.base, false, count, lim)
	for r.loop > 0 {
		if r.mod.LaunchCluster("vp_loop", r.loop, loopBlock, loopShared(r.feats.Priority), r.d.Stream(), r.push.Arg, r.runArg, r.state, arg) == nil {
			return true
		}
		if r.loop > 8 {
			r.loop = 8
		} else {
			r.loop = 0
		}
	}
	return false
}

// batchable reports whether a batch goes on after the superstep rep
// (kernels.cu's vp_st: its frontier is small, or pushing, has fewer edges
// than the batch's limit).
func (r *progRun) batchable(rep driver.StepReport) bool {
	return rep.Active*smallFrontier < r.n || rep.FrontierEdges < r.edges
}

// enqueueSteps launches supersteps s0, ... (count of them) with the
// grid-wide kernels: the first whatever its frontier, the rest batched,
// in CUDA graphs where they can be. It reports whether it also launched
// the copy of their records (vp_records). Inside Do.
func (r *progRun) enqueueSteps(dir driver.Direction, s0, count int) (recorded bool) {
	// Pulls launch the same kernels on the same grids every superstep, so
	// each can come from a graph (captured at Start); the others batch in
	// graphs of graphSteps. A graph moves the device's base past its
	// supersteps.
	pull := dir == driver.Pull && r.hasPullGraphs()
	if pull {
		r.moveBase(s0)
		begin := !r.clock.Started
		r.d.LaunchGraph(r.graph(graphKey{dir, 1, true, count == 1, begin}))
		r.clock.Started = true
		r.base++
		r.queued = false
		recorded = count == 1
	} else {
		r.enqueue(dir, s0-r.base, false)
	}
	rest := count - 1
	for rest > 0 && (pull || r.opt.Graphs && !r.noGraphs && rest >= graphSteps) {
		k := graphKey{dir, 1, false, false, false}
		if rest >= graphSteps {
			k.steps = graphSteps
		}
		e := r.graph(k)
		if e == nil {
			break
		}
		r.moveBase(s0 + count - rest)
		r.d.LaunchGraph(e)
		r.base += k.steps
		rest -= k.steps
	}
	for ; rest > 0; rest-- { // without graphs, or after one failed
		r.enqueue(dir, s0+count-rest-r.base, true)
	}
	return recorded
}

// pullHalf launches pull superstep it's gathers: the first half of a
// superstep whose APPLY must wait for something between them (the other
// parts' additions to the Sum arrays, parts_sums.go); applyHalf is the
// second. Inside Do.
func (r *progRun) pullHalf(it int) {
	s0 := r.step
	r.clock.Begin(r.d.RT())
	if it-s0 != r.bias {
		r.bias = it - s0
		r.setCtl(2, r.bias)
	}
	r.queued = false
	r.enqueuePull(r.pullArg(s0-r.base, false))
}

// applyHalf launches the APPLY of the superstep pullHalf began and the
// copy of its record, waits for the stream and reports the superstep.
// Inside Do.
func (r *progRun) applyHalf() driver.StepReport {
	s0 := r.step
	r.launch("vp_apply_pull", r.applyGrid(), r.pull.Arg, r.pullArg(s0-r.base, false))
	r.yDirty = true
	r.clock.End(r.d.RT())
	r.readRecords(s0, 1, false)
	return r.reports(s0, 1)[0]
}

// moveBase sets the device's superstep base to s unless it is there.
func (r *progRun) moveBase(s int) {
	if r.base != s {
		r.setCtl(0, s)
		r.base = s
	}
}

// readRecords copies the records of supersteps s0 .. s0+count-1 into
// r.host (unless recorded: a graph did) and waits for the stream. Inside
// Do.
func (r *progRun) readRecords(s0, count int, recorded bool) {
	if !recorded {
		r.launchRecords(s0-r.base, count)
	}
	if r.partTail != nil {
		r.partTail(s0 + count - 1)
	}
	r.tr.mark()
	r.d.Sync()
	r.host = unsafe.Slice((*uint64)(r.recHost), recordRing*r.recW)
}

// reports turns the records read back into the supersteps that ran, and
// advances the run past them.
func (r *progRun) reports(s0, count int) []driver.StepReport {
	var reps []driver.StepReport
	for i := 0; i < count; i++ {
		slot := (s0 + i) % recordRing
		rec := r.host[slot*r.recW : (slot+1)*r.recW]
		if i > 0 && rec[recRan] == 0 {
			break
		}
		rep := driver.StepReport{Active: int(rec[recActive]), FrontierEdges: int64(rec[recEdges]),
			Aggregates: make([]float64, r.nagg)}
		for k := range rep.Aggregates {
			rep.Aggregates[k] = math.Float64frombits(rec[recordHead+k])
		}
		reps = append(reps, rep)
		copy(r.last, rec)
		if rep.Active == 0 {
			break
		}
	}
	r.step = s0 + len(reps)
	return reps
}

// printTileProbe writes to stderr, per tile of the last pull's
// vp_pull_tiles (VP_PROBE), a line: its index, multiprocessor, segment,
// multi (0 or 1), groups, start and end on the device's clock (ns).
// Inside Do.
func (r *progRun) printTileProbe() {
	t := r.pull.Tiles
	buf := make([]uint64, 3*t.Count())
	r.d.DtoH(unsafe.Pointer(&buf[0]), r.probeBuf, int64(8*len(buf)))
	var b strings.Builder
	for i := range t.Count() {
		seg, multi, groups := t.Tile(i)
		m := 0
		if multi {
			m = 1
		}
		fmt.Fprintf(&b, "hpgraph tile %d sm %d seg %d multi %d groups %d t0 %d t1 %d\n", i, buf[3*i+2], seg, m, groups, buf[3*i], buf[3*i+1])
	}
	os.Stderr.WriteString(b.String())
}
