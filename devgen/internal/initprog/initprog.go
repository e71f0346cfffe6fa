// Package initprog is a vertex program whose Init exercises what vp_init
// must reproduce: per-run inputs (Src, Lim, Neg), read-only arrays read
// at v, arrays written on every path (through a switch and an if),
// conversions that overflow, a call of a package-level function.
// devgen's tests translate it and run the C vp_init on the host against
// Init.
package initprog

import (
	"math"

	"github.com/hpgraph/hpgraph/vertexprog"
)

// X is the vertex value.
type X struct {
	D float32
	H int32
}

// Program is not meant to run; its Init is the test's subject.
type Program struct {
	Src  int32
	Lim  float64
	Neg  bool
	K    int32
	Deg  []int32
	W    []float64
	Out  []int64
	Mark []uint32
}

func (*Program) Spec() vertexprog.Spec { return vertexprog.Spec{} }

func (p *Program) Init(v int32, _ *vertexprog.Step) (X, bool) {
	d := p.Deg[v]
	p.Mark[v] = uint32(d) * 2654435761
	switch {
	case v == p.Src:
		p.Out[v] = -1
		return X{}, true
	case p.Neg && d%3 == 0:
		p.Out[v] = int64(d) << 40
		return X{D: float32(scaled(p.W[v], p.Lim)), H: d}, false
	}
	if d < 0 {
		p.Out[v] = int64(float64(d) * p.W[v])
	} else {
		p.Out[v] = int64(uint64(p.W[v]))
	}
	x := X{D: float32(math.Sqrt(p.W[v])), H: -d}
	return x, d > p.K
}

// scaled is a package-level function Init calls (a device function).
func scaled(w, lim float64) float64 {
	if lim == 0 {
		return w
	}
	return w / lim
}

func (*Program) Identity() int32 { return 0 }

func (*Program) Gather(acc int32, _, _ int32, _ X, _ float32) int32 { return acc }

func (*Program) Reduce(a, b int32) int32 { return a + b }

func (p *Program) Update(v int32, acc int32, _ *X, _ *vertexprog.Step) bool {
	p.Out[v] += int64(acc)
	return acc > p.K
}
