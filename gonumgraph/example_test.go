package gonumgraph_test

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/gonum/graph"
	"gonum.org/v1/gonum/graph/network"
	"gonum.org/v1/gonum/graph/path"
	"gonum.org/v1/gonum/graph/simple"
	"gonum.org/v1/gonum/graph/topo"

	"github.com/hpgraph/hpgraph/apps/cc"
	"github.com/hpgraph/hpgraph/apps/sssp"
	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/gonumgraph"
	"github.com/hpgraph/hpgraph/vertexprog"
)

// roads is a small weighted directed gonum graph whose node ids are not
// 0..n-1: 101 -4-> 205 -1-> 307, 101 -7-> 307, 307 -2-> 410, and 999
// on its own.
func roads() *simple.WeightedDirectedGraph {
	g := simple.NewWeightedDirectedGraph(0, math.Inf(1))
	for _, e := range []struct {
		u, v int64
		w    float64
	}{{101, 205, 4}, {205, 307, 1}, {101, 307, 7}, {307, 410, 2}} {
		g.SetWeightedEdge(g.NewWeightedEdge(simple.Node(e.u), simple.Node(e.v), e.w))
	}
	g.AddNode(simple.Node(999))
	return g
}

// Convert a gonum graph once, then run several algorithms on it, asking
// and answering in its node ids.
func ExampleFromGonum() {
	g := roads()
	vg, err := gonumgraph.FromGonum(g, gonumgraph.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Println(vg.N(), "vertices, directed:", vg.Directed(), "weighted:", vg.Weighted())

	sp, err := sssp.From(vg, 101, vertexprog.Options{})
	if err != nil {
		panic(err)
	}
	d, _ := sp.Dist(410)
	fmt.Println("hpgraph: 101 to 410:", d)
	fmt.Println("gonum:   101 to 410:", path.DijkstraFrom(g.Node(101), g).WeightTo(410))

	comp, err := cc.RunByID(vg, vertexprog.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Println("components:", comp.Groups())
	// Output:
	// 5 vertices, directed: true weighted: true
	// hpgraph: 101 to 410: 7
	// gonum:   101 to 410: 7
	// components: [[101 205 307 410] [999]]
}

// Hand a graph loaded by hpgraph, in its file's ids, to gonum's
// algorithms.
func ExampleToGonum() {
	el, err := datasets.ReadEdgeList(strings.NewReader("10 20\n20 30\n40 50\n"), "pairs.txt")
	if err != nil {
		panic(err)
	}
	d, err := datasets.Build(el, datasets.Options{Symmetrize: true})
	if err != nil {
		panic(err)
	}
	g, err := gonumgraph.ToGonum(vertexprog.NewGraph(d))
	if err != nil {
		panic(err)
	}
	fmt.Printf("%T\n", g)
	var sizes []string
	for _, c := range topo.ConnectedComponents(g.(graph.Undirected)) {
		ids := make([]int64, len(c))
		for i, n := range c {
			ids[i] = n.ID()
		}
		slices.Sort(ids)
		sizes = append(sizes, fmt.Sprint(ids))
	}
	slices.Sort(sizes)
	fmt.Println("components by gonum:", sizes)
	fmt.Println(g.HasEdgeBetween(30, 20), g.HasEdgeBetween(10, 30))
	// Output:
	// *simple.UndirectedGraph
	// components by gonum: [[10 20 30] [40 50]]
	// true false
}

func ExampleBFS() {
	depth, err := gonumgraph.BFS(roads(), 101, vertexprog.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Println(depth)
	_, err = gonumgraph.BFS(roads(), 102, vertexprog.Options{})
	fmt.Println(err)
	// Output:
	// map[101:0 205:1 307:1 410:2]
	// invalid input: bfs source: id 102 is not a vertex of gonum graph: no vertex has this id
}

func ExampleShortestPaths() {
	g := roads()
	dist, err := gonumgraph.ShortestPaths(g, 101, vertexprog.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Println(dist)
	sp := path.DijkstraFrom(g.Node(101), g)
	fmt.Println(sp.WeightTo(205), sp.WeightTo(307), sp.WeightTo(410), sp.WeightTo(999))
	// Output:
	// map[101:0 205:4 307:5 410:7]
	// 4 5 7 +Inf
}

func ExampleConnectedComponents() {
	g := simple.NewUndirectedGraph()
	for _, e := range [][2]int64{{-3, 8}, {8, 12}, {40, 41}} {
		g.SetEdge(g.NewEdge(simple.Node(e[0]), simple.Node(e[1])))
	}
	g.AddNode(simple.Node(7))
	cc, err := gonumgraph.ConnectedComponents(g, vertexprog.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Println(cc)
	fmt.Println(len(topo.ConnectedComponents(g)), "components by gonum")
	// Output:
	// [[-3 8 12] [7] [40 41]]
	// 3 components by gonum
}

func ExamplePageRank() {
	g := simple.NewDirectedGraph()
	for _, e := range [][2]int64{{1, 2}, {2, 3}, {3, 1}, {3, 4}} { // 4 is dangling
		g.SetEdge(g.NewEdge(simple.Node(e[0]), simple.Node(e[1])))
	}
	rank, err := gonumgraph.PageRank(g, 0.85, 100, vertexprog.Options{})
	if err != nil {
		panic(err)
	}
	want := network.PageRank(g, 0.85, 1e-12)
	for id := int64(1); id <= 4; id++ {
		fmt.Printf("%d: %.6f (gonum %.6f)\n", id, rank[id], want[id])
	}
	// Output:
	// 1: 0.213762 (gonum 0.213762)
	// 2: 0.264622 (gonum 0.264622)
	// 3: 0.307853 (gonum 0.307853)
	// 4: 0.213762 (gonum 0.213762)
}

func ExampleTriangles() {
	g := simple.NewUndirectedGraph()
	// Two triangles sharing the edge 20-30, and a tail.
	for _, e := range [][2]int64{{10, 20}, {20, 30}, {30, 10}, {20, 40}, {40, 30}, {40, 50}} {
		g.SetEdge(g.NewEdge(simple.Node(e[0]), simple.Node(e[1])))
	}
	n, err := gonumgraph.Triangles(g, vertexprog.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Println(n, "triangles")
	// Output: 2 triangles
}

// widest is a program of one's own: the largest bottleneck capacity of a
// path from src (README, "Writing a vertex program").
type widest struct{ src int32 }

func (widest) Spec() vertexprog.Spec {
	return vertexprog.Spec{Edges: vertexprog.InEdges, Sparse: true}
}
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

// Run a program of one's own on a gonum graph: the program's source is a
// vertex index, found from the node id; the answer is keyed by node id.
func ExampleRun() {
	width, err := gonumgraph.Run(roads(), func(g *vertexprog.Graph) (vertexprog.Program[float32, float32], error) {
		src, err := g.Vertex(101)
		return widest{src: src}, err
	}, vertexprog.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Println(width) // 999 is unreachable: 0; the source itself: +Inf
	// Output: map[101:+Inf 205:4 307:7 410:2 999:0]
}
