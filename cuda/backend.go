//go:build cgo

package cuda

/*
#include "cu/cu.h"
*/
import "C"

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"os"
	"strconv"
	"time"
	"unsafe"

	"github.com/hpgraph/hpgraph/cuda/cu"
	"github.com/hpgraph/hpgraph/internal/phase"
	"github.com/hpgraph/hpgraph/vertexprog"
)

// Texture selects how kernels read the bitmasks and X in runs started
// afterwards: through texture objects (true) or __ldg loads (false).
// HPGRAPH_CUDA_TEXTURE=0 or 1 sets its initial value; a benchmark may
// flip it to compare.
var Texture = true

// Graphs selects whether batches of supersteps (vertexprog.DeviceBatchRun)
// replay CUDA graphs of captured launches (true) or launch every kernel
// (false). HPGRAPH_CUDA_GRAPHS=0 or 1 sets its initial value.
var Graphs = true

// Tiles selects the column-sorted tiles (tiles.go, vp_pull_tiles) for
// the pulls of programs that gather from every neighbour (Spec.GatherAll,
// without vp_wants or vp_done, with a 4- or 8-byte accumulator, and
// without DeviceCode.HeavyGather, where a block may have the slots' shared
// memory) in resident runs (vertexprog.Options.Resident; TilesAlways: in
// every run) started afterwards; false pulls
// them by rows (ELL and COO bins) like every other program. The tiles are
// built on the host, about a second on kron21 on 16 cores, and save
// ~0.35 ms a pull: they pay only for a graph that stays loaded.
// HPGRAPH_CUDA_TILES=0 sets Tiles false, 1 sets TilesAlways;
// HPGRAPH_CUDA_TILEARCS sets the most entries of a tile, HPGRAPH_CUDA_TILEROWBITS
// (2 to 15) log2 of a segment's rows.
var Tiles = true

// TilesAlways builds tiles for runs that are not resident too.
var TilesAlways = false

// tiledRuns counts the runs that pulled by tiles (for tests).
var tiledRuns int

// LoopCluster is the blocks of the thread block cluster that runs push
// batches over small frontiers in one launch (vp_loop), in runs started
// afterwards: 16 (non-portable, and the most; 8 where the device
// refuses), 1 for one block, 0 for none (every superstep launches its
// kernels).
// HPGRAPH_CUDA_LOOP sets its initial value.
var LoopCluster = 16

// loopEdges is the most frontier edges vp_loop pushes in a superstep
// (HPGRAPH_CUDA_LOOPEDGES overrides it; the kernel holds at most
// loopCap); larger frontiers go to the grid-wide kernels.
var loopEdges = 16384

// unroll is the pull entries a thread loads at a time (VP_UNROLL);
// HPGRAPH_CUDA_UNROLL (1 to 8) overrides the template's 4.
var unroll = 0

// stream makes pulls load the matrix evict-first (VP_STREAM);
// HPGRAPH_CUDA_STREAM=0 turns it off.
var stream = true

// pushGridPerSM is the blocks per multiprocessor of the push kernels in a
// batch, where the frontier's size is not known when they are launched
// (HPGRAPH_CUDA_PUSHGRID overrides it).
var pushGridPerSM = 8

// applyPerSM bounds the blocks of vp_apply_pull per multiprocessor (0:
// a block per 256 rows), and so do the blocks a multiprocessor holds at
// once (no second wave); HPGRAPH_CUDA_APPLYGRID overrides it.
var applyPerSM = 8

// applyRows is the rows a thread of vp_apply_pull takes at a time, their
// loads issued together (VP_APPLY_ROWS; 0: applyRowsDefault);
// HPGRAPH_CUDA_APPLYROWS (1 to 8) overrides it.
var applyRows = 0

// graphWarmup launches the graphs of pull supersteps once at Start
// (warmGraphs); HPGRAPH_CUDA_GRAPHWARM=0 turns it off.
var graphWarmup = true

// applyRowsDefault: docs/perf.md, section 18.
const applyRowsDefault = 2

// loopList, when positive, is the rows a vp_loop touched list takes
// before the rest spill to the run's touchedList (and the loop stops);
// tests set it low to exercise that path.
var loopList = 0

// probe makes vp_loop print, from block 0, the cycles a superstep spends
// in each phase, and vp_pull_tiles record each tile's start, end and
// multiprocessor, printed after each pull (printTileProbe; summed up by
// scripts/tile-probe.awk) (HPGRAPH_CUDA_PROBE=1; a diagnostic, it adds
// barriers).
var probe = false

