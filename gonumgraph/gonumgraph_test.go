package gonumgraph_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/graph"
	"gonum.org/v1/gonum/graph/multi"
	"gonum.org/v1/gonum/graph/network"
	"gonum.org/v1/gonum/graph/path"
	"gonum.org/v1/gonum/graph/simple"
	"gonum.org/v1/gonum/graph/topo"
	"gonum.org/v1/gonum/graph/traverse"

	"github.com/hpgraph/hpgraph/apps"
	"github.com/hpgraph/hpgraph/apps/sssp"
	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/gonumgraph"
	"github.com/hpgraph/hpgraph/vertexprog"
)

// builder is what the random graphs are built through: gonum's four
// simple graph types.
type builder interface {
	graph.Graph
	AddNode(graph.Node)
}

// kind is a gonum graph type to test.
type kind struct {
	name               string
	directed, weighted bool
}

var kinds = []kind{
	{"directed", true, false},
	{"undirected", false, false},
	{"weighted-directed", true, true},
	{"weighted-undirected", false, true},
}

// randomGraph returns a gonum graph of n nodes with distinct random ids
// (negative ones among them, and isolated nodes) and about m edges, of
// integer weights 1..20 when weighted (float32 holds them and their sums
// exactly, so distances compare exactly).
func randomGraph(k kind, n, m int, seed uint64) graph.Graph {
	rng := rand.New(rand.NewPCG(seed, 17))
	var b builder
	var setEdge func(u, v graph.Node, w float64)
	switch {
	case k.directed && k.weighted:
		g := simple.NewWeightedDirectedGraph(0, math.Inf(1))
		b, setEdge = g, func(u, v graph.Node, w float64) { g.SetWeightedEdge(g.NewWeightedEdge(u, v, w)) }
	case k.directed:
		g := simple.NewDirectedGraph()
		b, setEdge = g, func(u, v graph.Node, _ float64) { g.SetEdge(g.NewEdge(u, v)) }
	case k.weighted:
		g := simple.NewWeightedUndirectedGraph(0, math.Inf(1))
		b, setEdge = g, func(u, v graph.Node, w float64) { g.SetWeightedEdge(g.NewWeightedEdge(u, v, w)) }
	default:
		g := simple.NewUndirectedGraph()
		b, setEdge = g, func(u, v graph.Node, _ float64) { g.SetEdge(g.NewEdge(u, v)) }
	}
	nodes := make([]graph.Node, 0, n)
	for len(nodes) < n {
		id := rng.Int64N(2000) - 1000
		if b.Node(id) == nil {
			nodes = append(nodes, simple.Node(id))
			b.AddNode(simple.Node(id))
		}
	}
	for range m {
		u, v := nodes[rng.IntN(n)], nodes[rng.IntN(n)]
		if u.ID() != v.ID() {
			setEdge(u, v, float64(1+rng.IntN(20)))
		}
	}
	return b
}

// randomGraphs are the graphs every comparison runs on: each kind, a
// sparse graph with several components and a denser one.
func randomGraphs() []struct {
	name string
	k    kind
	g    graph.Graph
} {
	var out []struct {
		name string
		k    kind
		g    graph.Graph
	}
	for i, k := range kinds {
		for j, size := range [][2]int{{60, 50}, {120, 600}, {1, 0}, {300, 1200}} {
			out = append(out, struct {
				name string
				k    kind
				g    graph.Graph
			}{fmt.Sprintf("%s/n%d-m%d", k.name, size[0], size[1]), k, randomGraph(k, size[0], size[1], uint64(10*i+j))})
		}
	}
	return out
}

func nodeIDs(g graph.Graph) []int64 {
	var ids []int64
	for it := g.Nodes(); it.Next(); {
		ids = append(ids, it.Node().ID())
	}
	slices.Sort(ids)
	return ids
}

// arcs lists g's edges as (from, to, weight) in both directions for an
// undirected graph, sorted.
type arc struct {
	u, v int64
	w    float64
}

func gonumArcs(g graph.Graph) []arc {
	var out []arc
	wg, weighted := g.(graph.Weighted)
	for _, u := range nodeIDs(g) {
		for it := g.From(u); it.Next(); {
			v := it.Node().ID()
			w := 1.0
			if weighted {
				w, _ = wg.Weight(u, v)
			}
			out = append(out, arc{u, v, w})
		}
	}
	slices.SortFunc(out, cmpArc)
	return out
}

