// Package hoppath finds shortest paths that, among equally short ones,
// take the fewest arcs: a vertex's value is a struct (distance, hops)
// ordered lexicographically. Weights must be non-negative. Its device
// code is generated from the Go methods by devgen.
package hoppath

//go:generate go run github.com/hpgraph/hpgraph/devgen/cmd/devgen

import (
	"math"

	"github.com/hpgraph/hpgraph/vertexprog"
)

// Path is a path's length and its number of arcs. An unreached vertex
// has Dist +Inf.
type Path struct {
	Dist float32
	Hops int32
}

// Program computes (distance, hops) from Src.
type Program struct {
	Src int32
	// MaxHops bounds the hops of a path considered (Hops never wraps).
	MaxHops int32
}

func (Program) Spec() vertexprog.Spec {
	return vertexprog.Spec{Edges: vertexprog.InEdges, Sparse: true, Idempotent: true}
}

func (p Program) Init(v int32, _ *vertexprog.Step) (Path, bool) {
	if v == p.Src {
		return Path{}, true
	}
	return Path{Dist: float32(math.Inf(1))}, false
}

func (Program) Identity() Path { return Path{Dist: float32(math.Inf(1))} }

func (p Program) Gather(acc Path, _, _ int32, xu Path, w float32) Path {
	if xu.Hops >= p.MaxHops {
		return acc
	}
	c := Path{Dist: xu.Dist + w, Hops: xu.Hops + 1}
	if c.Dist < acc.Dist || c.Dist == acc.Dist && c.Hops < acc.Hops {
		return c
	}
	return acc
}

func (Program) Reduce(a, b Path) Path {
	if b.Dist < a.Dist || b.Dist == a.Dist && b.Hops < a.Hops {
		return b
	}
	return a
}

func (Program) Update(_ int32, acc Path, x *Path, _ *vertexprog.Step) bool {
	if acc.Dist < x.Dist || acc.Dist == x.Dist && acc.Hops < x.Hops && !math.IsInf(float64(acc.Dist), 1) {
		*x = acc
		return true
	}
	return false
}

// Run returns every vertex's (distance, hops) from src.
func Run(g *vertexprog.Graph, src int32, opt vertexprog.Options) ([]Path, error) {
	res, err := vertexprog.Run[Path, Path](g, Program{Src: src, MaxHops: 1 << 30}, opt)
	if err != nil {
		return nil, err
	}
	return res.X, nil
}
