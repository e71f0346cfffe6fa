// Package vote runs majority dynamics: every round, each vertex takes the
// opinion that a strict majority of its in-neighbours hold (every arc into
// it one vote; loops vote too), and keeps its own where none has one. All
// vertices move at once, so the process ends in a stable state or, by
// Goles and Olivos's theorem, a cycle of two rounds: Rounds bounds it.
//
// It is built on the engine's multiset gather (see package vertexprog,
// "Operators"): each vertex gathers the multiset of its in-neighbours'
// opinions, which the engine hands Summarize sorted and counted, so a
// majority is one pass over the distinct values. A fold over the edges
// cannot find a majority in fixed space. The CPU engine runs it; a device
// backend would need device code (vertexprog.MultisetDeviceProgram).
package vote

import (
	"fmt"

	"github.com/hpgraph/hpgraph/vertexprog"
)

// Program runs majority dynamics from Opinions (one per vertex) for at
// most Rounds rounds.
type Program struct {
	Opinions []int32
	Rounds   int
}

// Majority is a vertex's summary of one round: the opinion a strict
// majority of its votes hold, if one does.
type Majority struct {
	Opinion int32
	Found   bool
}

func (p *Program) Prepare(g *vertexprog.Graph) error {
	if len(p.Opinions) != g.N() {
		return fmt.Errorf("vote: %d opinions for %d vertices", len(p.Opinions), g.N())
	}
	if p.Rounds < 1 {
		return fmt.Errorf("vote: %d rounds: majority dynamics may cycle, so at least one round must be the limit", p.Rounds)
	}
	return nil
}

func (p *Program) Spec() vertexprog.Spec {
	return vertexprog.Spec{Edges: vertexprog.InEdges, GatherAll: true, MaxIterations: p.Rounds}
}

func (p *Program) Init(v int32, _ *vertexprog.Step) (int32, bool) { return p.Opinions[v], true }

func (*Program) Element(_, _ int32, xu int32, _ float32) int32 { return xu }

func (*Program) Summarize(_ int32, b vertexprog.Bag[int32]) Majority {
	for i, c := range b.Counts {
		if 2*c > b.Size {
			return Majority{Opinion: b.Values[i], Found: true}
		}
	}
	return Majority{}
}

func (*Program) Update(_ int32, m Majority, x *int32, _ *vertexprog.Step) bool {
	if m.Found && m.Opinion != *x {
		*x = m.Opinion
		return true
	}
	return false
}

// Run returns every vertex's opinion after majority dynamics from
// opinions, and the rounds run (fewer than rounds where it became
// stable).
func Run(g *vertexprog.Graph, opinions []int32, rounds int, opt vertexprog.Options) ([]int32, int, error) {
	res, err := vertexprog.RunMultiset[int32, int32, Majority](g, &Program{Opinions: opinions, Rounds: rounds}, opt)
	if err != nil {
		return nil, 0, err
	}
	return res.X, res.Iterations, nil
}
