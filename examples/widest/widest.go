// Package widest is the README's widest-path program: the width of a
// path is its narrowest edge, and every vertex gets the widest path's
// width from the source (0 when unreachable). Its device code is
// generated from the Go methods by devgen: no C was written for it.
package widest

//go:generate go run github.com/hpgraph/hpgraph/devgen/cmd/devgen

import (
	"math"

	"github.com/hpgraph/hpgraph/vertexprog"
)

// Program computes widest-path widths from Src.
type Program struct{ Src int32 }

func (Program) Spec() vertexprog.Spec {
	return vertexprog.Spec{Edges: vertexprog.InEdges, Sparse: true, Idempotent: true}
}

func (p Program) Init(v int32, _ *vertexprog.Step) (float32, bool) {
	if v == p.Src {
		return float32(math.Inf(1)), true
	}
	return 0, false
}

func (Program) Identity() float32 { return 0 }

func (Program) Gather(acc float32, _, _ int32, xu, w float32) float32 { return max(acc, min(xu, w)) }

func (Program) Reduce(a, b float32) float32 { return max(a, b) }

func (Program) Update(_ int32, acc float32, x *float32, _ *vertexprog.Step) bool {
	if acc > *x {
		*x = acc
		return true
	}
	return false
}

// Run returns every vertex's widest-path width from src.
func Run(g *vertexprog.Graph, src int32, opt vertexprog.Options) ([]float32, error) {
	res, err := vertexprog.Run[float32, float32](g, Program{Src: src}, opt)
	if err != nil {
		return nil, err
	}
	return res.X, nil
}
