package cuda

import "github.com/hpgraph/hpgraph/cuda/run"

// Options are a backend's choices that are a user's to make
// (run.Options): texture reads, CUDA graphs, tiled pulls and vp_loop's
// cluster.
type Options = run.Options

// TileMode is when pulls run by column-sorted tiles (Options.Tiles).
type TileMode = run.TileMode

// The tile modes (run.TileMode).
const (
	TilesResident = run.TilesResident
	TilesAlways   = run.TilesAlways
	TilesNever    = run.TilesNever
)

// MaxLoopCluster is the largest Options.LoopCluster.
const MaxLoopCluster = run.MaxLoopCluster

// DefaultOptions are the options a backend starts with.
func DefaultOptions() Options { return run.DefaultOptions() }

// ParseTileMode reads auto (TilesResident), always or never.
func ParseTileMode(s string) (TileMode, error) { return run.ParseTileMode(s) }
