//go:build cgo

package cuda

import (
	"slices"
	"strings"
	"testing"

	"github.com/hpgraph/hpgraph/apps"
	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/datasets/gen"
	"github.com/hpgraph/hpgraph/vertexprog"
)

func TestCompileAfforest(t *testing.T) {
	needNVRTC(t)
	for _, arch := range testArchs() {
		ptx, _, err := compile(afforestProgram(), arch)
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
		g := vertexprog.NewGraph(build(t, c.el, datasets.Options{}))
		want, err := apps.ConnectedComponents(g, vertexprog.Options{Backend: "cpu"})
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 3; i++ {
			got, err := apps.ConnectedComponents(g, vertexprog.Options{Backend: "cuda"})
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