func hpgraphArcs(g *vertexprog.Graph) []arc {
	var out []arc
	for u := int32(0); u < int32(g.N()); u++ {
		w := g.OutWeights(u)
		for i, v := range g.OutNeighbors(u) {
			d := g.Dataset()
			a := arc{d.OriginalID(u), d.OriginalID(v), 1}
			if w != nil {
				a.w = float64(w[i])
			}
			out = append(out, a)
		}
	}
	slices.SortFunc(out, cmpArc)
	return out
}

func cmpArc(a, b arc) int {
	switch {
	case a.u != b.u:
		return cmpInt(a.u, b.u)
	case a.v != b.v:
		return cmpInt(a.v, b.v)
	}
	return 0
}

func cmpInt(a, b int64) int {
	if a < b {
		return -1
	}
	return 1
}

func TestRoundTrip(t *testing.T) {
	for _, tg := range randomGraphs() {
		for _, relabel := range []datasets.Relabeling{datasets.RelabelNone, datasets.RelabelDegree} {
			t.Run(tg.name+"/"+relabel.String(), func(t *testing.T) {
				vg, err := gonumgraph.FromGonum(tg.g, gonumgraph.Options{Relabel: relabel})
				if err != nil {
					t.Fatal(err)
				}
				if vg.Directed() != tg.k.directed || vg.Weighted() != tg.k.weighted {
					t.Fatalf("directed %v weighted %v, want %v %v", vg.Directed(), vg.Weighted(), tg.k.directed, tg.k.weighted)
				}
				ids := nodeIDs(tg.g)
				if vg.N() != len(ids) {
					t.Fatalf("%d vertices for %d nodes", vg.N(), len(ids))
				}
				for _, id := range ids {
					v, err := vg.Vertex(id)
					if back, err2 := vg.ID(v); err != nil || err2 != nil || back != id {
						t.Fatalf("node %d: vertex %d, %v", id, v, err)
					}
				}
				if want, got := gonumArcs(tg.g), hpgraphArcs(vg); !slices.Equal(want, got) {
					t.Fatalf("arcs differ:\ngonum   %v\nhpgraph %v", want, got)
				}
				back, err := gonumgraph.ToGonum(vg)
				if err != nil {
					t.Fatal(err)
				}
				_, directed := back.(graph.Directed)
				_, weighted := back.(graph.Weighted)
				if directed != tg.k.directed || weighted != tg.k.weighted {
					t.Fatalf("ToGonum gave %T", back)
				}
				if !slices.Equal(nodeIDs(back), ids) {
					t.Fatalf("ToGonum's nodes %v, want %v", nodeIDs(back), ids)
				}
				if want, got := gonumArcs(tg.g), gonumArcs(back); !slices.Equal(want, got) {
					t.Fatalf("ToGonum's arcs differ:\nwant %v\ngot  %v", want, got)
				}
			})
		}
	}
}