func init() {
	switch os.Getenv("HPGRAPH_CUDA_TEXTURE") {
	case "0", "false":
		Texture = false
	case "1", "true":
		Texture = true
	}
	switch os.Getenv("HPGRAPH_CUDA_TILES") {
	case "0", "false":
		Tiles = false
	case "1", "true":
		Tiles, TilesAlways = true, true
	}
	if n, err := strconv.Atoi(os.Getenv("HPGRAPH_CUDA_TILEARCS")); err == nil && n > 0 {
		tileArcs = n
	}
	if n, err := strconv.Atoi(os.Getenv("HPGRAPH_CUDA_TILEROWBITS")); err == nil && n >= 2 && n <= 15 {
		tileRowBitsOverride = n
	}
	switch os.Getenv("HPGRAPH_CUDA_TILENEAR") {
	case "0", "false":
		tileNear = 0
	case "1", "true":
		tileNear = 1
	}
	if n, err := strconv.Atoi(os.Getenv("HPGRAPH_CUDA_TILECHUNK")); err == nil && (n == 4 || n == 8 || n == 16) {
		tileChunk = n
	}
	switch os.Getenv("HPGRAPH_CUDA_GRAPHS") {
	case "0", "false":
		Graphs = false
	case "1", "true":
		Graphs = true
	}
	if n, err := strconv.Atoi(os.Getenv("HPGRAPH_CUDA_UNROLL")); err == nil && n > 0 && n <= 8 {
		unroll = n
	}
	if n, err := strconv.Atoi(os.Getenv("HPGRAPH_CUDA_LOOP")); err == nil && n >= 0 && n <= maxLoopCluster {
		LoopCluster = n
	}
	if n, err := strconv.Atoi(os.Getenv("HPGRAPH_CUDA_LOOPEDGES")); err == nil && n > 0 {
		loopEdges = n
	}
	if os.Getenv("HPGRAPH_CUDA_STREAM") == "0" {
		stream = false
	}
	if n, err := strconv.Atoi(os.Getenv("HPGRAPH_CUDA_PUSHGRID")); err == nil && n > 0 && n <= 64 {
		pushGridPerSM = n
	}
	if n, err := strconv.Atoi(os.Getenv("HPGRAPH_CUDA_APPLYGRID")); err == nil && n >= 0 {
		applyPerSM = n
	}
	if n, err := strconv.Atoi(os.Getenv("HPGRAPH_CUDA_COMPACTGRID")); err == nil && n > 0 {
		compactPerSM = n
	}
	if n, err := strconv.Atoi(os.Getenv("HPGRAPH_CUDA_APPLYROWS")); err == nil && n > 0 && n <= 8 {
		applyRows = n
	}
	graphWarmup = os.Getenv("HPGRAPH_CUDA_GRAPHWARM") != "0"
	probe = os.Getenv("HPGRAPH_CUDA_PROBE") == "1"
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

// Superstep records (kernels.cu, VP_R_*): a ring of recordRing records of
// recordHead words plus one per aggregator.
const (
	recActive = iota
	recEdges
	recRan
	recSmall
	recMedium
	recChunks
	recTouched
	recordHead
)

const (
	recordRing = 512
	// maxBatch is the most supersteps one StepBatch call runs (the ring
	// must hold a batch's records and the one before it).
	maxBatch = recordRing - 8
)

// graphSteps is the supersteps per captured CUDA graph: a batch replays it
// while at least that many supersteps remain and launches the rest one by
// one. (A graph is captured and instantiated once per run and direction,
// ~0.1-0.3 ms, so short batches do better without one.)
const graphSteps = 16

// smallFrontier is kernels.cu's VP_SMALL_FRONTIER (the engine's batching
// rule): a batched superstep runs while its frontier has under
// n/smallFrontier vertices (or, pushing, under the batch's edge limit).
const smallFrontier = 64

// run is one program on the device.
type run struct {
	buffers
	d      *device
	job    *vertexprog.DeviceJob
	mod    *module
	n      int
	words  int
	layout *stateLayout
	feats  features
	nagg   int
	recW   int // words per record

	pull, push *matDev
	host       []uint64 // records read back (recHost)
	recArg     [16]byte // vp_records' VP_Copy (no allocation a call)

	step     int      // supersteps run
	base     int      // the device's ctl[0]
	bias     int      // the device's ctl[1]: iteration of superstep 0
	edges    int64    // the device's ctl[2]: a push batch's edge limit
	last     []uint64 // record of superstep step-1
	yDirty   bool
	yLoopOK  bool // yLoop holds the identity (filled before the first vp_loop)
	queued   bool // the frontier's queues are built (after a push superstep)
	tiles    bool // pulls run vp_pull_tiles
	closed   bool
	finished bool // Finish copied the results back: the run may be parked

	loop int // vp_loop's cluster size (LoopCluster; 0: no loop)

	transfers time.Duration
	tr        *stepTrace // HPGRAPH_CUDA_TRACE: the call being traced
}

// buffers are a run's device memory, textures, events and CUDA graphs:
// what a resident run, parked when it closes, hands to the next run of
// the same program on the same matrices (park.go).
type buffers struct {
	clock deviceClock // DeviceTime

	bufs []cu.DevicePtr
	texs []uint64

	x, y        cu.DevicePtr
	xTex        uint64
	mask        [2]cu.DevicePtr
	maskTex     [2]uint64
	queue       [2]cu.DevicePtr
	chunks      [2]cu.DevicePtr
	touchedList cu.DevicePtr
	farBits     cu.DevicePtr // vp_loop's far set (delta-stepping)
	yLoop       cu.DevicePtr // vp_loop's second accumulator array
	probeBuf    cu.DevicePtr // VP_PROBE: per tile its start, end and multiprocessor (printTileProbe)
	partial     cu.DevicePtr
	heavyCount  cu.DevicePtr
	rec, ctl    cu.DevicePtr
	arrays      []cu.DevicePtr
	seeds       []seed // a resident run's uploads (X, then arrays), to send only what changed
	state       []byte
	runArg      []byte
	recHost     unsafe.Pointer // pinned memory vp_records copies the records to,
	recDev      uint64         // at this address on the device

	graphs   map[graphKey]C.CUgraphExec
	noGraphs bool
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
	if job.Push != nil && (job.ASize != 4 && job.ASize != 8 || job.Push.N != n || len(job.Push.Degree) != n) {
		return nil, fmt.Errorf("cuda: push needs a 4- or 8-byte accumulator (have %d) and a square push matrix with its degrees", job.ASize)
	}
	if job.DeviceInit {
		if !job.Code.Init {
			return nil, errors.New("cuda: the job asks for vp_init, but the program's device code has none (DeviceCode.Init)")
		}
	} else {
		if job.Active == nil || job.Active.Len() != n {
			return nil, errors.New("cuda: the job's initial frontier does not match the graph")
		}
		if len(job.Aggregates) != len(job.Spec.Aggregators) {
			return nil, fmt.Errorf("cuda: %d aggregator values for %d aggregators", len(job.Aggregates), len(job.Spec.Aggregators))
		}
	}
	layout, err := layoutState(&job.Code)
	if err != nil {
		return nil, err
	}
	for _, a := range job.Code.Arrays {
		if a.Orientation != nil && (job.Spec.Edges != vertexprog.AllEdges || job.Graph == nil || !a.Orientation.Of(job.Graph)) {
			// (the gather matrix is not the graph's Neighbors)
			layout.orientOnHost()
			break
		}
	}
	feats := jobFeatures(job, n, d.texMaxWidth)
	lim := binsFromEnv()
	var ts tileSpec
	if Tiles && (job.Resident || TilesAlways) && job.Spec.GatherAll && !job.Code.HeavyGather && !job.HasWants && !job.HasDone && (job.ASize == 4 || job.ASize == 8) && n > 0 {
		// (an undirected graph's matrices are one symmetric adjacency)
		ts = tileSpec{rowBits: tileRowBitsFor(job.ASize), maxArcs: tileArcs, near: job.ASize == 4, symmetric: job.Graph != nil && !job.Graph.Directed()}
		if tileNear >= 0 {
			ts.near = tileNear == 1
		}
		if tileRowBitsOverride > 0 {
			ts.rowBits = tileRowBitsOverride
		}
		if tileShared(ts.rowBits, job.ASize) > d.sharedOptin {
			ts = tileSpec{} // (the slots do not fit: rows it is)
		} else {
			feats.TileChunk = tileChunkFor(job.ASize)
		}
	}

	pt := phase.New("cuda", "start")
	defer pt.Print()
	src := buildSource(&job.Code, layout, feats)
	ptx, key, err := d.kernelImage(src)
	pt.Mark("source and compile")
	if err != nil {
		return nil, err
	}
	r := &run{d: d, job: job, n: n, words: (n + 31) / 32, layout: layout, feats: feats, yDirty: true,
		nagg: len(job.Spec.Aggregators), loop: min(max(LoopCluster, 0), maxLoopCluster)}
	r.recW = recordHead + r.nagg
	err = d.do("copying the run to the device", func() error {
		// Memory first: the cache gives back what no run uses when the
		// run would not fit otherwise.
		need := deviceBytes(job, layout, lim, &d.cache)
		switch {
		case job.Push == job.Pull:
			need += d.cache.need(job.Pull.Matrix, true, true, lim, ts)
		case job.Push != nil:
			need += d.cache.need(job.Pull.Matrix, true, false, lim, ts) + d.cache.need(job.Push.Matrix, false, true, lim, tileSpec{})
		default:
			need += d.cache.need(job.Pull.Matrix, true, false, lim, ts)
		}
		pt.Mark("lock")
		if err := d.reserve(need); err != nil {
			return err
		}
		var err error
		if r.mod, err = d.loadModule(key, ptx, kernelNames); err != nil {
			return err
		}
		pt.Mark("module")
		if !r.mod.layoutOK {
			if err := layout.layoutErr(r.mod.stateOffsets(len(layout.offsets))); err != nil {
				return err
			}
			r.mod.layoutOK = true
		}
		t0 := time.Now()
		r.upload(lim, ts, pt)
		r.transfers += time.Since(t0)
		d.notePeak()
		if Graphs {
			r.applyGrid() // (asks the driver once, not inside a capture)
			for _, k := range pullGraphs {
				r.graph(k)
			}
			if graphWarmup && r.hasPullGraphs() {
				r.warmGraphs()
			}
			pt.Mark("graphs")
		}
		return nil
	})
	if err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

// jobFeatures are the compile-time features of job's kernels for n
// vertices on a device whose linear textures hold texMaxWidth texels
// (start adds the tiles' where a run has them).
func jobFeatures(job *vertexprog.DeviceJob, n int, texMaxWidth int64) features {
	f := features{
		XSize: job.XSize, ASize: job.ASize, HasWants: job.HasWants, HasDone: job.HasDone,
		Priority: float32(job.Spec.Delta) > 0 && job.Push != nil, Texture: Texture, Unroll: unroll, Stream: stream,
		Probe: probe, LoopList: loopList, ApplyRows: applyRows, Aggs: aggOps(job.Spec.Aggregators),
	}
	f.TextureX = Texture && job.XSize > 0 && job.XSize%4 == 0 && int64(n)*int64(job.XSize/4) <= texMaxWidth
	return f
}

// reserve makes sure need bytes of device memory are free, freeing the
// matrices no run uses if it must. Inside device.do.
func (d *device) reserve(need int64) error {
	free, total := d.memInfo()
	if need > free && len(d.parked) > 0 {
		d.unpark(0)
		free, total = d.memInfo()
	}
	if need > free && len(d.cache.m) > 0 {
		d.cache.trim(0)
		free, total = d.memInfo()
	}
	if need > free {
		return fmt.Errorf("%w on %s: the run needs %d bytes (%.1f MiB) of device memory, %d bytes (%.1f MiB) of %d are free; "+
			"try --backend cpu, a GPU with more memory, or fewer device copies of the graph (--direction pull keeps a directed graph's pull matrix only)",
			ErrOutOfMemory, d.name, need, float64(need)/(1<<20), free, float64(free)/(1<<20), total)
	}
	return nil
}

// deviceBytes is the device memory a job needs besides its matrices.
func deviceBytes(job *vertexprog.DeviceJob, l *stateLayout, lim binLimits, c *matCache) int64 {
	n := int64(job.Pull.N)
	words := (n + 31) / 32
	need := n*int64(job.XSize) + max(8, n*int64(job.ASize)) + 2*words*4
	if job.Push != nil {
		need += n*4 + 2*max(1, n)*4 + 2*8*max(1, c.pushChunksOf(job.Push.Matrix)) + max(8, n*int64(job.ASize))
		if job.Spec.Delta > 0 {
			need += words * 4
		}
	}
	// Heavy pull chunks' partials and counters, at most.
	need += (job.Pull.CooNNZ()/int64(max(1, lim.Chunk)) + 1 + n/int64(max(1, lim.Warp))) * (int64(job.ASize) + 4)
	need += int64(recordRing*(recordHead+len(job.Spec.Aggregators))*8 + 16 + 4*len(job.Spec.Aggregators))
	// (a resident run keeps a copy of its initial state, park.go, unless
	// vp_init makes it)
	seeds := job.Resident && !job.DeviceInit
	for _, a := range l.arrays {
		need += a.bytes
		if seeds && !a.readOnly {
			need += a.bytes
		}
	}
	// An orientation the device builds: at most its degrees, counts,
	// offsets and every entry with a block of padding each.
	if some, all := l.orientations(); some || all {
		if md := c.m[job.Pull.Matrix]; md == nil || (some && md.orient[0] == nil) || (all && md.orient[1] == nil) {
			need += 16*n + 8 + 4*(job.Pull.NNZ()+3*n)
		}
	}
	if seeds {
		need += int64(len(job.X))
	}
	return need
}

// alloc allocates bytes of device memory owned by the run (0 for none).
func (r *run) alloc(bytes int64) cu.DevicePtr {
	if bytes <= 0 {
		return 0
	}
	p := cu.MemAlloc(bytes)
	r.bufs = append(r.bufs, p)
	return p
}

// upload finds the run's matrices, allocates its buffers (or adopts a
// parked run's) and fills them. Inside device.do.
func (r *run) upload(lim binLimits, ts tileSpec, pt *phase.Trace) {
	job := r.job
	d := r.d
	if job.Push == job.Pull {
		r.pull = d.cache.get(job.Pull.Matrix, true, true, lim, ts)
		r.push = r.pull
	} else {
		r.pull = d.cache.get(job.Pull.Matrix, true, false, lim, ts)
		if job.Push != nil {
			r.push = d.cache.get(job.Push.Matrix, false, true, lim, tileSpec{})
		}
	}
	d.dropPrefetch(nil)
	pt.Mark("matrices")
	for _, a := range r.layout.arrays {
		if a.orient == nil {
			continue
		}
		k := 0
		if a.orient.All {
			k = 1
		}
		if r.pull.orient[k] == nil {
			r.pull.orient[k] = deviceOrientation(r.pull, a.orient.All)
			pt.Mark("orientation")
		}
	}
	// (another run may hold the matrix's tiles of another shape)
	r.tiles = ts.rowBits > 0 && r.pull.tiles.matches(ts)
	if r.tiles {
		tiledRuns++
	}
	if !d.adopt(r) {
		r.allocate()
	}
	pt.Mark("run's buffers")
	r.fill()
	pt.Mark("run's state")
}

// allocate allocates the run's device buffers, textures and events.
func (r *run) allocate() {
	job, n := r.job, r.n
	r.graphs = map[graphKey]C.CUgraphExec{}
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
		capChunks := max(1, r.push.pushChunks)
		r.chunks[0] = r.alloc(capChunks * 8)
		r.chunks[1] = r.alloc(capChunks * 8)
		r.yLoop = r.alloc(max(8, int64(n)*int64(job.ASize)))
		if r.feats.Priority {
			r.farBits = r.alloc(int64(r.words) * 4)
		}
	}
	if bn := r.pull.bins; bn != nil && len(bn.chunkHeavy) > 0 {
		r.partial = r.alloc(int64(len(bn.chunkHeavy)) * int64(job.ASize))
		r.heavyCount = r.alloc(int64(len(bn.heavyRow)) * 4)
	}
	r.rec = r.alloc(int64(recordRing*r.recW) * 8)
	r.recHost = r.d.pinned(int64(recordRing*r.recW) * 8)
	r.recDev = hostDevicePtr(r.recHost)
	r.ctl = r.alloc(16)
	ptrs := make([]uint64, len(r.layout.arrays))
	for i, a := range r.layout.arrays {
		var p cu.DevicePtr
		if a.orient != nil {
			p = r.pull.orientation(a.orient.All).ptr(a.part)
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
		r.probeBuf = r.alloc(int64(r.pull.tiles.count()) * 24)
	}
	r.runArg = r.makeRunArg()
	r.clock.create()
}

// fill copies the job's initial state to the run's buffers and resets
// the device's records and control words.
func (r *run) fill() {
	job, n := r.job, r.n
	if job.DeviceInit {
		r.fillOnDevice()
		return
	}
	r.send(0, r.x, job.X, true, false)
	if r.words > 0 {
		htod(r.mask[0], unsafe.Pointer(&job.Active.Words()[0]), int64(r.words)*4)
		cu.MemsetD32(r.mask[1], 0, int64(r.words))
		if r.farBits != 0 {
			cu.MemsetD32(r.farBits, 0, int64(r.words))
		}
	}
	if r.heavyCount != 0 {
		cu.MemsetD32(r.heavyCount, 0, int64(len(r.pull.bins.heavyRow)))
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
	htod(r.rec, unsafe.Pointer(&ring[0]), int64(len(ring))*8)
	cu.MemsetD32(r.ctl, 0, 4)
	for i, a := range r.layout.arrays {
		r.send(1+i, r.arrays[i], unsafe.Slice((*byte)(a.ptr), a.bytes), !a.readOnly, a.constant)
	}
	// Memsets and copies above ran on the legacy stream; the kernels run
	// on the device's own (non-blocking) stream.
	cu.CtxSynchronize()
	r.fillTiles()
}

// fillTiles: vp_pull_tiles folds into y on the rows of segments of
// several tiles: they start as the identity, and APPLY puts them back.
func (r *run) fillTiles() {
	if r.tiles {
		r.launch("vp_fill", blocks(int64(r.n), blockSize), r.pull.arg, argBytes(0, false, 0))
	}
}

// fillOnDevice is fill for a job whose initial state vp_init makes
// (DeviceJob.DeviceInit): the read-only arrays are sent, the writable
// ones zeroed, and vp_init_state writes X, the writable arrays, the
// first frontier and the record of superstep -1, which comes back as
// r.last (Initial).
func (r *run) fillOnDevice() {
	if r.words > 0 {
		cu.MemsetD32(r.mask[1], 0, int64(r.words))
		if r.farBits != 0 {
			cu.MemsetD32(r.farBits, 0, int64(r.words))
		}
	}
	if r.heavyCount != 0 {
		cu.MemsetD32(r.heavyCount, 0, int64(len(r.pull.bins.heavyRow)))
	}
	ring := make([]uint64, recordRing*r.recW)
	ring[(recordRing-1)*r.recW+recRan] = 1
	for i, op := range r.job.Spec.Aggregators {
		ring[(recordRing-1)*r.recW+recordHead+i] = math.Float64bits(aggIdentity(op))
		ring[recordHead+i] = math.Float64bits(aggIdentity(op))
	}
	htod(r.rec, unsafe.Pointer(&ring[0]), int64(len(ring))*8)
	cu.MemsetD32(r.ctl, 0, 4)
	for i, a := range r.layout.arrays {
		if a.readOnly {
			r.send(1+i, r.arrays[i], unsafe.Slice((*byte)(a.ptr), a.bytes), false, a.constant)
		} else if a.bytes > 0 {
			cu.MemsetD32(r.arrays[i], 0, a.bytes/4)
		}
	}
	cu.CtxSynchronize()
	r.fillTiles()
	if r.words > 0 {
		r.launch("vp_init_state", min(blocks(int64(r.words)*32, blockSize), int64(32*max(1, r.d.sms))), r.pull.arg, argBytes(0, false, 0))
	}
	r.d.syncStream()
	r.last = make([]uint64, r.recW)
	dtoh(unsafe.Pointer(&r.last[0]), r.rec+cu.DevicePtr((recordRing-1)*r.recW*8), int64(r.recW)*8)
}

// Initial implements vertexprog.DeviceInitReporter.
func (r *run) Initial() (active int, frontierEdges int64, aggregates []float64) {
	aggregates = make([]float64, r.nagg)
	for k := range aggregates {
		aggregates[k] = math.Float64frombits(r.last[recordHead+k])
	}
	return int(r.last[recActive]), int64(r.last[recEdges]), aggregates
}

func (r *run) tex(p cu.DevicePtr, bytes int64) uint64 {
	t := texCreate(p, bytes)
	r.texs = append(r.texs, t)
	return t
}

// makeRunArg is the VP_Run argument (kernels.cu).
func (r *run) makeRunArg() []byte {
	b := make([]byte, 192)
	le := binary.LittleEndian
	var pushDeg cu.DevicePtr
	if r.push != nil {
		pushDeg = r.push.pushDeg
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
	for i, v := range []int{r.n, recordRing, r.recW, useMask, pushSmall, pushChunk, idem} {
		le.PutUint32(b[136+4*i:], uint32(int32(v)))
	}
	le.PutUint32(b[164:], math.Float32bits(float32(r.job.Spec.Delta)))
	le.PutUint64(b[168:], uint64(r.farBits))
	le.PutUint64(b[176:], uint64(r.yLoop))
	le.PutUint64(b[184:], uint64(r.probeBuf))
	return b
}

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

func blocks(n int64, per int64) int64 { return (n + per - 1) / per }

func (r *run) launch(name string, grid int64, mat []byte, arg []byte) {
	r.mod.launch(name, grid, r.d.stream, mat, r.runArg, r.state, arg)
}

// setCtl sets (op 0) or advances (op 1) the device's superstep base, or
// sets the iteration bias (op 2) or a push batch's edge limit (op 3).
func (r *run) setCtl(op, v int) { r.launch("vp_ctl", 1, r.pull.arg, argBytes(v, false, op)) }

// pushGrids are the blocks of vp_push and vp_apply_push: sized by the
// frontier when it is known (the first superstep of a call), a fixed small
// grid inside a batch (the kernels loop over whatever the frontier is).
func (r *run) pushGrids(batched bool) (push, apply int64) {
	sms := int64(max(1, r.d.sms))
	if batched {
		g := int64(pushGridPerSM) * sms
		return g, g
	}
	l := r.last
	push = max(int64(l[recChunks]), blocks(int64(l[recMedium]), blockSize/32), blocks(int64(l[recSmall]), blockSize/8))
	if !r.queued {
		// The queues are built on the device: size by the frontier.
		push = max(blocks(int64(l[recActive]), blockSize/32), blocks(int64(l[recEdges]), 1024))
	}
	apply = blocks(min(int64(r.n), int64(l[recEdges])), blockSize)
	return min(max(push, 1), 16*sms), min(max(apply, 1), 16*sms)
}

// applyGrid is vp_apply_pull's blocks: at most applyPerSM per
// multiprocessor, and no more than it holds at once (kron21 LDBC
// PageRank, whose APPLY fits 6: 2.37 → 2.32 ms against 8 blocks, two
// waves), each taking VP_BLOCK rows a turn.
func (r *run) applyGrid() int64 {
	grid := blocks(int64(r.n), int64(blockSize*r.feats.applyRows()))
	if applyPerSM > 0 {
		per := applyPerSM
		if k := r.mod.resident("vp_apply_pull"); k > 0 {
			per = min(per, k)
		}
		grid = min(grid, int64(per*max(1, r.d.sms)))
	}
	return grid
}

// compactGrid is vp_compact's blocks: one per VP_BLOCK vertices up to
// compactPerSM per multiprocessor, which then loop.
func (r *run) compactGrid() int64 {
	return min(blocks(int64(r.n), blockSize), int64(compactPerSM*max(1, r.d.sms)))
}

// compactPerSM bounds vp_compact's grid (HPGRAPH_CUDA_COMPACTGRID).
var compactPerSM = 32

// enqueue launches superstep base+j. Inside device.do.
func (r *run) enqueue(dir vertexprog.Direction, j int, batched bool) {
	a := argBytes(j, batched, 0)
	if dir == vertexprog.Push {
		pg, ag := r.pushGrids(batched) // (before queued changes: it sizes by it)
		if !r.queued {
			// After pulls (or at the start) the frontier is a bitmask only.
			r.launch("vp_compact", r.compactGrid(), r.pull.arg, a)
			r.queued = true
		}
		r.launch("vp_push", pg, r.push.arg, a)
		r.launch("vp_apply_push", ag, r.pull.arg, a)
		return
	}
	r.queued = false
	if r.tiles {
		a := argBytes(j, batched, 1) // (op 1: APPLY resets the rows tiles fold into)
		t := r.pull.tiles
		r.mod.launchShared("vp_pull_tiles", int64(t.count()), tileBlock, tileShared(t.rowBits, r.job.ASize), r.d.stream, r.pull.arg, r.runArg, r.state, a)
		r.tr.mark()
		r.launch("vp_apply_pull", r.applyGrid(), r.pull.arg, a)
		return
	}
	r.launch("vp_pull_ell", blocks(int64(r.n), blockSize), r.pull.arg, a)
	r.launch("vp_pull_coo", r.pull.cooBlocks(r.feats.HasWants || r.feats.HasDone), r.pull.arg, a)
	r.launch("vp_apply_pull", r.applyGrid(), r.pull.arg, a)
}

// graphKey names a captured CUDA graph: steps supersteps in direction
// dir (the first unbatched when first is set; relative to the device's
// superstep base, which the graph advances past them), then, when records
// is set, their records' copy to the host (vp_records). With begin, the
// graph starts the run's device clock first (the run's first call).
type graphKey struct {
	dir                   vertexprog.Direction
	steps                 int
	first, records, begin bool
}

// graph returns the CUDA graph k (capturing it on first use), or nil when
// graphs cannot be used.
func (r *run) graph(k graphKey) C.CUgraphExec {
	if r.noGraphs {
		return nil
	}
	if e, ok := r.graphs[k]; ok {
		return e
	}
	r.d.beginCapture()
	err := catch("capturing a CUDA graph", func() error {
		if k.begin {
			r.clock.capture(0, r.d)
		}
		for j := 0; j < k.steps; j++ {
			r.enqueue(k.dir, j, j > 0 || !k.first)
		}
		r.setCtl(1, k.steps)
		if k.records {
			r.launchRecords(-k.steps, k.steps)
		}
		return nil
	})
	var e C.CUgraphExec
	err2 := catch("instantiating a CUDA graph", func() error { e = r.d.endCapture(); return nil })
	if err != nil || err2 != nil {
		destroyGraph(e)
		r.noGraphs = true
		return nil
	}
	r.graphs[k] = e
	return e
}

// pullGraphs are the graphs of single pull supersteps (unbatched with and
// without the records' copy, batched), captured when the run starts: a
// superstep replayed from a graph costs the host one submission, ~2-7 µs,
// where its launches cost ~5-10 µs each (docs/perf.md, section 17), but
// capturing, instantiating and uploading one costs more than a superstep.
var pullGraphs = []graphKey{
	{vertexprog.Pull, 1, true, true, false},
	{vertexprog.Pull, 1, true, false, false},
	{vertexprog.Pull, 1, false, false, false},
	{vertexprog.Pull, 1, true, true, true},
	{vertexprog.Pull, 1, true, false, true},
}

// Step implements vertexprog.DeviceRun.
func (r *run) Step(it int, dir vertexprog.Direction) (active int, frontierEdges int64, aggregates []float64, err error) {
	reps, err := r.steps(it, dir, 1, 0)
	if err != nil {
		return 0, 0, nil, err
	}
	return reps[0].Active, reps[0].FrontierEdges, reps[0].Aggregates, nil
}

// StepBatch implements vertexprog.DeviceBatchRun: up to max supersteps
// (at most maxBatch) are enqueued back to back and their records read
// back once. Each superstep after the first runs only while the frontier
// is nonempty and small (the engine's batching rule: under n/64 vertices,
// or pushing, under pushEdges edges): the batch ends after the first
// superstep that activates nothing, or before the first whose frontier is
// large, which the engine then runs on its own.
func (r *run) StepBatch(it int, dir vertexprog.Direction, max int, pushEdges int64) ([]vertexprog.StepReport, error) {
	return r.steps(it, dir, max, pushEdges)
}

func (r *run) steps(it int, dir vertexprog.Direction, count int, pushEdges int64) ([]vertexprog.StepReport, error) {
	if r.closed {
		return nil, errors.New("cuda: Step on a closed run")
	}
	if dir == vertexprog.Push && r.push == nil {
		return nil, errors.New("cuda: push superstep requested for a run without a push matrix")
	}
	count = min(max(count, 1), maxBatch)
	var reps []vertexprog.StepReport
	var tr *stepTrace
	if traceSteps {
		tr = &stepTrace{call: time.Now()}
	}
	err := r.d.do("running supersteps", func() error {
		tr.start(r.d)
		r.tr = tr
		defer func() { r.tr = nil }()
		tr.mark()
		s0 := r.step
		pushEdges = min(max(pushEdges, 0), math.MaxInt32)
		// The clock starts before the call's first launch: in the graph of
		// its first superstep when nothing comes before that (a host call
		// less: docs/perf.md, section 18).
		if !r.pullGraph(dir, s0) || it-s0 != r.bias || count > 1 && pushEdges != r.edges {
			r.clock.begin(r.d)
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
		if dir == vertexprog.Push && r.yDirty {
			r.launch("vp_fill", blocks(int64(r.n), blockSize), r.pull.arg, argBytes(0, false, 0))
			r.yDirty = false
		}
		if r.startLoop(dir, count) {
			r.clock.end(r.d)
			tr.enqueued(r.d)
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
		if dir == vertexprog.Pull {
			r.yDirty = true
		}
		r.clock.end(r.d)
		tr.mark()
		tr.enqueued(r.d)
		r.readRecords(s0, count, recorded)
		tr.waited()
		if r.probeBuf != 0 && dir == vertexprog.Pull {
			r.printTileProbe()
		}
		reps = append(reps, r.reports(s0, count)...)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("superstep %d (%s): %w", it, dir, err)
	}
	tr.report(r.d, it, len(reps))
	return reps, nil
}

// startLoop launches vp_loop for supersteps r.step, ... (up to count)
// when they push from a frontier small enough for one cluster, and
// reports whether it did. A device that cannot launch the cluster gets
// one of 8 blocks, then none. Inside device.do.
func (r *run) startLoop(dir vertexprog.Direction, count int) bool {
	// (the kernel starts on the same test: a launch it declines would
	// read as a superstep that activated nothing)
	lim, first := min(loopEdges, loopCap), min(loopEdges, loopCap)
	if r.feats.LoopList > 0 {
		first = min(first, r.feats.LoopList)
	}
	if dir != vertexprog.Push || count < 2 || r.loop == 0 || r.last[recActive] == 0 || r.last[recEdges] > uint64(first) {
		return false
	}
	s0 := r.step
	if !r.queued {
		r.launch("vp_compact", r.compactGrid(), r.pull.arg, argBytes(s0-r.base, false, 0))
		r.queued = true
	}
	if !r.yLoopOK {
		r.launch("vp_fill", blocks(int64(r.n), blockSize), r.pull.arg, argBytes(0, false, 1))
		r.yLoopOK = true
	}
	arg := loopArg(s0-r.base, false, count, lim)
	for r.loop > 0 {
		if r.mod.launchLoop(r.loop, loopShared(r.feats.Priority), r.d.stream, r.push.arg, r.runArg, r.state, arg) == nil {
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
func (r *run) batchable(rep vertexprog.StepReport) bool {
	return rep.Active*smallFrontier < r.n || rep.FrontierEdges < r.edges
}

// enqueueSteps launches supersteps s0, ... (count of them) with the
// grid-wide kernels: the first whatever its frontier, the rest batched,
// in CUDA graphs where they can be. It reports whether it also launched
// the copy of their records (vp_records). Inside device.do.
func (r *run) enqueueSteps(dir vertexprog.Direction, s0, count int) (recorded bool) {
	// Pulls launch the same kernels on the same grids every superstep, so
	// each can come from a graph (captured at Start); the others batch in
	// graphs of graphSteps. A graph moves the device's base past its
	// supersteps.
	pull := dir == vertexprog.Pull && r.hasPullGraphs()
	if pull {
		r.moveBase(s0)
		begin := !r.clock.started
		r.d.launchGraph(r.graph(graphKey{dir, 1, true, count == 1, begin}))
		r.clock.started = true
		r.base++
		r.queued = false
		recorded = count == 1
	} else {
		r.enqueue(dir, s0-r.base, false)
	}
	rest := count - 1
	for rest > 0 && (pull || Graphs && !r.noGraphs && rest >= graphSteps) {
		k := graphKey{dir, 1, false, false, false}
		if rest >= graphSteps {
			k.steps = graphSteps
		}
		e := r.graph(k)
		if e == nil {
			break
		}
		r.moveBase(s0 + count - rest)
		r.d.launchGraph(e)
		r.base += k.steps
		rest -= k.steps
	}
	for ; rest > 0; rest-- { // without graphs, or after one failed
		r.enqueue(dir, s0+count-rest-r.base, true)
	}
	return recorded
}

// warmGraphs launches each of pullGraphs once on superstep 2, which does
// not run (record 1, which it reads, activated nothing: only record
// recordRing-1 holds the initial frontier), then sets the device's base
// back to 0: a graph's first launch costs the host ~6 µs more than the
// next ones, cuGraphUpload or not (docs/perf.md, section 18). Inside
// device.do, at Start.
func (r *run) warmGraphs() {
	for _, k := range pullGraphs {
		r.setCtl(0, 2)
		r.d.launchGraph(r.graphs[k])
	}
	r.setCtl(0, r.base)
	r.d.syncStream()
}

// pullGraph reports whether superstep s0 in direction dir replays a
// graph captured at Start (pullGraphs) with nothing launched before it: a
// pull, and no vp_ctl first to move the device's base to s0.
func (r *run) pullGraph(dir vertexprog.Direction, s0 int) bool {
	return dir == vertexprog.Pull && r.hasPullGraphs() && r.base == s0
}

// hasPullGraphs reports whether every graph of pullGraphs was captured
// (and no capture has failed since).
func (r *run) hasPullGraphs() bool {
	return !r.noGraphs && r.graphs[pullGraphs[0]] != nil
}

// moveBase sets the device's superstep base to s unless it is there.
func (r *run) moveBase(s int) {
	if r.base != s {
		r.setCtl(0, s)
		r.base = s
	}
}

// launchRecords launches vp_records for supersteps ctl[0]+j, ... (count
// of them). Inside device.do.
func (r *run) launchRecords(j, count int) {
	arg := r.recArg[:]
	binary.LittleEndian.PutUint64(arg, r.recDev)
	binary.LittleEndian.PutUint32(arg[8:], uint32(int32(j)))
	binary.LittleEndian.PutUint32(arg[12:], uint32(count))
	r.mod.launch2("vp_records", 1, r.d.stream, r.runArg, arg)
}

// readRecords copies the records of supersteps s0 .. s0+count-1 into
// r.host (unless recorded: a graph did) and waits for the stream. Inside
// device.do.
func (r *run) readRecords(s0, count int, recorded bool) {
	if !recorded {
		r.launchRecords(s0-r.base, count)
	}
	r.tr.mark()
	r.d.syncStream()
	r.host = unsafe.Slice((*uint64)(r.recHost), recordRing*r.recW)
}

// reports turns the records read back into the supersteps that ran, and
// advances the run past them.
func (r *run) reports(s0, count int) []vertexprog.StepReport {
	var reps []vertexprog.StepReport
	for i := 0; i < count; i++ {
		slot := (s0 + i) % recordRing
		rec := r.host[slot*r.recW : (slot+1)*r.recW]
		if i > 0 && rec[recRan] == 0 {
			break
		}
		rep := vertexprog.StepReport{Active: int(rec[recActive]), FrontierEdges: int64(rec[recEdges]),
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

// DeviceTime implements vertexprog.DeviceTimer.
func (r *run) DeviceTime() time.Duration { return r.clock.deviceTime(r.d) }

// Transfers implements vertexprog.TransferReporter: the time Start spent
// copying the run to the device and Finish copying results back.
func (r *run) Transfers() time.Duration { return r.transfers }

// Finish implements vertexprog.DeviceRun: X into x, the writable state
// arrays into their Go slices.
func (r *run) Finish(x []byte) error {
	if r.closed {
		return errors.New("cuda: Finish on a closed run")
	}
	if x != nil && len(x) != r.n*r.job.XSize {
		return fmt.Errorf("cuda: Finish: %d bytes for X, want %d", len(x), r.n*r.job.XSize)
	}
	t0 := time.Now()
	defer func() { r.transfers += time.Since(t0) }()
	return r.d.do("copying results back", func() error {
		r.d.syncStream()
		if len(x) > 0 {
			dtoh(unsafe.Pointer(&x[0]), r.x, int64(len(x)))
		}
		for i, a := range r.layout.arrays {
			if !a.readOnly && a.bytes > 0 {
				dtoh(a.ptr, r.arrays[i], a.bytes)
			}
		}
		r.finished = true
		return nil
	})
}

// FinishSummary implements vertexprog.SummaryFinisher.
func (r *run) FinishSummary() error {
	if r.closed {
		return errors.New("cuda: FinishSummary on a closed run")
	}
	return r.d.do("finishing the run", func() error {
		r.d.syncStream()
		r.finished = true
		return nil
	})
}

// Close implements vertexprog.DeviceRun.
func (r *run) Close() {
	if r.closed {
		return
	}
	r.closed = true
	pt := phase.New("cuda", "close")
	defer pt.Print()
	_ = r.d.do("freeing device memory", func() error {
		synced := catch("waiting for the GPU", func() error { r.d.syncStream(); return nil }) == nil
		pt.Mark("lock and sync")
		if synced && r.finished && r.job.Resident {
			r.d.park(r)
			pt.Mark("parked")
		} else {
			r.d.freeBuffers(&r.buffers, r.recW)
			pt.Mark("buffers")
		}
		for _, md := range []*matDev{r.pull, r.push} {
			if md != nil {
				r.d.cache.release(md)
			}
			if r.push == r.pull {
				break
			}
		}
		return nil
	})
}
