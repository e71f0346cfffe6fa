package vertexprog_test

import (
	"fmt"
	"math"

	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/vertexprog"
)

// widest computes, for every vertex, the largest bottleneck capacity of a
// path from src: the widest-path problem, as a user-defined program.
type widest struct{ src int32 }

func (widest) Spec() vertexprog.Spec { return vertexprog.Spec{Edges: vertexprog.InEdges, Sparse: true} }
func (p widest) Init(v int32, _ *vertexprog.Step) (float32, bool) {
	if v == p.src {
		return float32(math.Inf(1)), true
	}
	return 0, false
}
func (widest) Identity() float32                                     { return 0 }
func (widest) Gather(acc float32, _, _ int32, xu, w float32) float32 { return max(acc, min(xu, w)) }
func (widest) Reduce(a, b float32) float32                           { return max(a, b) }
func (widest) Update(_ int32, acc float32, x *float32, _ *vertexprog.Step) bool {
	if acc > *x {
		*x = acc
		return true
	}
	return false
}

func Example_widestPath() {
	// 0 -5-> 1 -3-> 3, 0 -2-> 2 -9-> 3, 3 -4-> 4
	g, _ := datasets.Build(&datasets.EdgeList{N: 5, Directed: true,
		Src: []int32{0, 1, 0, 2, 3}, Dst: []int32{1, 3, 2, 3, 4}, W: []float32{5, 3, 2, 9, 4}}, datasets.Options{})
	res, err := vertexprog.Run(vertexprog.NewGraph(g), vertexprog.Program[float32, float32](widest{src: 0}), vertexprog.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.X[1:], "in", res.Iterations, "supersteps")
	// Output: [5 2 3 3] in 4 supersteps
}
