//go:build cgo

package run

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/hpgraph/hpgraph/apps/cc"
	"github.com/hpgraph/hpgraph/cuda/internal/gputest"
	"github.com/hpgraph/hpgraph/cuda/jit"
	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/datasets/gen"
	"github.com/hpgraph/hpgraph/vertexprog"
)

func TestCompileAfforest(t *testing.T) {
	needNVRTC(t)
	for _, arch := range testArchs() {
		ptx, _, err := jit.PTX(afforestProgram(), arch)
		if err != nil {
			t.Fatalf("%s: %v", arch, err)
		}
		for _, k := range afforestKernels {
			if !strings.Contains(ptx, ".entry "+k+"(") {
				t.Errorf("%s: PTX lacks kernel %s", arch, k)
			}
		}
	}
}

// TestComponentsMatchCPU: Afforest's labels equal the CPU's label
// propagation on graphs whose largest component sampling finds (Kronecker,
// a grid), on graphs of many components of every size (a forest of paths
// and stars, and isolated vertices), and on a graph without edges; three
// times each, since its links race.
func TestComponentsMatchCPU(t *testing.T) {
	needGPU(t)
	needNVRTC(t)
	kron, err := gen.Kronecker(14, 16, 3)
	if err != nil {
		t.Fatal(err)
	}
	grid, err := gen.Grid(120, 80)
	if err != nil {
		t.Fatal(err)
	}
	// Paths of every length 1..150 (the longest first), stars with 1..60
	// leaves hung off their last vertex, then 500 isolated vertices.
	forest := &datasets.EdgeList{}
	for l := int32(150); l >= 1; l-- {
		first := int32(forest.N)
		for i := int32(1); i < l; i++ {
			forest.Src, forest.Dst = append(forest.Src, first+i), append(forest.Dst, first+i-1)
		}
		forest.N += int(l)
		hub := int32(forest.N - 1)
		for i := int32(0); i < l%61; i++ {
			forest.Src, forest.Dst = append(forest.Src, hub), append(forest.Dst, int32(forest.N))
			forest.N++
		}
	}
	forest.N += 500
	for _, c := range []struct {
		name string
		el   *datasets.EdgeList
	}{{"kron14", kron}, {"grid", grid}, {"forest", forest}, {"no edges", &datasets.EdgeList{N: 1000}}} {
		g := vertexprog.NewGraph(gputest.Build(t, c.el, datasets.Options{}))
		want, err := cc.Run(g, vertexprog.Options{Backend: "cpu"})
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 3; i++ {
			got, err := cc.Run(g, vertexprog.Options{Backend: "cuda"})
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			if got.Run.Backend != "cuda" || got.Run.Iterations != afRounds+1 {
				t.Fatalf("%s: ran on %s in %d passes, not by Afforest", c.name, got.Run.Backend, got.Run.Iterations)
			}
			if !slices.Equal(got.Label, want.Label) || got.Components != want.Components {
				t.Fatalf("%s, run %d: %d components, cpu %d; labels equal: %v", c.name, i, got.Components, want.Components, slices.Equal(got.Label, want.Label))
			}
		}
		t.Logf("%s: %d vertices, %d components", c.name, g.N(), want.Components)
	}
}

// seedReach is a user's program with no device code: min-label
// propagation (declared: Spec.Components) from values of its own, 0 at
// the seeds and the vertex's id + 1 elsewhere, as float64. Each vertex
// ends with 0 where its component holds a seed, else its component's
// smallest id + 1.
type seedReach struct{ seed []bool }

func (seedReach) Spec() vertexprog.Spec {
	return vertexprog.Spec{Edges: vertexprog.AllEdges, Sparse: true, Idempotent: true, Components: true}
}
func (p seedReach) Init(v int32, _ *vertexprog.Step) (float64, bool) {
	if p.seed[v] {
		return 0, true
	}
	return float64(v) + 1, true
}
func (seedReach) Identity() float64                                             { return math.Inf(1) }
func (seedReach) Gather(acc float64, _, _ int32, xu float64, _ float32) float64 { return min(acc, xu) }
func (seedReach) Reduce(a, b float64) float64                                   { return min(a, b) }
func (seedReach) Update(_ int32, acc float64, x *float64, _ *vertexprog.Step) bool {
	if acc < *x {
		*x = acc
		return true
	}
	return false
}

// TestComponentsUserProgram: a program without device code that declares
// Spec.Components runs on the GPU by Afforest, with the values supersteps
// give on the CPU.
func TestComponentsUserProgram(t *testing.T) {
	needGPU(t)
	needNVRTC(t)
	kron, err := gen.Kronecker(14, 4, 5) // (edge factor 4: many components)
	if err != nil {
		t.Fatal(err)
	}
	g := vertexprog.NewGraph(gputest.Build(t, kron, datasets.Options{}))
	p := seedReach{seed: make([]bool, g.N())}
	for v := 0; v < g.N(); v += 997 {
		p.seed[v] = true
	}
	want, err := vertexprog.Run[float64, float64](g, p, vertexprog.Options{Backend: "cpu"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := vertexprog.Run[float64, float64](g, p, vertexprog.Options{Backend: "cuda"})
	if err != nil {
		t.Fatal(err)
	}
	if got.Backend != "cuda" || got.Iterations != afRounds+1 {
		t.Fatalf("ran on %s in %d passes, not by Afforest", got.Backend, got.Iterations)
	}
	if !slices.Equal(got.X, want.X) {
		t.Fatalf("the values differ from the CPU's supersteps")
	}
	seeded := 0
	for _, x := range want.X {
		if x == 0 {
			seeded++
		}
	}
	t.Logf("%d vertices, %d reach a seed", g.N(), seeded)
}

func TestMostFrequent(t *testing.T) {
	for _, c := range []struct {
		in   []int32
		want int32
	}{{[]int32{5}, 5}, {[]int32{3, 1, 3, 1, 2}, 1}, {[]int32{9, 9, 4, 4, 4}, 4}, {[]int32{0, 7, 7}, 7}} {
		if got := mostFrequent(c.in); got != c.want {
			t.Errorf("mostFrequent(%v) = %d, want %d", c.in, got, c.want)
		}
	}
}
