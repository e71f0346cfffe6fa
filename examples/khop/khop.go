// Package khop finds the k-hop neighbourhood of a vertex: every vertex
// at most K arcs away from the source, with its hop distance. Its device
// code is generated from the Go methods by devgen; Reduce is an integer
// min, so pushes fold with one atomicMin per edge.
package khop

//go:generate go run github.com/hpgraph/hpgraph/devgen/cmd/devgen

import (
	"fmt"

	"github.com/hpgraph/hpgraph/vertexprog"
)

// Far is the distance of a vertex not within K hops: far below int32's
// limit, so that Far+1 cannot wrap.
const Far = 1 << 30

// Program computes hop distances up to K from Src.
type Program struct {
	Src int32
	K   int32
}

func (p Program) Prepare(g *vertexprog.Graph) error {
	if p.Src < 0 || int(p.Src) >= g.N() || p.K < 0 || p.K >= Far {
		return fmt.Errorf("khop: source %d or K %d out of range", p.Src, p.K)
	}
	return nil
}

func (Program) Spec() vertexprog.Spec {
	return vertexprog.Spec{Edges: vertexprog.InEdges, Sparse: true, Idempotent: true}
}

func (p Program) Init(v int32, _ *vertexprog.Step) (int32, bool) {
	if v == p.Src {
		return 0, true
	}
	return Far, false
}

func (Program) Identity() int32 { return Far }

func (Program) Gather(acc int32, _, _ int32, du int32, _ float32) int32 { return min(acc, du+1) }

func (Program) Reduce(a, b int32) int32 { return min(a, b) }

func (p Program) Update(_ int32, acc int32, d *int32, _ *vertexprog.Step) bool {
	if acc < *d && acc <= p.K {
		*d = acc
		return true
	}
	return false
}

// Run returns every vertex's hop distance from src, -1 beyond k hops, and
// the neighbourhood's size (the source included).
func Run(g *vertexprog.Graph, src, k int32, opt vertexprog.Options) ([]int32, int, error) {
	res, err := vertexprog.Run[int32, int32](g, Program{Src: src, K: k}, opt)
	if err != nil {
		return nil, 0, err
	}
	n := 0
	for i, d := range res.X {
		if d == Far {
			res.X[i] = -1
		} else {
			n++
		}
	}
	return res.X, n, nil
}
