//go:build cgo

package cuda

import (
	"os"
	"strconv"
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
}
