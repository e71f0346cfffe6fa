package apps_test

import (
	"fmt"
	"strings"

	"github.com/hpgraph/hpgraph/apps"
	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/vertexprog"
)

// loadWithIDs reads an edge list in a file's own ids, renumbered by degree:
// loading keeps the ids whatever the order.
func loadWithIDs(text string, opt datasets.Options) *vertexprog.Graph {
	el, err := datasets.ReadEdgeList(strings.NewReader(text), "example")
	if err != nil {
		panic(err)
	}
	opt.Relabel = datasets.RelabelDegree
	g, err := datasets.Build(el, opt)
	if err != nil {
		panic(err)
	}
	return vertexprog.NewGraph(g)
}

// A breadth-first search from a file's id 700, answered in its ids.
func ExampleBFSFrom() {
	g := loadWithIDs("700 12\n12 5000\n700 31\n31 5000\n5000 64\n99 98\n", datasets.Options{})
	r, err := apps.BFSFrom(g, 700, vertexprog.Options{})
	if err != nil {
		panic(err)
	}
	d, _ := r.Depth(64)
	path, _ := r.Path(64)
	fmt.Println("depth of 64:", d, "path:", path)
	d, _ = r.Depth(98)
	fmt.Println("depth of 98:", d)
	_, err = apps.BFSFrom(g, 13, vertexprog.Options{})
	fmt.Println(err)
	// Output:
	// depth of 64: 3 path: [700 12 5000 64]
	// depth of 98: -1
	// invalid input: bfs source: id 13 is not a vertex of example: no vertex has this id
}

// Shortest distances from id 700 over weighted edges.
func ExampleSSSPFrom() {
	g := loadWithIDs("700 12 4\n12 5000 4\n700 31 1\n31 5000 2\n5000 64 1\n", datasets.Options{})
	r, err := apps.SSSPFrom(g, 700, vertexprog.Options{})
	if err != nil {
		panic(err)
	}
	dist, _ := r.Dists()
	fmt.Println(dist)
	// Output: map[12:4 31:1 64:4 700:0 5000:3]
}

// Components labelled by their smallest ids, after renumbering.
func ExampleConnectedComponentsByID() {
	g := loadWithIDs("700 12\n12 5000\n31 5000\n99 98\n98 310\n", datasets.Options{})
	r, err := apps.ConnectedComponentsByID(g, vertexprog.Options{})
	if err != nil {
		panic(err)
	}
	l, _ := r.Label(5000)
	fmt.Println(r.Components, "components; 5000 is in", l)
	fmt.Println(r.Groups())
	// Output:
	// 2 components; 5000 is in 12
	// [[12 31 700 5000] [98 99 310]]
}

// Any per-vertex result keyed by id (vertexprog.ByID): LDBC PageRank,
// and the index of a vertex for a direct read (vertexprog.Graph.Vertex).
func Example_pageRankByID() {
	g := loadWithIDs("700 12\n12 5000\n31 5000\n5000 700\n5000 31\n", datasets.Options{})
	r, err := apps.PageRankLDBC(g, 0.85, 50, vertexprog.Options{})
	if err != nil {
		panic(err)
	}
	rank, err := vertexprog.ByID(g, r.Rank)
	if err != nil {
		panic(err)
	}
	for _, id := range []int64{12, 31, 700, 5000} {
		fmt.Printf("%d: %.4f\n", id, rank[id])
	}
	v, _ := g.Vertex(5000)
	id, _ := g.ID(v)
	fmt.Printf("vertex %d has id %d, rank %.4f\n", v, id, r.Rank[v])
	// Output:
	// 12: 0.2092
	// 31: 0.2020
	// 700: 0.2020
	// 5000: 0.3869
	// vertex 0 has id 5000, rank 0.3869
}
