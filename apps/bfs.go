package apps

import (
	"math"

	"github.com/hpgraph/hpgraph/vertexprog"
)

// noParent is the accumulator of a vertex with no active in-neighbour.
const noParent = math.MaxInt32

// BFSProgram computes depths and parents from Source over out-edges. A
// vertex gathers the smallest id among its active in-neighbours, so push and
// pull supersteps pick the same parent; the pull stops at the first active
// in-neighbour (rows are sorted, so it is the smallest) and visited vertices
// take no input.
type BFSProgram struct {
	Source int32
	// Depth[v] is the number of edges from Source (-1: unreachable);
	// Parent[v] is v's predecessor on a shortest path (Source for Source,
	// -1 for unreachable).
	Depth, Parent []int32
}

func (p *BFSProgram) Spec() vertexprog.Spec {
	return vertexprog.Spec{Edges: vertexprog.InEdges, Sparse: true}
}

func (p *BFSProgram) Prepare(g *vertexprog.Graph) error {
	if err := checkSource(g, p.Source); err != nil {
		return err
	}
	if len(p.Depth) != g.N() || len(p.Parent) != g.N() {
		p.Depth, p.Parent = make([]int32, g.N()), make([]int32, g.N())
	}
	return nil
}

func (p *BFSProgram) Init(v int32, _ *vertexprog.Step) (struct{}, bool) {
	if v == p.Source {
		p.Depth[v], p.Parent[v] = 0, v
		return struct{}{}, true
	}
	p.Depth[v], p.Parent[v] = -1, -1
	return struct{}{}, false
}

// InitRange is Init over [lo, hi) as two fills (vertexprog.RangeIniter).
func (p *BFSProgram) InitRange(lo, hi int32, _ []struct{}, _ *vertexprog.Step) (bool, []int32) {
	fill(p.Depth[lo:hi], -1)
	fill(p.Parent[lo:hi], -1)
	if p.Source >= lo && p.Source < hi {
		p.Depth[p.Source], p.Parent[p.Source] = 0, p.Source
		return false, []int32{p.Source}
	}
	return false, nil
}

// fill sets every element of s to x.
func fill[T any](s []T, x T) {
	for i := range s {
		s[i] = x
	}
}

func (p *BFSProgram) Identity() int32 { return noParent }

func (p *BFSProgram) Gather(acc int32, _, u int32, _ struct{}, _ float32) int32 { return min(acc, u) }

func (p *BFSProgram) Reduce(a, b int32) int32 { return min(a, b) }

func (p *BFSProgram) Update(v int32, acc int32, _ *struct{}, s *vertexprog.Step) bool {
	if acc == noParent {
		return false
	}
	p.Depth[v], p.Parent[v] = int32(s.Iteration+1), acc
	return true
}

// Wants: visited vertices take no more input.
func (p *BFSProgram) Wants(v int32) bool { return p.Depth[v] < 0 }

// Done: any active in-neighbour decides the vertex.
func (p *BFSProgram) Done(acc int32) bool { return acc != noParent }

// BFSResult is a BFS's output.
type BFSResult struct {
	// Depth and Parent are nil when the run was SummaryOnly.
	Depth, Parent  []int32
	Run            *vertexprog.Result[struct{}]
	reached, depth int        // Reached's
	arrays         [2][]int32 // the arrays the next BFSReusing writes
}

// Reached returns the number of vertices the search reached and the
// largest depth, from the supersteps' activation counts (every reached
// vertex but the source is activated once, the superstep after its
// parent), so they need no pass over Depth and hold for SummaryOnly runs.
func (r *BFSResult) Reached() (reached, depth int) { return r.reached, r.depth }

// BFS runs a breadth-first search from src.
func BFS(g *vertexprog.Graph, src int32, opt vertexprog.Options) (*BFSResult, error) {
	return BFSReusing(g, src, opt, nil)
}

// BFSReusing is BFS writing its depths and parents into prev's arrays
// where they fit g, not new ones, so prev's Depth and Parent become this
// search's: a caller running many sources reads each result before the
// next and saves allocating 8 bytes a vertex a query (fresh memory costs
// a page fault per 4 KB, ~2 ms of a kron21 query on a VM). prev may be
// nil. With opt.SummaryOnly the result has Reached but no arrays.
func BFSReusing(g *vertexprog.Graph, src int32, opt vertexprog.Options, prev *BFSResult) (*BFSResult, error) {
	if err := checkGraph(g); err != nil {
		return nil, err
	}
	p := &BFSProgram{Source: src}
	if prev != nil {
		p.Depth, p.Parent = prev.arrays[0], prev.arrays[1]
	}
	r, err := vertexprog.Run(g, vertexprog.Program[struct{}, int32](p), opt)
	if err != nil {
		return nil, err
	}
	res := &BFSResult{Run: r, reached: 1, arrays: [2][]int32{p.Depth, p.Parent}}
	if r.X != nil {
		res.Depth, res.Parent = p.Depth, p.Parent
	}
	for _, a := range r.Active {
		if a > 0 {
			res.reached += a
			res.depth++
		}
	}
	return res, nil
}
