// Package support gives every vertex the largest triangle support among
// its edges: for each edge (v, u) of the undirected simple graph (arcs
// taken either way, loops and parallel arcs ignored), the number of
// triangles through it, |N(v) ∩ N(u)|, and for v the largest over its
// edges. An edge in a k-truss has support k-2 or more within it, so a
// vertex of largest support s lies in no k-truss with k > s+2: the bound
// that k-truss decomposition starts from, and a filter that drops the
// vertices of a graph that cannot reach a given k.
//
// It is built on the engine's sorted-list intersection operator (see
// package vertexprog, "Operators"): the graph's Orientation with every
// neighbour gives each vertex its sorted neighbour list, and Gather
// intersects the lists at both ends of an edge (vertexprog.CountCommon).
// The CPU engine runs it; a device backend would need device code that
// intersects the lists itself.
package support

import "github.com/hpgraph/hpgraph/vertexprog"

// Program computes Max[v], the largest support of v's edges, in one
// superstep.
type Program struct {
	// Max[v] is the largest number of triangles through one of v's edges
	// (0 for a vertex on no triangle, or on no edge).
	Max []int32
	o   *vertexprog.Orientation
}

func (*Program) Spec() vertexprog.Spec {
	return vertexprog.Spec{Edges: vertexprog.AllEdges, GatherAll: true, MaxIterations: 1}
}

func (p *Program) Prepare(g *vertexprog.Graph) error {
	p.Max = make([]int32, g.N())
	p.o = g.Orientation(true)
	return nil
}

// PrepareHost builds the neighbour lists on the host, for the CPU engine
// (vertexprog.HostPreparer); later runs on the graph share them.
func (p *Program) PrepareHost(*vertexprog.Graph) error {
	p.o.Build()
	return nil
}

func (*Program) Init(int32, *vertexprog.Step) (struct{}, bool) { return struct{}{}, true }

func (*Program) Identity() int32 { return 0 }

func (p *Program) Gather(acc int32, v, u int32, _ struct{}, _ float32) int32 {
	if u == v {
		return acc
	}
	return max(acc, int32(vertexprog.CountCommon(p.o.List(v), p.o.List(u))))
}

func (*Program) Reduce(a, b int32) int32 { return max(a, b) }

func (p *Program) Update(v int32, acc int32, _ *struct{}, _ *vertexprog.Step) bool {
	p.Max[v] = acc
	return false
}

// Run returns, for every vertex of g, the largest support of its edges.
func Run(g *vertexprog.Graph, opt vertexprog.Options) ([]int32, error) {
	p := &Program{}
	if _, err := vertexprog.Run(g, vertexprog.Program[struct{}, int32](p), opt); err != nil {
		return nil, err
	}
	return p.Max, nil
}
