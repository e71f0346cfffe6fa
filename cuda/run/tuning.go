//go:build cgo

package run

import (
	"os"

	"github.com/hpgraph/hpgraph/cuda/build"
)

// The tuning values of a run's launches, each measured on an H200 and
// settled (the docs/perf/ section cited names it); they were environment
// variables (HPGRAPH_CUDA_*) while being measured, and are constants
// now: no environment variable changes a kernel's configuration or a
// launch's grid (but HPGRAPH_CUDA_PROBE, debugging output: probe). The
// bins, tiles and staging buffers keep theirs in build/bins.go,
// build/tiles.go and rt/transfer.go. A few have a field of hooks beside
// them that tests set on a device to reach a path the defaults do not
// on small graphs: a test hook, not a knob.

// Pull kernels' compile-time switches (features).
const (
	// unroll is the pull entries a thread loads at a time (VP_UNROLL); 0
	// leaves the template's 4: 1 measured the same
	// (docs/perf/gpu-kernels.md#pull-coo-by-row-bins), 2 and 8 slower
	// (docs/perf/gpu-kernels.md#tried-in-session-7-not-kept).
	unroll = 0
	// stream makes pulls load the matrix evict-first (VP_STREAM):
	// PageRank 0.495 → 0.487 ms, kept as it costs nothing
	// (docs/perf/gpu-kernels.md#bins-re-tuned-and-evict-first-matrix-loads).
	stream = true
	// applyRows is the rows a thread of vp_apply_pull takes at a time
	// (VP_APPLY_ROWS); 0 is applyRowsDefault.
	applyRows = 0
)

// applyRowsDefault: 1, 2 and 4 measured the same, 2 stays
// (docs/perf/gpu-kernels.md#applys-aggregators-at-compile-time).
const applyRowsDefault = 2

// Launch grids.
const (
	// pushGridPerSM is the blocks per multiprocessor of the push kernels
	// in a batch, where the frontier's size is not known when they are
	// launched: 1 to 8 within noise on grid BFS, 8 since grid SSSP batches
	// (docs/perf/gpu-kernels.md#tuning-texture-hyb-split-push-grid and
	// docs/perf/supersteps-and-graphs.md#push-batches-by-frontier-edges).
	pushGridPerSM = 8
	// applyPerSM bounds the blocks of vp_apply_pull per multiprocessor,
	// and so do the blocks a multiprocessor holds at once (no second
	// wave): kron21 BFS 0.339 → 0.312 ms against a block per 256 rows
	// (docs/perf/gpu-kernels.md#applys-counts-per-block,
	// docs/perf/gpu-kernels.md#applys-grid-and-its-occupancy and
	// docs/perf/gpu-kernels.md#applys-grid-capped-at-what-a-multiprocessor-holds).
	applyPerSM = 8
	// compactPerSM bounds vp_compact's grid, a grid-stride loop: kron27
	// BFS superstep 0 2.43 → 2.06 ms (row j of
	// docs/perf/time-to-answer.md#the-first-preprocess-and-kron27s-bfs).
	compactPerSM = 32
)

// graphWarmup launches the graphs of pull supersteps once at Start
// (warmGraphs): pagerank-iter 0.150 → 0.144 ms, BFS kron21 0.265 → 0.256
// (docs/perf/supersteps-and-graphs.md#a-graphs-first-launch).
const graphWarmup = true

// loopEdgesDefault is the most frontier edges vp_loop pushes in a
// superstep (the kernel holds at most loopCap); larger frontiers go to
// the grid-wide kernels. 32,768 and 65,536 measured no better
// (docs/perf/supersteps-and-graphs.md#vp_loop-supersteps-in-one-cluster-launch,
// docs/perf/gpu-kernels.md#tried-in-session-7-not-kept and
// docs/perf/supersteps-and-graphs.md#fixes-found-on-the-way-the-loop-limit).
const loopEdgesDefault = 16384

// hooks are a device's test hooks, not knobs: values tests set (on the
// device they test) to reach paths the defaults do not on small graphs,
// or to compare a path with another. defaultHooks are what every device
// starts with.
type hooks struct {
	// loopEdges is loopEdgesDefault; TestStepBatch sets it low so that
	// batches go back and forth between vp_loop and the grid-wide kernels.
	loopEdges int
	// loopList, when positive, is the rows a vp_loop touched list takes
	// before the rest spill to the run's touchedList (VP_LOOP_LIST; 0: the
	// kernel's VP_LOOP_CAP): tests set it low to exercise the spill.
	loopList int
	// binLimits are the thresholds runs build their pull bins with
	// (build.DefaultBins): tests set tiny bins so that small graphs fill
	// every bin and cut heavy rows into chunks.
	binLimits build.BinLimits
	// tileArcs is build.TileArcsDefault; tileRowBits, when positive,
	// replaces build.TileRowBitsFor; tileNear, when 0 or 1, decides
	// groupsNear for every accumulator size (-1: for 4-byte ones,
	// docs/perf/pagerank-tiles.md#groups-near-in-columns-for-4-byte-accumulators):
	// tests cut small graphs into many segments
	// and tiles.
	tileArcs, tileRowBits, tileNear int
	// sizing is set while tilesFit asks for the free memory (for a
	// test's rt.Hooks.MemInfo).
	sizing bool
	// noELLRoom makes a run's first reservation fail as out of memory
	// where its pull could go without its ELL (withoutELL): tests reach
	// that path on small graphs.
	noELLRoom bool
	// noWholeRoom makes a part's first reservation fail as out of memory
	// where its device would build the whole graph's orientation
	// (DeviceJob.Whole): tests reach the host's build on small graphs.
	noWholeRoom bool
	// ccPack, when positive, makes components in parts pack their
	// forests for the last merge (ccParts.pack) on one device too, with
	// at most ccPack (vertex, label) pairs a list: tests reach the packed
	// merge on one GPU, and with a low cap the whole forests' merge after
	// an overflow.
	ccPack int
}

func defaultHooks() hooks {
	return hooks{loopEdges: loopEdgesDefault, binLimits: build.DefaultBins(), tileArcs: build.TileArcsDefault, tileNear: -1}
}

// counts are what a device counts for tests.
type counts struct {
	tiledRuns   int // runs that pulled by tiles
	adoptedRuns int // runs that took a parked run's buffers
	cooPullRuns int // runs whose pull went without its ELL (withoutELL)
	hostOrients int // parts whose orientation the host built, the whole matrix not fitting beside them
	packedMerge int // components in parts whose last merge sent packed forests
	wholeMerge  int // ... and those that sent whole forests after all (a list past its capacity)
	// partPulls are the runs of parts (and components' parts) that took
	// their pull's device copy; partPullBytes the ELL slots and COO
	// offsets those copies held, partPullWhole what the same arrays over
	// all N rows would have (build.Matrix.RowBytes).
	partPulls                    int
	partPullBytes, partPullWhole int64
}

// probe makes vp_loop print, from block 0, the cycles a superstep spends
// in each phase, and vp_pull_tiles record each tile's start, end and
// multiprocessor, printed after each pull (printTileProbe; summed up by
// scripts/tile-probe.awk). HPGRAPH_CUDA_PROBE=1 turns it on: debugging
// output, not a knob (it compiles the kernels with VP_PROBE, which adds
// barriers, and changes no result).
var probe = os.Getenv("HPGRAPH_CUDA_PROBE") == "1"
