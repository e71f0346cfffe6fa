package apps

import (
	"fmt"
	"math/bits"
	"slices"

	"github.com/hpgraph/hpgraph/vertexprog"
)

// LCCProgram computes LDBC Graphalytics' local clustering coefficient in
// one superstep. A vertex's neighbourhood N(v) is its in- and
// out-neighbours, each once, v excluded, and d = |N(v)|. Vertex v gathers,
// over each u in N(v), the number of u's out-neighbours w ≠ u that are in
// N(v): on a directed graph the arcs u → w among N(v), as LDBC counts
// them (u → w and w → u are two); on an undirected graph, whose CSR holds
// every edge in both directions, each edge among N(v) twice. Either way
// the coefficient is that sum over d(d-1) — LDBC's arcs/(d(d-1)) and
// edges/(d(d-1)/2) — and 0 when d < 2.
//
// It has no device code: a GPU backend refuses it, and auto runs it on the
// CPU.
type LCCProgram struct {
	// LCC[v] is v's coefficient, after the run.
	LCC []float64
	// deg[v] is d, |N(v)|.
	deg []int64
	// out lists the heads of u's arcs, nb v's neighbourhood (with v
	// itself where it has a loop: Gather skips it). On an undirected
	// graph, whose CSR is symmetric, both are Neighbors.
	out func(u int32) []int32
	nb  func(v int32) []int32
}

func (p *LCCProgram) Spec() vertexprog.Spec {
	return vertexprog.Spec{Edges: vertexprog.AllEdges, GatherAll: true, MaxIterations: 1}
}

func (p *LCCProgram) Prepare(g *vertexprog.Graph) error {
	n := g.N()
	p.LCC = make([]float64, n)
	p.deg = make([]int64, n)
	p.nb = g.Neighbors
	p.out = g.OutNeighbors
	if !g.Directed() {
		p.out = g.Neighbors
	}
	dup := make([]bool, n)
	g.ForVertices(func(lo, hi int32) {
		for v := lo; v < hi; v++ {
			nb := g.Neighbors(v)
			d := int64(len(nb))
			if _, self := slices.BinarySearch(nb, v); self {
				d--
			}
			// An undirected graph loaded with its duplicate edges kept
			// lists them in Neighbors, and the engine gathers along each
			// copy: the count would grow with the copies.
			for i := 1; i < len(nb); i++ {
				if nb[i] == nb[i-1] {
					dup[v] = true
					break
				}
			}
			p.deg[v] = d
		}
	})
	if v := slices.Index(dup, true); v >= 0 {
		return fmt.Errorf("%w: lcc is defined on simple graphs, and vertex %d has duplicate edges (load without --keep-duplicates)", ErrInvalidInput, g.ID(int32(v)))
	}
	return nil
}

func (p *LCCProgram) Init(int32, *vertexprog.Step) (struct{}, bool) { return struct{}{}, true }

func (p *LCCProgram) Identity() int64 { return 0 }

func (p *LCCProgram) Gather(acc int64, v, u int32, _ struct{}, _ float32) int64 {
	if u == v {
		return acc
	}
	return acc + countIn(p.out(u), p.nb(v), u, v)
}

// countIn counts the distinct elements of the sorted list a, other than
// skip1 and skip2, that are in the sorted list b. Either list may repeat
// an element (an out-list with duplicate arcs kept); it counts once. A hub's neighbourhood is long, and most of its
// neighbours' out-lists short: a short list is searched for in the long
// one, O(short · log long), where that is less than a merge's
// O(short + long), which would walk the long list once for every
// neighbour.
func countIn(a, b []int32, skip1, skip2 int32) int64 {
	var n int64
	small, large := a, b
	if len(b) < len(a) {
		small, large = b, a
	}
	if len(small)*bits.Len(uint(len(large))) < len(a)+len(b) {
		for i, x := range small {
			if (i > 0 && small[i-1] == x) || x == skip1 || x == skip2 {
				continue
			}
			if _, ok := slices.BinarySearch(large, x); ok {
				n++
			}
		}
		return n
	}
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch x := a[i]; {
		case x < b[j]:
			i++
		case x > b[j]:
			j++
		default:
			if x != skip1 && x != skip2 {
				n++
			}
			for i < len(a) && a[i] == x {
				i++
			}
			for j < len(b) && b[j] == x {
				j++
			}
		}
	}
	return n
}

func (p *LCCProgram) Reduce(a, b int64) int64 { return a + b }

func (p *LCCProgram) Update(v int32, acc int64, _ *struct{}, _ *vertexprog.Step) bool {
	if d := p.deg[v]; d >= 2 {
		p.LCC[v] = float64(acc) / float64(d*(d-1))
	}
	return false
}

// LCCResult is a local clustering coefficient run's output.
type LCCResult struct {
	// LCC[v] is v's local clustering coefficient, in [0, 1].
	LCC []float64
	Run *vertexprog.Result[struct{}]
}

// LCC computes every vertex's local clustering coefficient as LDBC
// Graphalytics defines it (see LCCProgram).
func LCC(g *vertexprog.Graph, opt vertexprog.Options) (*LCCResult, error) {
	p := &LCCProgram{}
	r, err := vertexprog.Run(g, vertexprog.Program[struct{}, int64](p), opt)
	if err != nil {
		return nil, err
	}
	return &LCCResult{LCC: p.LCC, Run: r}, nil
}
