// Package tc is triangle counting on the undirected simple graph
// (Program: each triangle once, by the lowest of its vertices in an
// orientation of the graph, or per vertex), its hand-written device code
// (tc.cu) and its App for the front ends.
package tc

import (
	"github.com/hpgraph/hpgraph/apps"
	"github.com/hpgraph/hpgraph/vertexprog"
)

// Program counts triangles of the undirected simple graph (loops,
// direction and parallel arcs ignored) in one superstep. Edges are oriented
// from lower to higher (degree, id) rank, which makes the oriented graph a
// DAG with short out-lists; vertex v gathers, over each neighbour u ranked
// above it, the size of the intersection of the two sorted out-lists — the
// triangles whose lowest vertex is v. With PerVertex, every neighbour
// counts and the halved sums are each vertex's triangle participations.
type Program struct {
	PerVertex bool
	// Count[v] is the number of triangles whose lowest-ranked vertex is v,
	// or, with PerVertex, the number of triangles v belongs to.
	Count []int64
	// o holds the oriented lists (all neighbours with PerVertex): the
	// graph's, shared by every count on it; the host builds them only
	// where Gather runs (Options.PerEdge), a GPU per vertex. r, the same
	// lists in rank space, is what a total counts over: the CPU's
	// GatherBlock and the device code (Device).
	o, r *vertexprog.Orientation
}

func (p *Program) Spec() vertexprog.Spec {
	return vertexprog.Spec{Edges: vertexprog.AllEdges, GatherAll: true, MaxIterations: 1}
}

func (p *Program) Prepare(g *vertexprog.Graph) error {
	p.Count = make([]int64, g.N())
	p.o = g.Orientation(p.PerVertex)
	if !p.PerVertex {
		p.r = g.RankedOrientation()
	}
	return nil
}

// PrepareHost builds the oriented lists on the host for the CPU engine
// (vertexprog.HostPreparer): GatherBlock's.
func (p *Program) PrepareHost(*vertexprog.Graph) error {
	if p.r != nil {
		p.r.Build()
	} else {
		p.o.Build()
	}
	return nil
}

func (p *Program) Init(int32, *vertexprog.Step) (struct{}, bool) { return struct{}{}, true }

func (p *Program) Identity() int64 { return 0 }

func (p *Program) Gather(acc int64, v, u int32, _ struct{}, _ float32) int64 {
	p.o.Build() // (once: PrepareHost built GatherBlock's lists)
	if u == v || (!p.PerVertex && !p.o.Below(v, u)) {
		return acc
	}
	return acc + int64(vertexprog.CountCommon(p.o.List(v), p.o.List(u)))
}

func (p *Program) Reduce(a, b int64) int64 { return a + b }

func (p *Program) Update(v int32, acc int64, _ *struct{}, _ *vertexprog.Step) bool {
	if p.PerVertex {
		// Each triangle at v is seen from both of its other vertices.
		acc /= 2
	}
	p.Count[v] = acc
	return false
}

// Result is a triangle count's output.
type Result struct {
	Total int64
	// PerVertex[v] is the number of triangles v belongs to (nil unless
	// asked for).
	PerVertex []int64
	Run       *vertexprog.Result[struct{}]
}

// Run counts the triangles of g (and per vertex when perVertex).
func Run(g *vertexprog.Graph, perVertex bool, opt vertexprog.Options) (*Result, error) {
	if err := apps.CheckGraph(g); err != nil {
		return nil, err
	}
	p := &Program{PerVertex: perVertex}
	r, err := vertexprog.Run(g, vertexprog.Program[struct{}, int64](p), opt)
	if err != nil {
		return nil, err
	}
	res := &Result{Run: r}
	for _, c := range p.Count {
		res.Total += c
	}
	if perVertex {
		res.Total /= 3
		res.PerVertex = p.Count
	}
	return res, nil
}

// ParamPerVertex is --per-vertex (params.per_vertex).
var ParamPerVertex = &apps.Param[bool]{
	Name: "per-vertex", Default: false,
	Help:  "triangle counting: also count per vertex (written by --out)",
	Field: func(p *apps.Params) *bool { return &p.PerVertex },
}

// The CPU engine's fast paths: gathers over blocks of rows
// (vertexprog.BlockGatherer) and APPLY over lists of vertices
// (vertexprog.ListUpdater), one call a block or a list. Each does what
// Gather or Update does, vertex by vertex; vptest checks them against
// those (Options.PerEdge).

// GatherBlock is Gather over each row of [lo, hi): one call a block, not
// one an edge (a grid's triangle count is all calls: its lists are
// short). A row's neighbours that Gather counts are v's own list (those
// ranked above v; with PerVertex, all but v), so the block walks the
// list, not the row: half the row, and no rank comparison (two random
// reads of degrees) an edge. (urand20 on one core: 7.8 s against GAP's
// 4.6, 20% of it in the rank comparisons; session 32.)
//
// For a total it walks the lists in rank space (Graph.RankedOrientation,
// GAP's relabelling by degree): v's list holds the ranks above it,
// ascending, so the triangles' third vertices above u = a[k] lie in
// a[:k], and the merge reads that prefix only; the hubs' lists, read
// most, also lie side by side. (Two cores, bench: urand20 2.82 -> 2.14 s,
// kron20, relabelled by degree as it loads, 7.24 -> 6.48, grid1000 4.9 ->
// 5.1 ms; the ranked build costs what the plain one did: urand20's
// PREPROCESS 218 -> 226 ms. A list's first entry has no prefix, and its
// list is not read: grid1000 on one core 8.1 -> 6.1 ms (GAP's 4.6). Its
// arrays are read from locals: through r they were reloaded after every
// store to y, 6.3 -> 5.4 ms; session 38.)
func (p *Program) GatherBlock(lo, hi int32, _ []int64, _ []int32, _ []float32, _ []struct{}, y []int64, id int64) {
	if r := p.r; r != nil {
		rank, off, cnt, adj := r.Rank, r.Off, r.Cnt, r.Adj
		for v := lo; v < hi; v++ {
			acc := id
			x := rank[v]
			a := adj[off[x] : off[x]+int64(cnt[x])]
			for k := 1; k < len(a); k++ { // (a[:0] has no third vertex)
				u := a[k]
				acc += int64(vertexprog.CountCommon(a[:k], adj[off[u]:off[u]+int64(cnt[u])]))
			}
			y[v] = acc
		}
		return
	}
	o := p.o
	for v := lo; v < hi; v++ {
		acc := id
		a := o.List(v)
		for _, u := range a {
			acc += int64(vertexprog.CountCommon(a, o.List(u)))
		}
		y[v] = acc
	}
}

// UpdateList is Update over vs.
func (p *Program) UpdateList(vs []int32, acc []int64, _ []struct{}, _ *vertexprog.Step, active []int32) []int32 {
	for _, v := range vs {
		a := acc[v]
		if p.PerVertex {
			a /= 2
		}
		p.Count[v] = a
	}
	return active
}
