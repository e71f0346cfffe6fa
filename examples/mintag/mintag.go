// Package mintag gives every vertex the smallest tag among the vertices
// connected to it, arcs taken either way (for example the earliest
// sign-up time in each group of linked accounts). It is min-label
// propagation and says so (Spec.Components): the CPU engine and the GPU
// compute it by union-find (Afforest), in a few passes over the vertices
// instead of as many supersteps as the largest group's diameter, then
// fold each group's tags with Gather and hand them out with Update. Runs
// that force a direction take supersteps, on the GPU with the device code
// devgen generates from these methods.
package mintag

//go:generate go run github.com/hpgraph/hpgraph/devgen/cmd/devgen

import (
	"fmt"
	"math"

	"github.com/hpgraph/hpgraph/vertexprog"
)

// Program propagates the smallest of Tags (one per vertex) over every
// weakly connected component.
type Program struct {
	Tags []int64
}

func (p *Program) Prepare(g *vertexprog.Graph) error {
	if len(p.Tags) != g.N() {
		return fmt.Errorf("mintag: %d tags for %d vertices", len(p.Tags), g.N())
	}
	return nil
}

func (*Program) Spec() vertexprog.Spec {
	return vertexprog.Spec{Edges: vertexprog.AllEdges, Sparse: true, Idempotent: true, Components: true}
}

func (p *Program) Init(v int32, _ *vertexprog.Step) (int64, bool) { return p.Tags[v], true }

func (*Program) Identity() int64 { return math.MaxInt64 }

func (*Program) Gather(acc int64, _, _ int32, xu int64, _ float32) int64 { return min(acc, xu) }

func (*Program) Reduce(a, b int64) int64 { return min(a, b) }

func (*Program) Update(_ int32, acc int64, x *int64, _ *vertexprog.Step) bool {
	if acc < *x {
		*x = acc
		return true
	}
	return false
}

// Run returns, for every vertex, the smallest tag of its component.
func Run(g *vertexprog.Graph, tags []int64, opt vertexprog.Options) ([]int64, error) {
	res, err := vertexprog.Run[int64, int64](g, &Program{Tags: tags}, opt)
	if err != nil {
		return nil, err
	}
	return res.X, nil
}
