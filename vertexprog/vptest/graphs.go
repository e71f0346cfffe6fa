package vptest

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/datasets/gen"
)

// Graph is a named test graph.
type Graph struct {
	Name string
	G    *datasets.Graph
}

// Graphs is NewGraphs for a test: an error fails t.
func Graphs(t testing.TB, opt datasets.Options) []Graph {
	t.Helper()
	gs, err := NewGraphs(opt)
	if err != nil {
		t.Fatal(err)
	}
	return gs
}

// NewGraphs returns small seeded graphs of the shapes that break graph
// code, built with opt: scale-free (Kronecker), uniform random, a grid
// (high diameter), directed with sinks, disconnected with isolated
// vertices, and a star whose hub rows are long enough to cross kernel
// tile boundaries.
func NewGraphs(opt datasets.Options) ([]Graph, error) {
	kron, err := gen.Kronecker(9, 8, gen.GAPSeed)
	if err != nil {
		return nil, err
	}
	uni, err := gen.Uniform(9, 6, 7)
	if err != nil {
		return nil, err
	}
	grid, err := gen.Grid(17, 23)
	if err != nil {
		return nil, err
	}
	apart, err := disconnected()
	if err != nil {
		return nil, err
	}
	lists := []*datasets.EdgeList{kron, uni, grid, directedWithSinks(400, 1500, 9), apart, star(2500, 4000, 4)}
	names := []string{"kron9", "urand9", "grid17x23", "directed-sinks", "disconnected", "star"}
	gs := make([]Graph, len(lists))
	for i, el := range lists {
		g, err := datasets.Build(el, opt)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", names[i], err)
		}
		gs[i] = Graph{names[i], g}
	}
	return gs, nil
}

// directedWithSinks: every tenth vertex has no out-arcs, and every
// seventh no in-arcs (a source only: its pull row is empty, but its
// frontier bit is read).
func directedWithSinks(n, m int, seed uint64) *datasets.EdgeList {
	rng := rand.New(rand.NewPCG(seed, 1))
	el := &datasets.EdgeList{N: n, Directed: true, Name: "directed-sinks"}
	for len(el.Src) < m {
		u, v := int32(rng.IntN(n)), int32(rng.IntN(n))
		if u%10 == 0 || v%7 == 0 {
			continue
		}
		el.Src, el.Dst = append(el.Src, u), append(el.Dst, v)
	}
	return el
}

// disconnected puts a Kronecker graph and a grid side by side with isolated
// vertices between them and after them.
func disconnected() (*datasets.EdgeList, error) {
	a, err := gen.Kronecker(7, 4, 3)
	if err != nil {
		return nil, err
	}
	b, err := gen.Grid(6, 9)
	if err != nil {
		return nil, err
	}
	off := int32(a.N + 5)
	el := &datasets.EdgeList{N: a.N + 5 + b.N + 7, Src: a.Src, Dst: a.Dst, Name: "disconnected"}
	for i := range b.Src {
		el.Src, el.Dst = append(el.Src, b.Src[i]+off), append(el.Dst, b.Dst[i]+off)
	}
	return el, nil
}

// star has a hub with long in- and out-rows plus random arcs.
func star(n, m int, seed uint64) *datasets.EdgeList {
	rng := rand.New(rand.NewPCG(seed, 3))
	el := &datasets.EdgeList{N: n, Directed: true, Name: "star"}
	for v := int32(1); v < int32(n); v++ {
		if v%7 != 0 {
			el.Src, el.Dst = append(el.Src, v), append(el.Dst, 0)
		}
		if v%5 != 0 {
			el.Src, el.Dst = append(el.Src, 0), append(el.Dst, v)
		}
	}
	for i := 0; i < m; i++ {
		el.Src, el.Dst = append(el.Src, int32(rng.IntN(n))), append(el.Dst, int32(rng.IntN(n)))
	}
	return el
}
