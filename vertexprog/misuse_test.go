package vertexprog_test

import (
	"errors"
	"math"
	"testing"

	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/vertexprog"
)

// smallestIn is the smallest id reached along in-edges: a program to run
// under bad Options.
type smallestIn struct{}

func (smallestIn) Spec() vertexprog.Spec {
	return vertexprog.Spec{Edges: vertexprog.InEdges, Sparse: true}
}
func (smallestIn) Init(v int32, _ *vertexprog.Step) (int32, bool) {
	return v, true
}
func (smallestIn) Identity() int32                                         { return math.MaxInt32 }
func (smallestIn) Gather(acc int32, _, _ int32, xu int32, _ float32) int32 { return min(acc, xu) }
func (smallestIn) Reduce(a, b int32) int32                                 { return min(a, b) }
func (smallestIn) Update(_ int32, acc int32, x *int32, _ *vertexprog.Step) bool {
	if acc < *x {
		*x = acc
		return true
	}
	return false
}

// The public API refuses misuse with errors, never a panic: a nil graph
// (NewGraph(nil) or a nil *Graph) has no vertices and runs nothing, ID of
// an index outside [0, N) is ErrNoVertex, and Options no constant gives
// (Direction 99) are ErrBadOptions instead of a run some other way.
func TestMisuseIsAnError(t *testing.T) {
	for name, g := range map[string]*vertexprog.Graph{"NewGraph(nil)": vertexprog.NewGraph(nil), "nil": nil} {
		if g.N() != 0 || g.Directed() || g.Weighted() || g.Edges() != 0 || g.Dataset() != nil {
			t.Errorf("%s: N %d, directed %v, weighted %v, edges %d", name, g.N(), g.Directed(), g.Weighted(), g.Edges())
		}
		if _, err := g.ID(0); !errors.Is(err, vertexprog.ErrNilGraph) {
			t.Errorf("%s: ID(0): %v", name, err)
		}
		if _, err := g.Vertex(0); !errors.Is(err, vertexprog.ErrNilGraph) {
			t.Errorf("%s: Vertex(0): %v", name, err)
		}
		if _, err := vertexprog.ByID(g, []int32{}); !errors.Is(err, vertexprog.ErrNilGraph) {
			t.Errorf("%s: ByID: %v", name, err)
		}
		if _, err := vertexprog.Run(g, vertexprog.Program[int32, int32](smallestIn{}), vertexprog.Options{}); !errors.Is(err, vertexprog.ErrNilGraph) {
			t.Errorf("%s: Run: %v", name, err)
		}
	}
	d, err := datasets.Load("../datasets/testdata/karate.mtx", datasets.Options{})
	if err != nil {
		t.Fatal(err)
	}
	g := vertexprog.NewGraph(d)
	if id, err := g.ID(33); err != nil || id != 34 {
		t.Errorf("ID(33) = %d, %v; want 34 (Matrix Market ids are 1-based)", id, err)
	}
	for _, v := range []int32{-1, 34, 99, math.MaxInt32, math.MinInt32} {
		if id, err := g.ID(v); !errors.Is(err, vertexprog.ErrNoVertex) {
			t.Errorf("ID(%d) of 34 vertices = %d, %v; want ErrNoVertex", v, id, err)
		}
	}
	for _, opt := range []vertexprog.Options{
		{Direction: 99}, {Direction: -1}, {Rule: 7}, {Alpha: -1}, {Alpha: math.NaN()}, {Beta: math.Inf(1)}, {MaxIterations: -3},
	} {
		if _, err := vertexprog.Run(g, vertexprog.Program[int32, int32](smallestIn{}), opt); !errors.Is(err, vertexprog.ErrBadOptions) {
			t.Errorf("Run with %+v: %v; want ErrBadOptions", opt, err)
		}
		m := vertexprog.Multiset(vertexprog.MultisetProgram[int32, int32, int32](nil))
		if _, err := m.Run(g, opt); !errors.Is(err, vertexprog.ErrBadOptions) {
			t.Errorf("Multiset Run with %+v: %v; want ErrBadOptions", opt, err)
		}
	}
	for _, opt := range []vertexprog.Options{{}, {Direction: vertexprog.Push}, {Direction: vertexprog.Pull, Rule: vertexprog.GraphBLAST}, {Alpha: 2, Beta: 3}} {
		opt.Backend = "cpu"
		if _, err := vertexprog.Run(g, vertexprog.Program[int32, int32](smallestIn{}), opt); err != nil {
			t.Errorf("Run with %+v: %v", opt, err)
		}
	}
}
