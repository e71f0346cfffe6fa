package run

import (
	"fmt"
	"sync"
)

// Options are the CUDA backend's choices that are a user's to make: each
// trades something (host PREPROCESS for faster pulls, the per-kernel
// launches a profiler sees for fewer host submissions) or works around a
// device or driver, and none changes a result. Their defaults are the
// measured best on an H200 (docs/perf/README.md); the tuning values measured
// once and settled are constants (tuning.go), and environment variables
// only turn on debugging output (doc.go).
//
// Options belong to a backend (Settings; package cuda's Open, SetOptions
// and Configure) and apply to its runs started afterwards: a run reads
// them once, at its start, so runs already going keep theirs. The
// command line sets them with --cuda-texture, --cuda-graphs, --cuda-tiles
// and --cuda-loop (hpgraph run, bench, verify and serve).
type Options struct {
	// Texture reads the frontier bitmasks and X through texture objects
	// (true) or __ldg loads (false). It is a compile-time switch of the
	// kernels: false compiles other kernels than the prebuilt images.
	// Default true (__ldg was as fast on kron21 BFS, slower on PageRank
	// and SSSP: docs/perf/gpu-kernels.md#tuning-texture-hyb-split-push-grid
	// and docs/perf/gpu-kernels.md#tried-in-session-7-not-kept).
	Texture bool

	// Graphs replays batches of supersteps (driver.DeviceBatchRun)
	// and pull supersteps from captured CUDA graphs; false launches
	// every kernel, as a profiler may want to see them. Default true
	// (docs/perf/supersteps-and-graphs.md#supersteps-on-the-device-batches-cuda-graphs,
	// docs/perf/supersteps-and-graphs.md#pull-supersteps-replay-cuda-graphs and
	// docs/perf/supersteps-and-graphs.md#a-graphs-first-launch).
	Graphs bool

	// Tiles decides when the pulls of programs that gather from every
	// neighbour (Spec.GatherAll, without vp_wants or vp_done, with a 4-
	// or 8-byte accumulator, and without DeviceCode.HeavyGather) run by
	// column-sorted tiles (build/tiles.go, vp_pull_tiles) instead of by rows
	// (ELL and COO bins). The tiles are built on the device
	// (build/tilesdev.go: 15-18 ms of kron21's first PREPROCESS on an H200) and
	// save ~0.35 ms a pull: they pay for a graph that stays loaded.
	// Default TilesResident (docs/perf/pagerank-tiles.md#column-sorted-tiles
	// and docs/perf/device-preprocess.md#tiles-built-on-the-device).
	Tiles TileMode

	// LoopCluster is the blocks of the thread block cluster that runs
	// push batches over small frontiers in one launch (vp_loop): 16 (non
	// portable, and the most; 8 where the device refuses), 1 for one
	// block, 0 for none (every superstep launches its kernels). 0 to
	// MaxLoopCluster. Default 16
	// (docs/perf/supersteps-and-graphs.md#many-supersteps-in-one-launch and
	// docs/perf/supersteps-and-graphs.md#one-cluster-barrier-a-superstep).
	LoopCluster int
}

// TileMode is when pulls run by column-sorted tiles (Options.Tiles).
type TileMode int

const (
	// TilesResident builds tiles for resident runs only
	// (vertexprog.Options.Resident: bench, serve, run with several
	// sources), where the graph stays loaded for many pulls: the first
	// such run builds them on the device, and the runs after it use them.
	// A shape the device does not build (build.TilesOnDevice: a graph of more
	// than about 2^30 vertices) pulls by rows.
	TilesResident TileMode = iota
	// TilesAlways builds them for every run that can use them, in the
	// run that asks (on the host where the device does not build them).
	TilesAlways
	// TilesNever pulls by rows always.
	TilesNever
)

// String is the mode as ParseTileMode reads it: auto, always or never.
func (m TileMode) String() string {
	switch m {
	case TilesResident:
		return "auto"
	case TilesAlways:
		return "always"
	case TilesNever:
		return "never"
	}
	return fmt.Sprintf("TileMode(%d)", int(m))
}

// ParseTileMode reads auto (TilesResident), always or never.
func ParseTileMode(s string) (TileMode, error) {
	for _, m := range []TileMode{TilesResident, TilesAlways, TilesNever} {
		if s == m.String() {
			return m, nil
		}
	}
	return 0, fmt.Errorf("cuda: tile mode %q: want auto, always or never", s)
}

// MaxLoopCluster is the largest Options.LoopCluster (kernels.cu's
// VP_LOOP_MAX).
const MaxLoopCluster = 16

// DefaultOptions are the options a backend starts with.
func DefaultOptions() Options {
	return Options{Texture: true, Graphs: true, Tiles: TilesResident, LoopCluster: MaxLoopCluster}
}

// Validate reports what is wrong with o, or nil.
func (o Options) Validate() error {
	if o.Tiles < TilesResident || o.Tiles > TilesNever {
		return fmt.Errorf("cuda: Options.Tiles %d: want TilesResident, TilesAlways or TilesNever", int(o.Tiles))
	}
	if o.LoopCluster < 0 || o.LoopCluster > MaxLoopCluster {
		return fmt.Errorf("cuda: Options.LoopCluster %d: want 0 (no cluster) to %d", o.LoopCluster, MaxLoopCluster)
	}
	return nil
}

// Settings hold a backend's options, read and set from any goroutine
// (its runs read them at their start). The zero value holds the zero
// Options.
type Settings struct {
	mu  sync.Mutex
	opt Options
}

// Options are the options runs started now get.
func (s *Settings) Options() Options {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.opt
}

// SetOptions sets the options of runs started afterwards, or returns why
// o is invalid (and changes nothing). Runs already started keep the
// options they started with.
func (s *Settings) SetOptions(o Options) error {
	if err := o.Validate(); err != nil {
		return err
	}
	s.mu.Lock()
	s.opt = o
	s.mu.Unlock()
	return nil
}
