package apps

import (
	"fmt"
	"math"
	"sort"

	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/internal/par"
	"github.com/hpgraph/hpgraph/vertexprog"
)

// SSSPProgram is the paper's Algorithm 1: Bellman-Ford as min-plus SpMV.
// A vertex's value is its tentative distance; it gathers min(dist[u] + w)
// over active in-neighbours and is active when its distance dropped. An
// unweighted graph has unit weights (hop counts).
//
// With Delta > 0 it runs by delta-stepping (vertexprog.Spec.Delta), the
// priority being the distance (Priority): a vertex whose distance is a
// bucket or more above the current round's waits for a later round (a
// device's small frontiers, buckets Delta wide; the CPU, a sixteenth as
// wide). The distances are the same.
type SSSPProgram struct {
	Source int32
	Delta  float64
}

func (p *SSSPProgram) Spec() vertexprog.Spec {
	return vertexprog.Spec{Edges: vertexprog.InEdges, Sparse: true, Idempotent: true, Delta: p.Delta}
}

// Prepare rejects an out-of-range source and negative or NaN weights
// (checked once per graph, on all cores: ssspWeights).
func (p *SSSPProgram) Prepare(g *vertexprog.Graph) error {
	if err := checkSource(g, p.Source); err != nil {
		return err
	}
	if !g.Weighted() {
		return nil
	}
	err, _ := g.Memo(ssspWeights{}, func() any { return checkWeights(g) }).(error)
	return err
}

// ssspWeights is the key in vertexprog.Graph.Memo of the weights' check:
// a server's every query on a weighted kron21 passed over 67M weights.
type ssspWeights struct{}

// checkWeights returns the error for the first negative or NaN weight in
// vertex order, or nil: one pass over the flat weights on every core (a
// weight is bad where !(w >= 0): NaN and every negative but -0), each
// block's first bad index kept, the lowest reported (the CSR's order is
// vertex order). A pass per vertex over its row took 13 ms of a kron21
// SSSP's first PREPROCESS on the H100's 16 cores.
func checkWeights(g *vertexprog.Graph) error {
	d := g.Dataset()
	first := make([]int, par.Workers())
	for w := range first {
		first[w] = -1
	}
	par.Blocks(len(d.W), func(w, lo, hi int) {
		for i, x := range d.W[lo:hi] {
			if !(x >= 0) {
				first[w] = lo + i
				return
			}
		}
	})
	for _, i := range first {
		if i >= 0 {
			u := int32(sort.Search(d.N, func(v int) bool { return d.RowPtr[v+1] > int64(i) }))
			return fmt.Errorf("%w: sssp: edge %d -> %d has weight %v; weights must be non-negative numbers (load without weights or with random ones: Options.Weights)",
				ErrInvalidInput, d.OriginalID(u), d.OriginalID(d.Col[i]), d.W[i])
		}
	}
	return nil
}

func (p *SSSPProgram) Init(v int32, _ *vertexprog.Step) (float32, bool) {
	if v == p.Source {
		return 0, true
	}
	return float32(math.Inf(1)), false
}

// InitRange is Init over [lo, hi) as a fill (vertexprog.RangeIniter).
func (p *SSSPProgram) InitRange(lo, hi int32, x []float32, _ *vertexprog.Step) (bool, []int32) {
	fill(x, float32(math.Inf(1)))
	if p.Source >= lo && p.Source < hi {
		x[p.Source-lo] = 0
		return false, []int32{p.Source}
	}
	return false, nil
}

func (p *SSSPProgram) Identity() float32 { return float32(math.Inf(1)) }

// Gather relaxes an in-edge. Distances start at 0 or +Inf and weights
// are numbers >= 0 (Prepare), so du+w is never negative nor NaN, which
// lets the device fold it with one integer atomicMin on its bits:
//
//devgen:nonnegative
func (p *SSSPProgram) Gather(acc float32, _, _ int32, du float32, w float32) float32 {
	return min(acc, du+w)
}

