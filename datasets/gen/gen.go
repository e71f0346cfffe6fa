// Package gen makes synthetic graphs, reproducibly from a seed: the
// Kronecker (R-MAT) and uniform-random graphs of the GAP Benchmark Suite,
// edge for edge, and 2-D grids and road-like lattices.
//
// Every generator returns a *datasets.EdgeList that is undirected and may
// hold self loops and repeated edges; datasets.Build with the default
// options drops the loops and merges the repeats, exactly as GAP's builder
// does, so the built graph's Edges() is the edge count GAP prints. Weights
// are not the generators' business: ask Build for datasets.WeightsRandom.
//
// Output depends only on the arguments, never on GOMAXPROCS or timing:
// the parallel generators split the work into blocks that each reseed
// their own random number generator, as GAP does.
package gen

import (
	"errors"
	"fmt"
	"math"
)

// GAPSeed is GAP's kRandSeed. Kronecker and Uniform with this seed and
// degree 16 reproduce GAP's -g and -u graphs.
const GAPSeed = 27491095

// GAPDegree is GAP's default degree (-k): generated entries per vertex.
const GAPDegree = 16

// MaxScale is the largest scale accepted: 2^30 vertices keeps every id,
// and the 2^scale vertex count itself, inside int32.
const MaxScale = 30

// ErrInvalid is wrapped by every parameter error, for errors.Is.
var ErrInvalid = errors.New("invalid generator parameter")

func invalid(format string, args ...any) error {
	return fmt.Errorf("gen: "+format+": %w", append(args, ErrInvalid)...)
}

// checkScaleDegree validates the GAP-style parameters and returns the
// number of entries, degree·2^scale.
func checkScaleDegree(kind string, scale, degree int) (int, error) {
	if scale < 1 || scale > MaxScale {
		return 0, invalid("%s: scale %d is outside [1, %d]", kind, scale, MaxScale)
	}
	if degree < 1 {
		return 0, invalid("%s: degree %d is below 1", kind, degree)
	}
	if degree > math.MaxInt>>scale {
		return 0, invalid("%s: degree %d at scale %d overflows the edge count", kind, degree, scale)
	}
	return degree << scale, nil
}

// checkLattice validates grid dimensions and returns rows·cols.
func checkLattice(kind string, rows, cols int) (int, error) {
	if rows < 1 || cols < 1 {
		return 0, invalid("%s: size %dx%d must be at least 1x1", kind, rows, cols)
	}
	if rows > math.MaxInt32/cols {
		return 0, invalid("%s: size %dx%d exceeds %d vertices", kind, rows, cols, math.MaxInt32)
	}
	return rows * cols, nil
}
