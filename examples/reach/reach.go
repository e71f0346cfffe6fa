// Package reach counts, for every vertex, how many of up to 32 sources
// reach it along directed paths: each vertex's value is the set of
// sources that reach it, a bit each; Count keeps its size. Its device
// code is generated from the Go methods by devgen.
package reach

//go:generate go run github.com/hpgraph/hpgraph/devgen/cmd/devgen

import (
	"fmt"
	"math/bits"

	"github.com/hpgraph/hpgraph/vertexprog"
)

// Program computes reachability from Sources (at most 32).
type Program struct {
	Sources []int32
	// Count[v] is the number of sources that reach v (a source reaches
	// itself).
	Count []int32
}

func (p *Program) Prepare(g *vertexprog.Graph) error {
	if len(p.Sources) > 32 {
		return fmt.Errorf("reach: %d sources, at most 32", len(p.Sources))
	}
	for _, s := range p.Sources {
		if s < 0 || int(s) >= g.N() {
			return fmt.Errorf("reach: source %d is not a vertex", s)
		}
	}
	p.Count = make([]int32, g.N())
	return nil
}

func (*Program) Spec() vertexprog.Spec {
	return vertexprog.Spec{Edges: vertexprog.InEdges, Sparse: true, Idempotent: true}
}

func (p *Program) Init(v int32, _ *vertexprog.Step) (uint32, bool) {
	var set uint32
	for i, s := range p.Sources {
		if s == v {
			set |= 1 << i
		}
	}
	p.Count[v] = int32(bits.OnesCount32(set))
	return set, set != 0
}

func (*Program) Identity() uint32 { return 0 }

func (*Program) Gather(acc uint32, _, _ int32, xu uint32, _ float32) uint32 { return acc | xu }

func (*Program) Reduce(a, b uint32) uint32 { return a | b }

func (p *Program) Update(v int32, acc uint32, x *uint32, _ *vertexprog.Step) bool {
	set := *x | acc
	if set == *x {
		return false
	}
	*x = set
	p.Count[v] = int32(bits.OnesCount32(set))
	return true
}

// Run returns, for every vertex, the number of sources that reach it.
func Run(g *vertexprog.Graph, sources []int32, opt vertexprog.Options) ([]int32, error) {
	p := &Program{Sources: sources}
	if _, err := vertexprog.Run[uint32, uint32](g, p, opt); err != nil {
		return nil, err
	}
	return p.Count, nil
}