// GatherRow relaxes a row of in-edges in one loop (vertexprog.RowGatherer).
func (p *SSSPProgram) GatherRow(acc float32, _ int32, nbrs []int32, w []float32, d []float32) float32 {
	if w == nil {
		for _, u := range nbrs {
			acc = min(acc, d[u]+1)
		}
		return acc
	}
	w = w[:len(nbrs)]
	for i, u := range nbrs {
		acc = min(acc, d[u]+w[i])
	}
	return acc
}

func (p *SSSPProgram) Reduce(a, b float32) float32 { return min(a, b) }

func (p *SSSPProgram) Update(_ int32, acc float32, d *float32, _ *vertexprog.Step) bool {
	if acc < *d {
		*d = acc
		return true
	}
	return false
}

// Priority is a vertex's delta-stepping priority (vertexprog.Prioritizer):
// its distance.
func (p *SSSPProgram) Priority(_ int32, d float32) float32 { return d }

var _ vertexprog.Prioritizer[float32] = (*SSSPProgram)(nil)

// SSSPResult is an SSSP's output.
type SSSPResult struct {
	// Dist[v] is the shortest distance from the source (+Inf: unreachable).
	Dist []float32
	Run  *vertexprog.Result[float32]
}

// SSSP computes shortest-path distances from src, by delta-stepping with
// DefaultDelta(g).
func SSSP(g *vertexprog.Graph, src int32, opt vertexprog.Options) (*SSSPResult, error) {
	return SSSPDelta(g, src, DefaultDelta(g), opt)
}

// DefaultDelta is the delta SSSP runs with: DeltaWeights times the mean
// edge weight (1 on an unweighted graph); 0 where that is no positive
// number (weights SSSPProgram rejects). It is computed once per graph
// (vertexprog.Graph.Memo), on every core: a pass over every weight on one
// core was ~80 ms of each query of `run sssp --src gap:16` on a weighted
// kron21, 25 times the query's compute.
func DefaultDelta(g *vertexprog.Graph) float64 {
	if g == nil || g.Dataset() == nil {
		return DeltaWeights
	}
	return g.Memo(defaultDeltaKey{}, func() any { return meanWeightDelta(g.Dataset()) }).(float64)
}

// defaultDeltaKey is DefaultDelta's key in vertexprog.Graph.Memo.
type defaultDeltaKey struct{}

func meanWeightDelta(d *datasets.Graph) float64 {
	if len(d.W) == 0 {
		return DeltaWeights
	}
	sums := make([]float64, par.Workers())
	par.Blocks(len(d.W), func(w, lo, hi int) {
		var sum float64
		for _, x := range d.W[lo:hi] {
			sum += float64(x)
		}
		sums[w] = sum
	})
	var sum float64
	for _, x := range sums {
		sum += x
	}
	delta := DeltaWeights * sum / float64(len(d.W))
	if !(delta > 0) || math.IsInf(delta, 1) {
		return 0
	}
	return delta
}

// DeltaWeights is DefaultDelta's multiple of the mean edge weight.
const DeltaWeights = 16

// SSSPDelta computes shortest-path distances from src; delta 0 runs
// Bellman-Ford everywhere (SSSPProgram).
func SSSPDelta(g *vertexprog.Graph, src int32, delta float64, opt vertexprog.Options) (*SSSPResult, error) {
	if err := checkGraph(g); err != nil {
		return nil, err
	}
	if !(delta >= 0) || math.IsInf(delta, 1) {
		return nil, invalidParam("sssp", paramDelta, fmt.Errorf("%g: want 0 (Bellman-Ford) or a positive bucket width", delta))
	}
	r, err := vertexprog.Run(g, vertexprog.Program[float32, float32](&SSSPProgram{Source: src, Delta: delta}), opt)
	if err != nil {
		return nil, err
	}
	return &SSSPResult{Dist: r.X, Run: r}, nil
}