// A file's graph through gonum and back keeps its ids and arcs.
func TestRoundTripFromHpgraph(t *testing.T) {
	el := &datasets.EdgeList{N: 6, Directed: true, Src: []int32{0, 0, 1, 2, 3, 4, 4}, Dst: []int32{1, 1, 2, 0, 4, 5, 3},
		W: []float32{5, 2, 1.5, 3, 4, 0.25, 7}, IDs: []int64{-5, 3, 9, 100, 1 << 40, 7}}
	d, err := datasets.Build(el, datasets.Options{KeepDuplicates: true, Relabel: datasets.RelabelDegree})
	if err != nil {
		t.Fatal(err)
	}
	vg := vertexprog.NewGraph(d)
	gg, err := gonumgraph.ToGonum(vg)
	if err != nil {
		t.Fatal(err)
	}
	// The parallel arcs -5 -> 3 (5 and 2) become one of weight 2.
	if w, ok := gg.(graph.Weighted).Weight(-5, 3); !ok || w != 2 {
		t.Errorf("weight -5 -> 3: %v %v, want 2", w, ok)
	}
	back, err := gonumgraph.FromGonum(gg, gonumgraph.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := hpgraphArcs(vg)
	want = slices.CompactFunc(want, func(a, b arc) bool { return a.u == b.u && a.v == b.v })
	for i := range want {
		if want[i].u == -5 && want[i].v == 3 {
			want[i].w = 2
		}
	}
	if got := hpgraphArcs(back); !slices.Equal(want, got) {
		t.Fatalf("arcs after the round trip:\nwant %v\ngot  %v", want, got)
	}
}

// bfsDepths is gonum's breadth-first search: the depth of every node
// reached from src.
func bfsDepths(g graph.Graph, src int64) map[int64]int {
	depth := map[int64]int{}
	var b traverse.BreadthFirst
	b.Walk(g, g.Node(src), func(n graph.Node, d int) bool {
		depth[n.ID()] = d
		return false
	})
	return depth
}

// sources are a few node ids of g: the smallest, the largest and one of
// the most edges.
func sources(g graph.Graph) []int64 {
	ids := nodeIDs(g)
	hub := ids[0]
	for _, id := range ids {
		if g.From(id).Len() > g.From(hub).Len() {
			hub = id
		}
	}
	return []int64{ids[0], ids[len(ids)-1], hub}
}

func TestBFSMatchesGonum(t *testing.T) {
	for _, tg := range randomGraphs() {
		for _, src := range sources(tg.g) {
			got, err := gonumgraph.BFS(tg.g, src, vertexprog.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if want := bfsDepths(tg.g, src); !mapsEqual(got, want) {
				t.Fatalf("%s from %d:\ngot  %v\nwant %v", tg.name, src, got, want)
			}
		}
	}
}

func mapsEqual[V comparable](a, b map[int64]V) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// dijkstra is gonum's shortest distances from src to the nodes reached.
func dijkstra(g graph.Graph, src int64) map[int64]float64 {
	sp := path.DijkstraFrom(g.Node(src), g)
	out := map[int64]float64{}
	for _, id := range nodeIDs(g) {
		if w := sp.WeightTo(id); !math.IsInf(w, 1) {
			out[id] = w
		}
	}
	return out
}

func TestShortestPathsMatchGonum(t *testing.T) {
	for _, tg := range randomGraphs() {
		for _, src := range sources(tg.g) {
			got, err := gonumgraph.ShortestPaths(tg.g, src, vertexprog.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if want := dijkstra(tg.g, src); !mapsEqual(got, want) {
				t.Fatalf("%s from %d:\ngot  %v\nwant %v", tg.name, src, got, want)
			}
		}
	}
}

// Run with a program of one's own (here apps' SSSP program, its source
// turned from a node id into a vertex) answers by node id.
func TestRunMatchesGonum(t *testing.T) {
	for _, tg := range randomGraphs() {
		src := sources(tg.g)[2]
		got, err := gonumgraph.Run(tg.g, func(vg *vertexprog.Graph) (vertexprog.Program[float32, float32], error) {
			v, err := vg.Vertex(src)
			return &sssp.Program{Source: v}, err
		}, vertexprog.Options{})
		if err != nil {
			t.Fatal(err)
		}
		want := dijkstra(tg.g, src)
		if len(got) != len(nodeIDs(tg.g)) {
			t.Fatalf("%s: %d values for %d nodes", tg.name, len(got), len(nodeIDs(tg.g)))
		}
		for id, d := range got {
			if w, ok := want[id]; (ok && float64(d) != w) || (!ok && !math.IsInf(float64(d), 1)) {
				t.Fatalf("%s: node %d: %v, gonum %v (reached %v)", tg.name, id, d, w, ok)
			}
		}
	}
}

// sortedComponents is gonum's components as sorted lists of ids, in
// order of their smallest.
func sortedComponents(g graph.Graph) [][]int64 {
	var u graph.Undirected
	if d, ok := g.(graph.Directed); ok {
		u = graph.Undirect{G: d}
	} else {
		u = g.(graph.Undirected)
	}
	var out [][]int64
	for _, c := range topo.ConnectedComponents(u) {
		ids := make([]int64, len(c))
		for i, n := range c {
			ids[i] = n.ID()
		}
		slices.Sort(ids)
		out = append(out, ids)
	}
	slices.SortFunc(out, func(a, b []int64) int { return cmpInt(a[0], b[0]) })
	return out
}

func TestConnectedComponentsMatchGonum(t *testing.T) {
	for _, tg := range randomGraphs() {
		got, err := gonumgraph.ConnectedComponents(tg.g, vertexprog.Options{})
		if err != nil {
			t.Fatal(err)
		}
		want := sortedComponents(tg.g)
		if !slices.EqualFunc(got, want, slices.Equal) {
			t.Fatalf("%s:\ngot  %v\nwant %v", tg.name, got, want)
		}
	}
}

// directedCopy is an unweighted graph.Directed with g's arcs (an
// undirected edge both ways): what network.PageRank takes.
func directedCopy(g graph.Graph) graph.Directed {
	d := simple.NewDirectedGraph()
	for _, id := range nodeIDs(g) {
		d.AddNode(simple.Node(id))
	}
	for _, a := range gonumArcs(g) {
		d.SetEdge(d.NewEdge(simple.Node(a.u), simple.Node(a.v)))
	}
	return d
}

func TestPageRankMatchesGonum(t *testing.T) {
	for _, tg := range randomGraphs() {
		got, err := gonumgraph.PageRank(tg.g, 0.85, 200, vertexprog.Options{})
		if err != nil {
			t.Fatal(err)
		}
		want := network.PageRank(directedCopy(tg.g), 0.85, 1e-12)
		if len(got) != len(want) {
			t.Fatalf("%s: %d ranks, gonum %d", tg.name, len(got), len(want))
		}
		for id, w := range want {
			if r, ok := got[id]; !ok || math.Abs(r-w) > 1e-9+1e-7*w {
				t.Fatalf("%s: node %d: rank %v, gonum %v", tg.name, id, r, w)
			}
		}
	}
}

// triangles counts g's triangles by brute force over gonum's
// HasEdgeBetween.
func triangles(g graph.Graph) int64 {
	ids := nodeIDs(g)
	var n int64
	for i, a := range ids {
		for j := i + 1; j < len(ids); j++ {
			if !g.HasEdgeBetween(a, ids[j]) {
				continue
			}
			for _, c := range ids[j+1:] {
				if g.HasEdgeBetween(a, c) && g.HasEdgeBetween(ids[j], c) {
					n++
				}
			}
		}
	}
	return n
}

func TestTrianglesMatchGonum(t *testing.T) {
	for _, tg := range randomGraphs() {
		got, err := gonumgraph.Triangles(tg.g, vertexprog.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if want := triangles(tg.g); got != want {
			t.Fatalf("%s: %d triangles, brute force %d", tg.name, got, want)
		}
	}
}

// Multigraphs: parallel lines become one arc, self loops are kept unless
// dropped.
func TestMultigraph(t *testing.T) {
	g := multi.NewWeightedDirectedGraph()
	g.EdgeWeightFunc = func(lines graph.WeightedLines) float64 {
		w := math.Inf(1)
		for lines.Next() {
			w = min(w, lines.WeightedLine().Weight())
		}
		return w
	}
	a, b, c := multi.Node(4), multi.Node(8), multi.Node(15)
	for _, l := range []struct {
		u, v graph.Node
		w    float64
	}{{a, b, 3}, {a, b, 1}, {b, c, 2}, {c, c, 9}} {
		g.SetWeightedLine(g.NewWeightedLine(l.u, l.v, l.w))
	}
	vg, err := gonumgraph.FromGonum(g, gonumgraph.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []arc{{4, 8, 1}, {8, 15, 2}, {15, 15, 9}}
	if got := hpgraphArcs(vg); !slices.Equal(got, want) {
		t.Fatalf("arcs %v, want %v", got, want)
	}
	if _, err := gonumgraph.ToGonum(vg); err == nil {
		t.Error("ToGonum of a graph with a self loop: no error")
	}
	vg, err = gonumgraph.FromGonum(g, gonumgraph.Options{DropSelfLoops: true, Unweighted: true})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := hpgraphArcs(vg), []arc{{4, 8, 1}, {8, 15, 1}}; !slices.Equal(got, want) {
		t.Fatalf("arcs without loops or weights %v, want %v", got, want)
	}
	dist, err := gonumgraph.ShortestPaths(g, 4, vertexprog.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if want := dijkstra(g, 4); !mapsEqual(dist, want) {
		t.Fatalf("distances %v, gonum %v", dist, want)
	}
}

func TestMisuse(t *testing.T) {
	is := func(name string, err error, targets ...error) {
		t.Helper()
		if err == nil {
			t.Errorf("%s: no error", name)
			return
		}
		for _, target := range targets {
			if !errors.Is(err, target) {
				t.Errorf("%s: %v is not %v", name, err, target)
			}
		}
	}
	opt := vertexprog.Options{}
	for name, g := range map[string]graph.Graph{
		"nil":                            nil,
		"nil *simple.DirectedGraph":      (*simple.DirectedGraph)(nil),
		"nil *simple.WeightedUndirected": (*simple.WeightedUndirectedGraph)(nil),
	} {
		_, err := gonumgraph.FromGonum(g, gonumgraph.Options{})
		is(name+": FromGonum", err, gonumgraph.ErrNilGraph)
		_, err = gonumgraph.BFS(g, 0, opt)
		is(name+": BFS", err, gonumgraph.ErrNilGraph)
		_, err = gonumgraph.ShortestPaths(g, 0, opt)
		is(name+": ShortestPaths", err, gonumgraph.ErrNilGraph)
		_, err = gonumgraph.ConnectedComponents(g, opt)
		is(name+": ConnectedComponents", err, gonumgraph.ErrNilGraph)
		_, err = gonumgraph.PageRank(g, 0.85, 10, opt)
		is(name+": PageRank", err, gonumgraph.ErrNilGraph)
		_, err = gonumgraph.Triangles(g, opt)
		is(name+": Triangles", err, gonumgraph.ErrNilGraph)
	}
	_, err := gonumgraph.FromGonum(simple.NewDirectedGraph(), gonumgraph.Options{})
	is("empty graph", err, datasets.ErrEmptyGraph)
	_, err = gonumgraph.ToGonum(nil)
	is("ToGonum(nil)", err, gonumgraph.ErrNilGraph)
	_, err = gonumgraph.ToGonum(&vertexprog.Graph{})
	is("ToGonum(zero graph)", err, gonumgraph.ErrNilGraph)

	g := randomGraph(kinds[2], 30, 60, 3)
	ids := nodeIDs(g)
	missing := ids[len(ids)-1] + 1
	_, err = gonumgraph.BFS(g, missing, opt)
	is("BFS from a missing node", err, apps.ErrInvalidInput, vertexprog.ErrUnknownID)
	_, err = gonumgraph.ShortestPaths(g, missing, opt)
	is("ShortestPaths from a missing node", err, apps.ErrInvalidInput, vertexprog.ErrUnknownID)
	_, err = gonumgraph.Run[float32, float32](g, nil, opt)
	is("Run with no program", err)
	boom := errors.New("boom")
	_, err = gonumgraph.Run(g, func(*vertexprog.Graph) (vertexprog.Program[float32, float32], error) { return nil, boom }, opt)
	is("Run whose program fails", err, boom)
	_, err = gonumgraph.Run(g, func(*vertexprog.Graph) (vertexprog.Program[float32, float32], error) {
		return (*sssp.Program)(nil), nil
	}, opt)
	is("Run with a nil program", err)
	_, err = gonumgraph.PageRank(g, 1.5, 10, opt)
	is("PageRank with damping 1.5", err)

	for _, w := range []float64{-1, math.NaN(), math.Inf(1), 1e300} {
		wg := simple.NewWeightedDirectedGraph(0, math.Inf(1))
		wg.SetWeightedEdge(wg.NewWeightedEdge(simple.Node(1), simple.Node(2), 1))
		wg.SetWeightedEdge(wg.NewWeightedEdge(simple.Node(2), simple.Node(3), w))
		_, err := gonumgraph.ShortestPaths(wg, 1, opt)
		if w < 0 {
			is("negative weight", err, apps.ErrInvalidInput)
			continue
		}
		is(fmt.Sprint("weight ", w), err)
		// Unweighted, the same graph is fine.
		if _, err := gonumgraph.FromGonum(wg, gonumgraph.Options{Unweighted: true}); err != nil {
			t.Errorf("weight %v, Unweighted: %v", w, err)
		}
	}
}
